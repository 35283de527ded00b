package dev.cadre.agent.approval;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.ProposingTool;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.agent.tool.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An {@code APPROVE} tool that completes its proposal ({@link ProposingTool}): the human is asked about
 * the completed arguments, the tool runs with exactly those, and a refused proposal never reaches a human.
 */
class ProposingToolTest {

    private final List<JsonNode> executed = new CopyOnWriteArrayList<>();
    private final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
    private volatile String version = "41";

    /** Scales a service; the proposal adds the version of the service it read. */
    private final ProposingTool scale = new ProposingTool() {
        @Override
        public JsonNode propose(JsonNode arguments, ToolContext context) throws ToolException {
            if (arguments.path("service").asString().equals("gone")) {
                throw new ToolException(FailureCategory.EXECUTION_ERROR, "not_found", "no service 'gone'");
            }
            return ((ObjectNode) arguments.deepCopy()).put("observedVersion", version);
        }

        @Override
        public String name() {
            return "scale";
        }

        @Override
        public String description() {
            return "Scales a service.";
        }

        @Override
        public JsonNode parametersSchema() {
            return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{\"service\":{\"type\":\"string\"},"
                    + "\"observedVersion\":{\"type\":\"string\"}},\"required\":[\"service\"],"
                    + "\"additionalProperties\":false}");
        }

        @Override
        public Risk risk() {
            return Risk.APPROVE;
        }

        @Override
        public String execute(JsonNode arguments, ToolContext context) {
            executed.add(arguments);
            return "scaled at version " + arguments.path("observedVersion").asString();
        }
    };

    private RunOutcome run(String service) throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        ScriptedTurn.calls(call("scale", "{\"service\":\"" + service + "\"}")),
                        ScriptedTurn.text("{{result[0]}}"))));
        ApprovalGate gate = request -> {
            asked.add(request);
            return CompletableFuture.completedFuture(new ApprovalDecision.Approved("alice", request.actionHash()));
        };
        try (AgentRunner runner = AgentRunner.builder(Fixtures.tree(
                        ToolRegistry.of(scale),
                        model,
                        agent("ops").tools("scale").build()))
                .approvalGate(gate)
                .build()) {
            return runner.start(RunRequest.of("run-p1", "ops", "scale api"), new Recorder())
                    .outcome()
                    .get();
        }
    }

    @Test
    void theHumanIsAskedAboutTheProposedArguments_andTheToolRunsWithExactlyThose() throws Exception {
        RunOutcome outcome = run("api");

        assertThat(asked).hasSize(1);
        assertThat(asked.getFirst().arguments().path("observedVersion").asString())
                .isEqualTo("41");
        assertThat(asked.getFirst().what()).contains("\"observedVersion\":\"41\"");
        assertThat(executed).containsExactly(asked.getFirst().arguments());
        assertThat(outcome.finalText()).isEqualTo("scaled at version 41");
    }

    @Test
    void aRefusedProposal_neverReachesAHuman() throws Exception {
        RunOutcome outcome = run("gone");

        assertThat(asked).isEmpty();
        assertThat(executed).isEmpty();
        assertThat(outcome.finalText()).contains("no service 'gone'");
    }
}
