package dev.cadre.agent;

import static dev.cadre.agent.testing.Fixtures.agent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentTreeTest {

    private final ModelPort model = new ScriptedModel(Map.of());
    private final ToolRegistry tools =
            ToolRegistry.of(Tools.of("ping", "Pings.", "{\"type\":\"object\"}", Risk.AUTO, (a, c) -> "pong"));

    @Test
    void configurationErrors_failAtBuildTime_namingTheAgentAndField() {
        assertThatThrownBy(() -> AgentSpec.builder("bad/name").description("x").build())
                .hasMessageContaining("agent name 'bad/name'");
        assertThatThrownBy(() -> AgentSpec.builder("ok").build()).hasMessageContaining("agent 'ok': description");
        assertThatThrownBy(
                        () -> AgentTree.build(List.of(agent("a").tools("nope").build()), tools, ref -> model))
                .hasMessageContaining("agent 'a': tools: unknown tool 'nope'");
        assertThatThrownBy(() ->
                        AgentTree.build(List.of(agent("a").workers("ghost").build()), tools, ref -> model))
                .hasMessageContaining("agent 'a': workers: unknown agent 'ghost'");
        assertThatThrownBy(() -> AgentTree.build(
                        List.of(
                                agent("a").tools("ping").workers("ping").build(),
                                agent("ping").build()),
                        tools,
                        ref -> model))
                .hasMessageContaining("worker 'ping' has the name of one of its tools");
        assertThatThrownBy(() ->
                        AgentTree.build(List.of(agent("a").build(), agent("a").build()), tools, ref -> model))
                .hasMessageContaining("agent name 'a' is defined twice");
        assertThatThrownBy(() -> AgentTree.build(List.of(agent("a").build()), tools, ref -> {
                    throw new IllegalArgumentException("no provider 'scripted'");
                }))
                .hasMessageContaining("agent 'a': model: cannot resolve 'scripted:default'");
        assertThatThrownBy(() -> new Budget(0, 10, java.time.Duration.ofSeconds(1)))
                .hasMessageContaining("budget.maxIterations");
    }

    @Test
    void validTree_exposesEachAgentsWhitelistOnly() {
        AgentTree tree = AgentTree.build(
                List.of(
                        agent("a").tools("ping").workers("b").build(),
                        agent("b").build()),
                tools,
                ref -> model);

        assertThat(tree.tools("a").names()).containsExactly("ping");
        assertThat(tree.tools("b").names()).isEmpty();
        assertThat(tree.names()).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void failureMessages_areCutTo200Characters() {
        Failure failure = Failure.of(FailureCategory.EXECUTION_ERROR, "y".repeat(500));

        assertThat(failure.message()).hasSize(200).endsWith("…");
        assertThat(failure.code()).isEqualTo("execution_error");
    }
}
