package dev.cadre.agent.run;

import static dev.cadre.agent.testing.Fixtures.agent;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.tool.ToolRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Cancelling is cooperative (issue 23, finding 1): a cancel interrupts the run's thread only while it
 * waits (model call, tool, human, worker slot), never while its observer stores an event or a
 * checkpoint — an interrupt inside a file write closes an embedded database for good.
 */
class CooperativeCancelTest {

    @Test
    void aCancelWhileTheObserverWrites_doesNotInterruptTheWrite_andTheRunStillEndsCancelled() throws Exception {
        ScriptedModel model = new ScriptedModel(Map.of("writer", AgentScript.of(ScriptedTurn.text("never"))));
        AgentTree tree =
                Fixtures.tree(ToolRegistry.empty(), model, agent("writer").build());
        CountDownLatch writing = new CountDownLatch(1);
        AtomicBoolean cancelled = new AtomicBoolean();
        CompletableFuture<Boolean> interruptedInWrite = new CompletableFuture<>();
        RunObserver observer = new RunObserver() {
            @Override
            public void onEvent(AgentEvent event) {
                if (event instanceof AgentEvent.RunStarted) {
                    // Stands for a database write that takes a while: it goes on until the cancel returned.
                    writing.countDown();
                    while (!cancelled.get()) {
                        Thread.onSpinWait();
                    }
                    interruptedInWrite.complete(Thread.currentThread().isInterrupted());
                }
            }
        };

        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunHandle handle = runner.start(RunRequest.of("run-c1", "writer", "go"), observer);
            writing.await();
            handle.cancel();
            cancelled.set(true);

            assertThat(interruptedInWrite.get())
                    .as("the cancel interrupted the thread in its write")
                    .isFalse();
            RunOutcome outcome = handle.outcome().get();
            assertThat(outcome.status()).isEqualTo(OutcomeStatus.CANCELLED);
            assertThat(model.requests()).as("no model call after the cancel").isEmpty();
        }
    }

    @Test
    void aCancelDuringTheModelCall_interruptsTheWait() throws Exception {
        ScriptedModel model = new ScriptedModel(
                Map.of("thinker", AgentScript.of(ScriptedTurn.text("late")).withLatency(Duration.ofMinutes(5))));
        AgentTree tree =
                Fixtures.tree(ToolRegistry.empty(), model, agent("thinker").build());
        CountDownLatch calling = new CountDownLatch(1);
        RunObserver observer = new RunObserver() {
            @Override
            public void onEvent(AgentEvent event) {
                if (event instanceof AgentEvent.Status) {
                    calling.countDown();
                }
            }
        };
        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            RunHandle handle = runner.start(RunRequest.of("run-c2", "thinker", "go"), observer);
            calling.await();
            // The run's thread reaches the model call soon after its iteration status; the five-minute
            // call ends only through the interrupt.
            while (model.requests().isEmpty()) {
                Thread.onSpinWait();
            }
            handle.cancel();
            assertThat(handle.outcome().get().status()).isEqualTo(OutcomeStatus.CANCELLED);
        }
    }
}
