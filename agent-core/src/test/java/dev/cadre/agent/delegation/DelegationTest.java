package dev.cadre.agent.delegation;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.call;
import static dev.cadre.agent.testing.Fixtures.delegate;
import static dev.cadre.agent.testing.Fixtures.root;
import static dev.cadre.agent.testing.Fixtures.textOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class DelegationTest {

    private static final String PARENT_MARKER = "PARENT-PRIVATE-7f3a";

    private final ToolRegistry tools = ToolRegistry.of(Tools.of(
            "read_file",
            "Reads a file of the workspace.",
            "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}",
            Risk.AUTO,
            (args, ctx) -> "contents of " + args.path("path").asString() + ": "
                    + args.path("path").asString().toUpperCase() + "-INTERNAL"));

    @Test
    void delegate_neverLeaksParentHistoryIntoSubagents_norSubagentMessagesIntoParent() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(
                        ScriptedTurn.calls(
                                delegate("alpha", "edit alpha_module"), delegate("beta", "edit beta_module")),
                        ScriptedTurn.text("both done: {{results}}")),
                "alpha",
                AgentScript.of(
                        ScriptedTurn.calls(call("read_file", "{\"path\":\"alpha\"}")),
                        ScriptedTurn.text("alpha edited")),
                "beta",
                AgentScript.of(
                        ScriptedTurn.calls(call("read_file", "{\"path\":\"beta\"}")),
                        ScriptedTurn.text("beta edited"))));
        AgentTree tree = Fixtures.tree(
                tools,
                model,
                root("orchestrator").workers("alpha", "beta").build(),
                agent("alpha").tools("read_file").build(),
                agent("beta").tools("read_file").build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunOutcome outcome = runner.run(
                    RunRequest.of("run-iso", "orchestrator", "Fix both modules. Secret note: " + PARENT_MARKER),
                    new Recorder());

            assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
            for (String worker : List.of("alpha", "beta")) {
                assertThat(model.requestsOf(worker)).hasSize(2).allSatisfy(r -> {
                    assertThat(textOf(r)).doesNotContain(PARENT_MARKER);
                    // The subagent starts from [system, user(task)] and sees only its whitelist.
                    assertThat(r.tools()).extracting(d -> d.name()).containsExactly("read_file");
                });
            }
            assertThat(model.requestsOf("alpha"))
                    .allSatisfy(r -> assertThat(textOf(r)).doesNotContain("BETA-INTERNAL"));
            assertThat(model.requestsOf("beta"))
                    .allSatisfy(r -> assertThat(textOf(r)).doesNotContain("ALPHA-INTERNAL"));
            ModelRequest parentAfter = model.requestsOf("orchestrator").get(1);
            assertThat(textOf(parentAfter)).doesNotContain("ALPHA-INTERNAL", "BETA-INTERNAL", "read_file");
            // system, user, assistant, then exactly one result message per worker: nothing of their insides.
            assertThat(parentAfter.messages()).hasSize(5);
            assertThat(outcome.finalText()).contains("alpha edited", "beta edited");
        }
    }

    @Test
    void delegate_whenWorkersFinishInReverseOrder_keepsObservationsInCallOrder() throws Exception {
        CountDownLatch thirdDone = new CountDownLatch(1);
        CountDownLatch secondDone = new CountDownLatch(1);
        List<String> finishOrder = new java.util.concurrent.CopyOnWriteArrayList<>();
        ModelPort latched = request -> {
            String task = request.messages().get(1).toString();
            String me = task.contains("first") ? "first" : task.contains("second") ? "second" : "third";
            // first waits for second, second waits for third: they finish third, second, first.
            if (me.equals("first")) {
                secondDone.await();
            } else if (me.equals("second")) {
                thirdDone.await();
            }
            finishOrder.add(me);
            if (me.equals("third")) {
                thirdDone.countDown();
            } else if (me.equals("second")) {
                secondDone.countDown();
            }
            return new ModelResponse(me + " result", List.of(), new TokenUsage(10, 2));
        };
        ScriptedModel scripted = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(
                        ScriptedTurn.calls(
                                delegate("worker", "first"), delegate("worker", "second"), delegate("worker", "third")),
                        ScriptedTurn.text("{{results}}"))));
        AgentTree tree = Fixtures.tree(
                tools,
                Map.of(ModelRef.parse("scripted:main"), scripted, ModelRef.parse("fake:latched"), latched),
                root("orchestrator").model("scripted:main").workers("worker").build(),
                agent("worker").model("fake:latched").build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            Recorder recorder = new Recorder();
            RunOutcome outcome = runner.run(RunRequest.of("run-order", "orchestrator", "go"), recorder);

            assertThat(finishOrder).containsExactly("third", "second", "first");
            // Though they finished in reverse, the main stream reports them in call order too.
            assertThat(recorder.ofType(AgentEvent.SubagentFinished.class))
                    .extracting(AgentEvent.SubagentFinished::childSessionId)
                    .containsExactly("run-order/worker#1", "run-order/worker#2", "run-order/worker#3");
            List<ToolResultMessage> observed = scripted.requestsOf("orchestrator").get(1).messages().stream()
                    .filter(ToolResultMessage.class::isInstance)
                    .map(ToolResultMessage.class::cast)
                    .toList();
            assertThat(observed)
                    .extracting(ToolResultMessage::content)
                    .satisfiesExactly(
                            c -> assertThat(c).contains("first result"),
                            c -> assertThat(c).contains("second result"),
                            c -> assertThat(c).contains("third result"));
            assertThat(outcome.subagents())
                    .extracting(SubagentOutcome::sessionId)
                    .containsExactly("run-order/worker#1", "run-order/worker#2", "run-order/worker#3");
        }
    }

    @Test
    void delegate_whenOneWorkerThrows_keepsSiblingResults_andReportsOneShortExecutionError() throws Exception {
        ModelPort flaky = request -> {
            if (request.messages().get(1).toString().contains("disk")) {
                throw new IllegalStateException("disk probe exploded: " + "x".repeat(500));
            }
            return new ModelResponse(
                    "healthy: " + request.messages().get(1).toString().length(), List.of(), new TokenUsage(5, 5));
        };
        ScriptedModel scripted = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(
                        ScriptedTurn.calls(
                                delegate("checker", "check cpu"),
                                delegate("checker", "check disk"),
                                delegate("checker", "check memory")),
                        ScriptedTurn.text("report: {{results}}"))));
        AgentTree tree = Fixtures.tree(
                tools,
                Map.of(ModelRef.parse("scripted:main"), scripted, ModelRef.parse("fake:flaky"), flaky),
                root("orchestrator").model("scripted:main").workers("checker").build(),
                agent("checker").model("fake:flaky").build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            Recorder recorder = new Recorder();
            RunOutcome outcome = runner.run(RunRequest.of("run-partial", "orchestrator", "health check"), recorder);

            assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(outcome.subagents())
                    .extracting(SubagentOutcome::status)
                    .containsExactly(OutcomeStatus.OK, OutcomeStatus.FAILED, OutcomeStatus.OK);
            List<AgentEvent.ToolResultEvent> results = recorder.mainStream().stream()
                    .filter(AgentEvent.ToolResultEvent.class::isInstance)
                    .map(AgentEvent.ToolResultEvent.class::cast)
                    .toList();
            Failure failure = results.stream()
                    .filter(r -> r.failure() != null)
                    .findFirst()
                    .orElseThrow()
                    .failure();
            assertThat(failure.category()).isEqualTo(FailureCategory.EXECUTION_ERROR);
            assertThat(failure.message()).hasSizeLessThanOrEqualTo(200).contains("checker");
            assertThat(results).filteredOn(r -> r.status() == OutcomeStatus.OK).hasSize(2);
            assertThat(outcome.finalText()).contains("healthy").contains("EXECUTION_ERROR");
        }
    }

    @Test
    void delegate_toUnknownOrMalformedWorker_isRejectedBeforeAnySubagentStarts() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(
                        ScriptedTurn.calls(
                                delegate("alpha", "real work"),
                                call("ghost", "{\"task\":\"haunt\"}"),
                                call("alpha", "{\"context\":\"no task given\"}")),
                        ScriptedTurn.text("done")),
                "alpha",
                AgentScript.of(ScriptedTurn.text("alpha ok"))));
        AgentTree tree = Fixtures.tree(
                tools,
                model,
                root("orchestrator").workers("alpha").build(),
                agent("alpha").build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            Recorder recorder = new Recorder();
            RunOutcome outcome = runner.run(RunRequest.of("run-reject", "orchestrator", "go"), recorder);

            assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
            List<AgentEvent> main = recorder.mainStream();
            List<AgentEvent.ToolResultEvent> rejected = main.stream()
                    .filter(AgentEvent.ToolResultEvent.class::isInstance)
                    .map(AgentEvent.ToolResultEvent.class::cast)
                    .filter(r -> r.failure() != null)
                    .toList();
            assertThat(rejected)
                    .extracting(r -> r.failure().category())
                    .containsOnly(FailureCategory.ORCHESTRATION_ERROR);
            assertThat(rejected)
                    .extracting(r -> r.failure().code())
                    .containsExactly("unknown_tool", "invalid_delegation");
            int firstSpawn = indexOf(main, AgentEvent.SubagentStarted.class);
            assertThat(main.indexOf(rejected.get(0))).isLessThan(firstSpawn);
            assertThat(main.indexOf(rejected.get(1))).isLessThan(firstSpawn);
            assertThat(recorder.ofType(AgentEvent.SubagentStarted.class)).hasSize(1);
            assertThat(model.requestsOf("alpha")).hasSize(1);
        }
    }

    @Test
    void subagentEvents_carryTheirOwnSessionAndParent_andNeverEnterTheMainStream() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(ScriptedTurn.calls(delegate("alpha", "look")), ScriptedTurn.text("{{result[0]}}")),
                "alpha",
                AgentScript.of(ScriptedTurn.calls(call("read_file", "{\"path\":\"x\"}")), ScriptedTurn.text("seen"))));
        AgentTree tree = Fixtures.tree(
                tools,
                model,
                root("orchestrator").workers("alpha").build(),
                agent("alpha").tools("read_file").build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            Recorder recorder = new Recorder();
            runner.run(new RunRequest("run-ev", "sess-main", "orchestrator", "go", null), recorder);

            assertThat(recorder.mainStream())
                    .extracting(AgentEvent::type)
                    .containsExactly(
                            "run_started",
                            "status",
                            "tool_call_start",
                            "subagent_started",
                            "subagent_finished",
                            "tool_result",
                            "status",
                            "text_delta",
                            "done");
            assertThat(recorder.mainStream())
                    .extracting(e -> e.meta().sequence())
                    .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
            List<AgentEvent> sub = recorder.session("sess-main/alpha#1");
            assertThat(sub)
                    .isNotEmpty()
                    .allSatisfy(e -> assertThat(e.meta().parentSessionId()).isEqualTo("sess-main"));
            assertThat(sub)
                    .extracting(AgentEvent::type)
                    .containsExactly("run_started", "tool_call_start", "tool_result", "text_delta", "done");
            assertThat(sub).extracting(e -> e.meta().sequence()).containsExactly(1L, 2L, 3L, 4L, 5L);
        }
    }

    @Test
    void toolCall_withInvalidArguments_becomesAnErrorResultTheModelReads() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "solo",
                AgentScript.of(
                        ScriptedTurn.calls(call("read_file", "{\"path\": 42}"), call("rm_rf", "{}")),
                        ScriptedTurn.text("{{results}}"))));
        AgentTree tree =
                Fixtures.tree(tools, model, agent("solo").tools("read_file").build());

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunOutcome outcome = runner.run(RunRequest.of("run-invalid", "solo", "go"), new Recorder());

            assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(outcome.finalText())
                    .contains("invalid_arguments", "$.path: expected string but was integer")
                    .contains("unknown_tool", "rm_rf");
        }
    }

    private static int indexOf(List<AgentEvent> events, Class<?> type) {
        for (int i = 0; i < events.size(); i++) {
            if (type.isInstance(events.get(i))) {
                return i;
            }
        }
        return -1;
    }
}
