package dev.cadre.agent.approval;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.call;
import static dev.cadre.agent.testing.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunHandle;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ApprovalTest {

    private static final String SERVICE_SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"service\":{\"type\":\"string\",\"enum\":[\"api\",\"api-2\",\"db\"]}},"
                    + "\"required\":[\"service\"],\"additionalProperties\":false}";

    private final AtomicInteger active = new AtomicInteger();
    private final List<String> executions = new CopyOnWriteArrayList<>();
    private final List<Integer> activeDuringApproveCalls = new CopyOnWriteArrayList<>();

    private ToolRegistry tools() {
        return ToolRegistry.of(
                Tools.of("restart_service", "Restarts a service.", SERVICE_SCHEMA, Risk.APPROVE, (args, ctx) -> {
                    int now = active.incrementAndGet();
                    try {
                        activeDuringApproveCalls.add(now);
                        executions.add("restart " + args.path("service").asString());
                        return "restarted " + args.path("service").asString();
                    } finally {
                        active.decrementAndGet();
                    }
                }),
                Tools.of("read_metrics", "Reads metrics.", SERVICE_SCHEMA, Risk.AUTO, (args, ctx) -> {
                    active.incrementAndGet();
                    try {
                        // Simulated work: keeps the call in flight so concurrent calls overlap.
                        Thread.sleep(5);
                        executions.add("metrics " + args.path("service").asString());
                        return "cpu 93%";
                    } finally {
                        active.decrementAndGet();
                    }
                }));
    }

    private AgentTree tree(ScriptedModel model) {
        return Fixtures.tree(
                tools(),
                model,
                agent("ops").tools("restart_service", "read_metrics").build());
    }

    @Test
    void approveCall_neverRunsBeforeADecision() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        new ScriptedTurn(
                                "api is stuck, restarting",
                                List.of(call("restart_service", "{\"service\":\"api\"}")),
                                null,
                                null,
                                null),
                        ScriptedTurn.text("{{result[0]}}"))));
        CompletableFuture<ApprovalDecision> decision = new CompletableFuture<>();
        CountDownLatch asked = new CountDownLatch(1);
        List<ApprovalRequest> requests = new CopyOnWriteArrayList<>();
        ApprovalGate gate = request -> {
            requests.add(request);
            asked.countDown();
            return decision;
        };

        try (AgentRunner runner =
                AgentRunner.builder(tree(model)).approvalGate(gate).build()) {
            RunHandle handle = runner.start(RunRequest.of("run-a1", "ops", "api is slow"), new Recorder());
            asked.await();

            assertThat(executions).isEmpty();
            assertThat(handle.outcome()).isNotDone();
            ApprovalRequest request = requests.getFirst();
            assertThat(request.callId()).isEqualTo("call_1_1");
            assertThat(request.why()).isEqualTo("api is stuck, restarting");
            assertThat(request.plan()).containsExactly("restart_service {\"service\":\"api\"}");

            decision.complete(new ApprovalDecision.Approved("alice"));
            RunOutcome outcome = handle.outcome().get();

            assertThat(executions).containsExactly("restart api");
            assertThat(outcome.finalText()).isEqualTo("restarted api");
        }
    }

    @Test
    void theGateHasTheRequest_beforeAnyoneHearsTheRunIsWaiting() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        ScriptedTurn.calls(call("restart_service", "{\"service\":\"api\"}")),
                        ScriptedTurn.text("{{result[0]}}"))));
        List<String> order = new CopyOnWriteArrayList<>();
        ApprovalGate gate = request -> {
            order.add("gate recorded " + request.callId());
            return CompletableFuture.completedFuture(new ApprovalDecision.Approved("carol"));
        };
        // A platform marks the run input-required on this event; its readers must find the approval.
        dev.cadre.agent.run.RunObserver observer = new dev.cadre.agent.run.RunObserver() {
            @Override
            public void onEvent(AgentEvent event) {
                if (event instanceof AgentEvent.ApprovalRequested r) {
                    order.add("event for " + r.request().callId());
                }
            }
        };

        try (AgentRunner runner =
                AgentRunner.builder(tree(model)).approvalGate(gate).build()) {
            runner.run(RunRequest.of("run-a0", "ops", "fix"), observer);
        }

        assertThat(order).containsExactly("gate recorded call_1_1", "event for call_1_1");
    }

    @Test
    void approveCalls_runOneByOne_afterTheConcurrentBatch_neverAlongsideAnotherCall() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        ScriptedTurn.calls(
                                call("read_metrics", "{\"service\":\"api\"}"),
                                call("restart_service", "{\"service\":\"api\"}"),
                                call("read_metrics", "{\"service\":\"db\"}"),
                                call("restart_service", "{\"service\":\"db\"}")),
                        ScriptedTurn.text("{{results}}"))));
        List<String> asked = new CopyOnWriteArrayList<>();
        ApprovalGate gate = request -> {
            asked.add(request.arguments().path("service").asString() + " while active=" + active.get());
            return CompletableFuture.completedFuture(new ApprovalDecision.Approved("bob"));
        };

        try (AgentRunner runner =
                AgentRunner.builder(tree(model)).approvalGate(gate).build()) {
            runner.run(RunRequest.of("run-a2", "ops", "fix"), new Recorder());

            assertThat(asked).containsExactly("api while active=0", "db while active=0");
            assertThat(activeDuringApproveCalls).containsExactly(1, 1);
            assertThat(executions.subList(2, 4)).containsExactly("restart api", "restart db");
            assertThat(executions.subList(0, 2)).containsExactlyInAnyOrder("metrics api", "metrics db");
        }
    }

    @Test
    void rejection_isAResultTheModelReads_andTheToolNeverRuns() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        ScriptedTurn.calls(call("restart_service", "{\"service\":\"db\"}")),
                        ScriptedTurn.text("{{result[0]}}"))));
        ApprovalGate gate = request ->
                CompletableFuture.completedFuture(new ApprovalDecision.Rejected("not during business hours", "carol"));

        try (AgentRunner runner =
                AgentRunner.builder(tree(model)).approvalGate(gate).build()) {
            Recorder recorder = new Recorder();
            RunOutcome outcome = runner.run(RunRequest.of("run-a3", "ops", "fix"), recorder);

            assertThat(executions).isEmpty();
            assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(outcome.finalText()).contains("denied", "rejected by carol: not during business hours");
            assertThat(recorder.ofType(AgentEvent.ToolResultEvent.class))
                    .extracting(AgentEvent.ToolResultEvent::status)
                    .containsExactly(OutcomeStatus.DENIED);
            assertThat(recorder.ofType(AgentEvent.ApprovalResolved.class))
                    .extracting(AgentEvent.ApprovalResolved::decision)
                    .containsExactly(new ApprovalDecision.Rejected("not during business hours", "carol"));
        }
    }

    @Test
    void editedArguments_replaceTheModels_andAreValidatedAgain() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        ScriptedTurn.calls(
                                call("restart_service", "{\"service\":\"api\"}"),
                                call("restart_service", "{\"service\":\"db\"}")),
                        ScriptedTurn.text("{{results}}"))));
        ApprovalGate gate = request -> CompletableFuture.completedFuture(
                request.arguments().path("service").asString().equals("api")
                        ? new ApprovalDecision.ApprovedWithEdits(json("{\"service\":\"api-2\"}"), "dave")
                        : new ApprovalDecision.ApprovedWithEdits(json("{\"service\":\"everything\"}"), "dave"));

        try (AgentRunner runner =
                AgentRunner.builder(tree(model)).approvalGate(gate).build()) {
            RunOutcome outcome = runner.run(RunRequest.of("run-a4", "ops", "fix"), new Recorder());

            assertThat(executions).containsExactly("restart api-2");
            assertThat(outcome.finalText()).contains("restarted api-2").contains("invalid_edited_arguments");
        }
    }

    @Test
    void expiredRequest_isAHumanInterventionTimeout_andTheToolNeverRuns() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of(
                "ops",
                AgentScript.of(
                        ScriptedTurn.calls(call("restart_service", "{\"service\":\"db\"}")),
                        ScriptedTurn.text("{{result[0]}}"))));
        ApprovalGate gate = request -> CompletableFuture.completedFuture(new ApprovalDecision.Expired());

        try (AgentRunner runner =
                AgentRunner.builder(tree(model)).approvalGate(gate).build()) {
            Recorder recorder = new Recorder();
            runner.run(RunRequest.of("run-a5", "ops", "fix"), recorder);

            assertThat(executions).isEmpty();
            assertThat(recorder.ofType(AgentEvent.ToolResultEvent.class)
                            .getFirst()
                            .failure()
                            .category())
                    .isEqualTo(FailureCategory.HUMAN_INTERVENTION_TIMEOUT);
        }
    }
}
