package dev.cadre.platform.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.workflow.Workflow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/** The {@code workflows} section of agent YAML: every shape, and start-up errors naming file, workflow and field. */
class WorkflowConfigTest {

    private static final String AGENTS = """
            agents:
              - {name: a, description: d, model: scripted:default}
              - {name: b, description: d, model: scripted:default, internal: true}
              - {name: c, description: d, model: scripted:default}
            scripts:
              a: {turns: [{text: a}]}
              b: {turns: [{text: b}]}
              c: {turns: [{text: c}]}
            """;

    @TempDir
    Path dir;

    private AgentCatalog load(String workflows) throws IOException {
        Files.writeString(dir.resolve("team.yaml"), AGENTS + workflows);
        return AgentCatalog.load(
                new PathMatchingResourcePatternResolver(),
                List.of("file:" + dir + "/*.yaml"),
                List.of(),
                new AgentCatalog.ProviderModels() {
                    @Override
                    public Optional<dev.cadre.agent.model.ModelPort> model(dev.cadre.agent.model.ModelRef ref) {
                        return Optional.empty();
                    }

                    @Override
                    public List<String> providers() {
                        return List.of("scripted");
                    }
                });
    }

    @Test
    void everyShape_becomesTheAgentCoreWorkflow_andInternalFlagsAreKept() throws IOException {
        AgentCatalog catalog = load("""
                workflows:
                  - {name: seq, description: d, type: sequence, steps: [a, {agent: b}, {type: parallel, agents: [a, c]}]}
                  - {name: fan, description: d, type: parallel, agent: a, over: "memory:hosts/all", parallelism: 3}
                  - {name: mr, description: d, type: map-reduce, agents: [a, b]}
                  - {name: deb, description: d, type: debate, participants: [a, c], maxRounds: 2, consensus: 0.5, judge: b}
                  - {name: spl, description: d, type: split, agent: a, maxChunkChars: 50, parallelism: 2}
                  - {name: desk, description: d, type: handoff, agents: [a, c], maxHandoffs: 1, internal: true}
                """);

        assertThat(catalog.workflow("seq").orElseThrow().workflow())
                .isEqualTo(new Workflow.Sequence(
                        "seq",
                        List.of(
                                new Workflow.AgentStep("a", "a"),
                                new Workflow.AgentStep("b", "b"),
                                new Workflow.MapReduce("parallel", List.of("a", "c")))));
        assertThat(catalog.workflow("fan").orElseThrow().workflow())
                .isEqualTo(new Workflow.FanOut("fan", "a", "memory:hosts/all", 3));
        assertThat(catalog.workflow("mr").orElseThrow().workflow())
                .isEqualTo(new Workflow.MapReduce("mr", List.of("a", "b")));
        assertThat(catalog.workflow("deb").orElseThrow().workflow())
                .isEqualTo(new Workflow.Debate("deb", List.of("a", "c"), 2, 0.5, "b"));
        assertThat(catalog.workflow("spl").orElseThrow().workflow()).isEqualTo(new Workflow.Split("spl", "a", 50, 2));
        assertThat(catalog.workflow("desk").orElseThrow().workflow())
                .isEqualTo(new Workflow.Handoff("desk", List.of("a", "c"), 1));
        assertThat(catalog.isInternal("b")).isTrue();
        assertThat(catalog.isInternal("desk")).isTrue();
        assertThat(catalog.isInternal("a")).isFalse();
        assertThat(catalog.entryPoints()).containsExactly("a", "c", "seq", "fan", "mr", "deb", "spl");
    }

    @Test
    void badWorkflows_stopStartUp_withEveryProblemNamingFileWorkflowAndField() {
        assertThatThrownBy(() -> load("""
                        workflows:
                          - {name: seq, description: d, type: sequence, steps: [a, ghost]}
                          - {name: fan, description: d, type: parallel, agent: a, over: "redis:x"}
                          - {name: both, description: d, type: parallel, agent: a, agents: [a]}
                          - {name: deb, description: d, type: debate, participants: [a], consensus: 1.5}
                          - {name: spl, description: d, type: split, agent: a, maxChunkChars: 0}
                          - {name: desk, description: d, type: handoff, agents: [a], maxHandoffs: -1, colour: red}
                          - {name: a, description: d, type: sequence, steps: [c]}
                          - {name: what, description: d, type: loop}
                          - {name: nodesc, type: sequence, steps: [a]}
                        """))
                .isInstanceOfSatisfying(
                        AgentConfigException.class,
                        e -> assertThat(e.problems())
                                .containsExactlyInAnyOrder(
                                        "team.yaml: workflow 'seq': field 'steps[1]': unknown agent 'ghost' (defined: [a, b,"
                                                + " c])",
                                        "team.yaml: workflow 'fan': field 'over': 'redis:x' is neither 'input' (its lines)"
                                                + " nor 'memory:<namespace>/<key>'",
                                        "team.yaml: workflow 'both': field 'agents': give either 'agents' (each runs on the"
                                                + " same input) or 'agent' with 'over' (one run per item of a list)",
                                        "team.yaml: workflow 'deb': field 'participants': a list of at least 2 agent names",
                                        "team.yaml: workflow 'deb': field 'consensus': the share of participants that must"
                                                + " agree, in (0, 1]",
                                        "team.yaml: workflow 'spl': field 'maxChunkChars': must be a whole number ≥ 1",
                                        "team.yaml: workflow 'desk': field 'maxHandoffs': must be a whole number ≥ 0",
                                        "team.yaml: workflow 'desk': field 'colour': unknown for a handoff (known: [agents,"
                                                + " maxHandoffs])",
                                        "team.yaml: workflow 'a': field 'name': an agent already has this name (runs name"
                                                + " one or the other)",
                                        "team.yaml: workflow 'what': field 'type': 'loop' (one of [sequence, parallel,"
                                                + " map-reduce, map_reduce, debate, split, handoff])",
                                        "team.yaml: workflow 'nodesc': field 'description': required (callers and the"
                                                + " console choose by it)"));
    }
}
