package dev.cadre.agent.run;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.journal.InMemoryToolJournal;
import dev.cadre.agent.journal.JournalKey;
import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.ToolResult;
import dev.cadre.agent.tool.Tools;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class CheckpointResumeTest {

    private static final String SERVICE =
            "{\"type\":\"object\",\"properties\":{\"service\":{\"type\":\"string\"}},\"required\":[\"service\"]}";

    private final CheckpointCodec codec = new CheckpointCodec();
    private final List<String> restarts = new CopyOnWriteArrayList<>();

    private ToolRegistry tools(Risk restartRisk) {
        return ToolRegistry.of(
                Tools.of("read_metrics", "Reads metrics.", SERVICE, Risk.AUTO, (args, ctx) -> "cpu 93%"),
                Tools.of("restart_service", "Restarts a service.", SERVICE, restartRisk, (args, ctx) -> {
                    restarts.add(args.path("service").asString());
                    return "restarted " + args.path("service").asString();
                }));
    }

    private final ScriptedModel model = new ScriptedModel(Map.of(
            "ops",
            AgentScript.of(
                    new ScriptedTurn(
                            "Looking at metrics.",
                            List.of(call("read_metrics", "{\"service\":\"api\"}")),
                            null,
                            null,
                            null),
                    new ScriptedTurn(
                            "Restarting.", List.of(call("restart_service", "{\"service\":\"api\"}")), null, null, null),
                    ScriptedTurn.text("done: {{result[0]}}"))));

    private AgentTree tree(Risk restartRisk) {
        return Fixtures.tree(
                tools(restartRisk),
                model,
                agent("ops").tools("read_metrics", "restart_service").build());
    }

    @Test
    void goldenVersion1Checkpoint_stillLoads_andResumes() throws Exception {
        Checkpoint checkpoint = codec.read(golden("v1-pending-restart.json"));

        assertThat(checkpoint.runId()).isEqualTo("run-golden");
        assertThat(checkpoint.history()).hasSize(5);
        assertThat(checkpoint.history().get(3))
                .isEqualTo(new ToolResultMessage("call_1_1", "read_metrics", "cpu 93%", false));
        assertThat(checkpoint.history().get(4)).isInstanceOf(AssistantMessage.class);
        assertThat(checkpoint.pendingCalls()).extracting(c -> c.name()).containsExactly("restart_service");
        assertThat(checkpoint.usage()).isEqualTo(new TokenUsage(120, 30));
        assertThat(checkpoint.subagentCounters()).containsEntry("helper", 2);
        assertThat(codec.read(codec.write(checkpoint))).isEqualTo(checkpoint);

        try (AgentRunner runner = AgentRunner.builder(tree(Risk.SUGGEST)).build()) {
            Recorder recorder = new Recorder();
            RunOutcome outcome = runner.resume(checkpoint, recorder).outcome().get();

            assertThat(outcome.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(outcome.finalText()).isEqualTo("done: restarted api");
            assertThat(outcome.iterations()).isEqualTo(3);
            assertThat(outcome.toolsCalled()).containsExactly("read_metrics", "restart_service");
            assertThat(recorder.mainStream().getFirst().meta().sequence()).isEqualTo(9);
            assertThat(recorder.mainStream().getFirst().type()).isEqualTo("status");
        }
    }

    @Test
    void checkpointFromANewerVersion_isRefusedWithAClearMessage() {
        assertThatThrownBy(() -> codec.read("{\"format\":\"cadre.checkpoint\",\"version\":99}"))
                .hasMessageContaining("checkpoint format version 99 is not supported");
    }

    @Test
    void everyIteration_yieldsASerialisableCheckpoint_fromWhichTheRunResumes() throws Exception {
        Recorder first = new Recorder();
        try (AgentRunner runner = AgentRunner.builder(tree(Risk.AUTO)).build()) {
            runner.run(RunRequest.of("run-cp", "ops", "api is slow"), first);
        }
        // After each of the three model turns and after each of the two observation steps.
        assertThat(first.checkpoints()).extracting(c -> c.pendingCalls().size()).containsExactly(1, 0, 1, 0);
        Checkpoint afterFirstTurn = codec.read(codec.write(first.checkpoints().get(1)));

        try (AgentRunner runner = AgentRunner.builder(tree(Risk.AUTO)).build()) {
            RunOutcome resumed =
                    runner.resume(afterFirstTurn, new Recorder()).outcome().get();

            assertThat(resumed.finalText()).isEqualTo("done: restarted api");
            assertThat(resumed.iterations()).isEqualTo(3);
        }
    }

    @Test
    void resume_whenASideEffectStartedButNeverFinished_doesNotRunItAgain() throws Exception {
        Checkpoint pending = pendingRestart(Risk.SUGGEST);
        InMemoryToolJournal journal = new InMemoryToolJournal();
        journal.started(
                new JournalKey("run-j", "run-j", "call_2_1"),
                "restart_service",
                Fixtures.json("{\"service\":\"api\"}"));
        restarts.clear();

        try (AgentRunner runner =
                AgentRunner.builder(tree(Risk.SUGGEST)).journal(journal).build()) {
            RunOutcome outcome =
                    runner.resume(pending, new Recorder()).outcome().get();

            assertThat(restarts).isEmpty();
            assertThat(outcome.finalText())
                    .contains("EXECUTION_ERROR", "interrupted before its outcome was recorded; not re-run");
        }
    }

    @Test
    void resume_whenASideEffectFinished_reusesItsRecordedResult() throws Exception {
        Checkpoint pending = pendingRestart(Risk.SUGGEST);
        InMemoryToolJournal journal = new InMemoryToolJournal();
        journal.finished(
                new JournalKey("run-j", "run-j", "call_2_1"),
                ToolResult.ok("call_2_1", "restart_service", "restarted api earlier"));
        restarts.clear();

        try (AgentRunner runner =
                AgentRunner.builder(tree(Risk.SUGGEST)).journal(journal).build()) {
            RunOutcome outcome =
                    runner.resume(pending, new Recorder()).outcome().get();

            assertThat(restarts).isEmpty();
            assertThat(outcome.finalText()).isEqualTo("done: restarted api earlier");
        }
    }

    @Test
    void resume_ofAnUndecidedApproval_asksAgainForTheSameCall_andRunsTheToolOnce() throws Exception {
        CountDownLatch asked = new CountDownLatch(1);
        List<ApprovalRequest> firstRequests = new CopyOnWriteArrayList<>();
        ApprovalGate undecided = request -> {
            firstRequests.add(request);
            asked.countDown();
            return new CompletableFuture<>();
        };
        Recorder first = new Recorder();
        InMemoryToolJournal journal = new InMemoryToolJournal();
        try (AgentRunner runner = AgentRunner.builder(tree(Risk.APPROVE))
                .approvalGate(undecided)
                .journal(journal)
                .build()) {
            RunHandle handle = runner.start(RunRequest.of("run-ap", "ops", "api is slow"), first);
            asked.await();
            handle.cancel();
            assertThat(handle.outcome().get().status()).isEqualTo(OutcomeStatus.CANCELLED);
        }
        Checkpoint last = first.checkpoints().getLast();
        assertThat(last.pendingCalls()).extracting(c -> c.id()).containsExactly("call_2_1");

        List<ApprovalRequest> secondRequests = new CopyOnWriteArrayList<>();
        ApprovalGate approving = request -> {
            secondRequests.add(request);
            return CompletableFuture.completedFuture(new ApprovalDecision.Approved("erin"));
        };
        try (AgentRunner runner = AgentRunner.builder(tree(Risk.APPROVE))
                .approvalGate(approving)
                .journal(journal)
                .build()) {
            RunOutcome outcome = runner.resume(codec.read(codec.write(last)), new Recorder())
                    .outcome()
                    .get();

            assertThat(outcome.finalText()).isEqualTo("done: restarted api");
        }
        assertThat(secondRequests).singleElement().satisfies(r -> {
            assertThat(r.runId()).isEqualTo(firstRequests.getFirst().runId());
            assertThat(r.callId()).isEqualTo(firstRequests.getFirst().callId());
        });
        assertThat(restarts).containsExactly("api");
    }

    @Test
    void resume_reSpawnsAnInterruptedWorker_underTheSameSession_andItsJournalledSideEffectDoesNotRepeat()
            throws Exception {
        ScriptedModel scripted = new ScriptedModel(Map.of(
                "orchestrator",
                AgentScript.of(
                        ScriptedTurn.calls(Fixtures.delegate("fixer", "restart the api")),
                        ScriptedTurn.text("{{result[0]}}")),
                "fixer",
                AgentScript.of(
                        ScriptedTurn.calls(call("restart_service", "{\"service\":\"api\"}")),
                        ScriptedTurn.text("fixer: {{result[0]}}"))));
        AgentTree tree = Fixtures.tree(
                tools(Risk.SUGGEST),
                scripted,
                Fixtures.root("orchestrator").workers("fixer").build(),
                agent("fixer").tools("restart_service").build());
        InMemoryToolJournal journal = new InMemoryToolJournal();
        Recorder first = new Recorder();
        restarts.clear();
        try (AgentRunner runner = AgentRunner.builder(tree).journal(journal).build()) {
            runner.run(RunRequest.of("run-respawn", "orchestrator", "api down"), first);
        }
        // As if the process died while the worker ran: resume from the checkpoint taken before it.
        Checkpoint beforeWorker = codec.read(codec.write(first.checkpoints().getFirst()));

        try (AgentRunner runner = AgentRunner.builder(tree).journal(journal).build()) {
            RunOutcome resumed =
                    runner.resume(beforeWorker, new Recorder()).outcome().get();

            assertThat(resumed.subagents())
                    .extracting(SubagentOutcome::sessionId)
                    .containsExactly("run-respawn/fixer#1");
            assertThat(resumed.finalText()).contains("fixer: restarted api");
        }
        assertThat(restarts).containsExactly("api");
    }

    @Test
    void cancel_stopsARunWaitingOnTheModel() throws Exception {
        ScriptedModel slow = new ScriptedModel(
                Map.of("ops", AgentScript.of(ScriptedTurn.text("never")).withLatency(java.time.Duration.ofMinutes(5))));
        AgentTree tree = Fixtures.tree(tools(Risk.AUTO), slow, agent("ops").build());
        CountDownLatch started = new CountDownLatch(1);
        RunObserver observer = new RunObserver() {
            @Override
            public void onEvent(AgentEvent event) {
                if (event instanceof AgentEvent.Status) {
                    started.countDown();
                }
            }
        };
        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunHandle handle = runner.start(RunRequest.of("run-cancel", "ops", "go"), observer);
            started.await();
            handle.cancel();

            RunOutcome outcome = handle.outcome().get();
            assertThat(outcome.status()).isEqualTo(OutcomeStatus.CANCELLED);
            assertThat(outcome.finalText()).isNull();
        }
    }

    private Checkpoint pendingRestart(Risk risk) throws Exception {
        Recorder recorder = new Recorder();
        try (AgentRunner runner = AgentRunner.builder(tree(risk))
                .approvalGate(r -> CompletableFuture.completedFuture(new ApprovalDecision.Approved("x")))
                .build()) {
            runner.run(RunRequest.of("run-j", "ops", "api is slow"), recorder);
        }
        Checkpoint cp = recorder.checkpoints().get(2);
        assertThat(cp.pendingCalls()).extracting(c -> c.id()).containsExactly("call_2_1");
        return cp;
    }

    private static String golden(String name) throws IOException {
        try (InputStream in = CheckpointResumeTest.class.getResourceAsStream("/checkpoints/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
