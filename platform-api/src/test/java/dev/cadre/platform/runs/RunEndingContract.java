package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.model.ModelRequest;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 27, item 1: a run's ending — its {@code done} (or {@code error}) event and its terminal
 * status — is one fact. A crash injected between storing the event and the status (a fault point in
 * the store, {@link RunStore.EndingFaults}) leaves none of it; the resumed run then stores exactly
 * one {@code done}, and the model turn whose result was recorded (the checkpointed tool turn) is
 * not called again. A run left by an earlier version's crash with its {@code done} stored and its
 * status still live is finished from that event, with no model call at all. Run on H2 and PostgreSQL.
 */
abstract class RunEndingContract {

    /** Once armed, crashes the next run ending (this context runs nothing else meanwhile). */
    static final class CrashBetweenEventAndStatus implements RunStore.EndingFaults {
        final java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        final AtomicReference<String> crashed = new AtomicReference<>();

        /** Transient failures still to inject (a lock timeout), each rolling the ending back once. */
        final java.util.concurrent.atomic.AtomicInteger lockTimeouts = new java.util.concurrent.atomic.AtomicInteger();

        final java.util.concurrent.atomic.AtomicInteger lockTimeoutsThrown =
                new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void betweenEventsAndStatus(String runId) {
            if (lockTimeouts.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                lockTimeoutsThrown.incrementAndGet();
                throw new org.springframework.dao.CannotAcquireLockException(
                        "injected: Timeout trying to lock table cadre_rollup_run (run " + runId + ")");
            }
            if (armed.compareAndSet(true, false)) {
                crashed.set(runId);
                throw new IllegalStateException("injected crash between the done event and the status of " + runId);
            }
        }
    }

    @TestConfiguration
    static class Faults {
        @Bean
        CrashBetweenEventAndStatus crashBetweenEventAndStatus() {
            return new CrashBetweenEventAndStatus();
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    CrashBetweenEventAndStatus faults;

    @Autowired
    RunService runs;

    @Autowired
    RunStore store;

    @Autowired
    RunEvents events;

    @Autowired
    RunExecutor executor;

    @Autowired
    AgentCatalog catalog;

    @Autowired
    RunDeadlines deadlines;

    @Autowired
    org.springframework.jdbc.core.simple.JdbcClient jdbc;

    private List<ModelRequest> modelCalls(String runId) {
        return catalog.scripted().orElseThrow().requestsOf("ender").stream()
                .filter(r -> r.runId().equals(runId))
                .toList();
    }

    private List<RunEvents.StoredEvent> mainEvents(String runId) {
        return events.since(runId, 0, false, 1000);
    }

    private static long count(List<RunEvents.StoredEvent> events, String type) {
        return events.stream().filter(e -> e.type().equals(type)).count();
    }

    /** Submits a run whose ending crashes, and waits until its execution is gone (the "process" died). */
    private String crashedRun(Api api) {
        faults.crashed.set(null);
        faults.armed.set(true);
        String runId = api.submitRun("ender", "check and answer").get("id").asString();
        Await.until("the injected crash", () -> faults.crashed.get(), runId::equals);
        Await.until("the crashed execution to be gone", () -> executor.isActive(runId), active -> !active);
        return runId;
    }

    @Test
    void aCrashBetweenTheDoneEventAndTheStatus_leavesNeither_andTheResumeEndsTheRunOnce() {
        Api api = new Api(port);
        String runId = crashedRun(api);

        // Atomic: the crash left neither the done event nor the terminal status.
        assertThat(count(mainEvents(runId), "done")).isZero();
        assertThat(store.find(runId).orElseThrow().status()).isEqualTo(RunStatus.WORKING);
        assertThat(modelCalls(runId)).hasSize(2);

        runs.recover(true, Duration.ZERO);
        var ended = api.awaitRunEnd(runId);

        assertThat(ended.get("status").asString()).isEqualTo("completed");
        assertThat(ended.get("result").asString()).isEqualTo("final answer");
        List<RunEvents.StoredEvent> stored = mainEvents(runId);
        assertThat(count(stored, "done"))
                .as("done events of %s: %s", runId, stored)
                .isEqualTo(1);
        assertThat(count(stored, "error")).isZero();
        assertThat(stored.stream()
                        .filter(e -> e.type().equals("text_delta"))
                        .map(e -> e.data().path("text").asString())
                        .toList())
                .containsExactly("final answer");
        // The tool turn's result was recorded (checkpointed): the resume did not ask the model for it
        // again. Only the final turn, whose result the crash took back with the rest of the ending, ran twice.
        List<ModelRequest> calls = modelCalls(runId);
        assertThat(calls).hasSize(3);
        assertThat(calls.get(2).messages()).hasSameSizeAs(calls.get(1).messages());
        // One ending per run, ever: the store refuses a second one.
        assertThat(store.finishWithEnding(
                        null,
                        runId,
                        "done",
                        () -> {
                            throw new AssertionError("a refused ending must store no event");
                        },
                        RunStatus.COMPLETED,
                        "again",
                        null,
                        null,
                        null,
                        null,
                        null,
                        0,
                        0,
                        0))
                .isFalse();
        assertThat(count(mainEvents(runId), "done")).isEqualTo(1);
    }

    @Test
    void aRunWhoseDoneWasStoredBeforeACrash_isFinishedFromIt_withoutCallingTheModelAgain() {
        Api api = new Api(port);
        String runId = crashedRun(api);
        // What an earlier version left after this crash: its done event stored, its status still working.
        ObjectNode done = JsonNodeFactory.instance.objectNode();
        done.put("type", "done");
        done.put("runId", runId);
        done.put("sessionId", runId);
        done.putNull("parentSessionId");
        done.put("agent", "ender");
        done.put("text", "final answer");
        done.putObject("usage").put("inputTokens", 40).put("outputTokens", 7);
        done.put("iterations", 2);
        events.append(runId, "done", true, runId, null, done, Instant.now());
        int callsBefore = modelCalls(runId).size();

        runs.recover(true, Duration.ZERO);
        var ended = api.awaitRunEnd(runId);

        assertThat(ended.get("status").asString()).isEqualTo("completed");
        assertThat(ended.get("result").asString()).isEqualTo("final answer");
        assertThat(count(mainEvents(runId), "done")).isEqualTo(1);
        assertThat(modelCalls(runId)).as("the resume called the model").hasSize(callsBefore);
    }

    /**
     * Item 5 of issue 27: an ending that hit a transient failure (H2's lock timeout on a busy rollup
     * row; a deadlock victim on PostgreSQL) is stored by trying again, at once and on this instance:
     * the run ends with one {@code done} and no model turn repeated. It was logged "could not be
     * executed" and left {@code working} until recovery resumed it, calling the model again.
     */
    @Test
    void anEndingThatHitsALockTimeout_isStoredByTryingAgain_withoutRecoveryOrAnotherModelCall() {
        Api api = new Api(port);
        faults.lockTimeoutsThrown.set(0);
        faults.lockTimeouts.set(2);
        String runId = api.submitRun("ender", "check and answer").get("id").asString();

        var ended = api.awaitRunEnd(runId);

        assertThat(ended.get("status").asString()).isEqualTo("completed");
        assertThat(ended.get("result").asString()).isEqualTo("final answer");
        assertThat(faults.lockTimeoutsThrown.get()).isEqualTo(2);
        assertThat(count(mainEvents(runId), "done")).isEqualTo(1);
        assertThat(modelCalls(runId)).as("the final turn ran once").hasSize(2);
        assertThat(store.ending(runId)).contains("done");
    }

    /**
     * A run failed past its deadline while nobody executes it: its {@code error} event and its
     * failed status are one fact too. A crash between the two leaves neither (the sweep tries again);
     * the next sweep stores exactly one {@code error}. The event used to be appended after the status
     * had committed, in a transaction of its own.
     */
    @Test
    void aRunFailedPastItsDeadline_storesItsErrorAndStatusAsOneFact() {
        Api api = new Api(port);
        String runId = crashedRun(api); // left working, executed by nobody
        jdbc.sql("UPDATE cadre_run SET deadline = ? WHERE id = ?")
                .params(java.sql.Timestamp.from(Instant.now().minusSeconds(1)), runId)
                .update();
        faults.armed.set(true);

        assertThat(deadlines.expire(runId, executor.instanceId())).isFalse();
        assertThat(faults.crashed.get()).isEqualTo(runId);
        assertThat(store.find(runId).orElseThrow().status()).isEqualTo(RunStatus.WORKING);
        assertThat(count(mainEvents(runId), "error")).isZero();

        assertThat(deadlines.expire(runId, executor.instanceId())).isTrue();
        RunRecord failed = store.find(runId).orElseThrow();
        assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
        assertThat(failed.failureCode()).isEqualTo("deadline_exceeded");
        List<RunEvents.StoredEvent> stored = mainEvents(runId);
        assertThat(count(stored, "error")).isEqualTo(1);
        assertThat(stored.getLast().data().path("error").path("code").asString())
                .isEqualTo("deadline_exceeded");
        assertThat(store.ending(runId)).contains("error");
    }

    /**
     * A waiting run ended because what it waits about is over, while no executor holds it here: its
     * {@code done} (the reason) and its completed status are one fact.
     */
    @Test
    void aWaitingRunEndedWithoutItsExecutor_storesItsDoneAndStatusAsOneFact() {
        Api api = new Api(port);
        String runId = crashedRun(api);
        jdbc.sql("UPDATE cadre_run SET status = 'input-required' WHERE id = ?")
                .param(runId)
                .update();
        faults.armed.set(true);

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> runs.endWaiting(runId, "incident resolved", "system"))
                .hasMessageContaining("injected crash");
        assertThat(store.find(runId).orElseThrow().status()).isEqualTo(RunStatus.INPUT_REQUIRED);
        assertThat(count(mainEvents(runId), "done")).isZero();

        assertThat(runs.endWaiting(runId, "incident resolved", "system")).isTrue();
        RunRecord done = store.find(runId).orElseThrow();
        assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(done.result()).isEqualTo("incident resolved");
        List<RunEvents.StoredEvent> stored = mainEvents(runId);
        assertThat(count(stored, "done")).isEqualTo(1);
        assertThat(stored.getLast().data().path("text").asString()).isEqualTo("incident resolved");
    }
}
