package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * A queued run whose deadline passes ends {@code failed} with {@code TIMEOUT_ERROR} ({@code
 * deadline_exceeded}) at its deadline while the only execution slot stays busy, leaves the queue, and
 * never executes later; after a restart, such runs are failed by recovery instead of executed; and of
 * several instances only one ends it, never one an executor holds. Run on each queue: {@link
 * DeadlineSweepTest} (in-process) and {@code RedisDeadlineSweepTest}, each in a context with one slot.
 */
abstract class DeadlineSweepContract {

    @LocalServerPort
    int port;

    @Autowired
    RunQueue queue;

    @Autowired
    RunStore store;

    @Autowired
    RunService runs;

    @Autowired
    RunDeadlines deadlines;

    @Autowired
    RunExecutor executor;

    @Autowired
    MeterRegistry registry;

    private Api api;
    private String blocker;

    /** A run that holds the only slot for a minute (the scripted "slow" agent). */
    @BeforeEach
    void fillTheOnlySlot() {
        api = new Api(port);
        blocker = api.submitRun("slow", "hold the slot").get("id").asString();
        dev.cadre.platform.support.Await.until(
                "the blocker to execute",
                () -> api.get("/api/v1/runs/" + blocker, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString(),
                "working"::equals);
    }

    @AfterEach
    void freeTheSlot() {
        api.post("/api/v1/runs/" + blocker + "/cancel", Api.ADMIN_KEY, "{}");
        api.awaitRunEnd(blocker);
    }

    @Test
    void aQueuedRunPastItsDeadline_failsWithoutASlot_leavesTheQueue_andNeverExecutes() {
        double failedBefore = failedRuns("echoer");
        var accepted = api.post(
                "/api/v1/runs",
                Api.ADMIN_KEY,
                Api.json(Map.of(
                        "agent",
                        "echoer",
                        "input",
                        "too late",
                        "deadline",
                        Instant.now().plusSeconds(2).toString())));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        String late = accepted.json().get("id").asString();
        assertThat(queuedEntries()).isEqualTo(1);

        JsonNode end = api.awaitRunEnd(late);
        assertThat(end.get("status").asString()).as(end.toString()).isEqualTo("failed");
        assertThat(end.get("error").get("category").asString()).isEqualTo("TIMEOUT_ERROR");
        assertThat(end.get("error").get("code").asString()).isEqualTo("deadline_exceeded");
        // Ended while the only slot was still taken: it did not wait for one.
        assertThat(status(blocker)).isEqualTo("working");
        // The run is failed first, then taken out of the queue: wait for it to leave (it was there).
        dev.cadre.platform.support.Await.until("the expired run to leave the queue", this::queuedEntries, n -> n == 0);
        // Counted by the end listener just after the status is stored, which a poll may see first.
        dev.cadre.platform.support.Await.until(
                "the expired run counted as failed", () -> failedRuns("echoer"), n -> n == failedBefore + 1);

        // The slot frees: the next run executes, the expired one does not.
        freeTheSlot();
        JsonNode next =
                api.awaitRunEnd(api.submitRun("echoer", "on time").get("id").asString());
        assertThat(next.get("status").asString()).isEqualTo("completed");
        var events = Sse.parse(
                api.get("/api/v1/runs/" + late + "/events", Api.ADMIN_KEY).body());
        assertThat(events).extracting(Sse.Event::name).containsExactly("error");
        assertThat(events.getFirst().data().get("error").get("code").asString()).isEqualTo("deadline_exceeded");
        JsonNode after = api.get("/api/v1/runs/" + late, Api.ADMIN_KEY).json();
        assertThat(after.get("status").asString()).isEqualTo("failed");
        assertThat(after.get("iterations").asInt()).isZero();
        assertThat(after.get("usage").get("inputTokens").asLong()).isZero();
        blocker = api.submitRun("slow", "hold the slot again").get("id").asString();
    }

    @Test
    void atRestart_aRunPastItsDeadline_isFailedByRecovery_notExecuted() {
        // Left by the previous process of this instance (same name), its lease not yet expired.
        String id = insertPastDeadline("run_deadline_restart");
        assertThat(store.acquireLease(id, executor.instanceId(), Duration.ofHours(1), false))
                .isPresent();

        runs.recover(true, Duration.ZERO);

        RunRecord run = store.find(id).orElseThrow();
        assertThat(run.status()).isEqualTo(RunStatus.FAILED);
        assertThat(run.failureCategory()).isEqualTo("TIMEOUT_ERROR");
        assertThat(run.failureCode()).isEqualTo("deadline_exceeded");
        assertThat(queuedEntries()).isZero();
    }

    @Test
    void ofSeveralInstances_oneEndsTheRun_andNoneEndsARunAnExecutorHolds() {
        String held = insertPastDeadline("run_deadline_held");
        assertThat(store.acquireLease(held, "instance-b", Duration.ofHours(1), false))
                .isPresent();
        assertThat(deadlines.sweep()).isZero();
        assertThat(deadlines.expire(held, null)).isFalse();
        assertThat(store.find(held).orElseThrow().status()).isEqualTo(RunStatus.SUBMITTED);

        String free = insertPastDeadline("run_deadline_free");
        assertThat(deadlines.expire(free, null)).isTrue();
        assertThat(deadlines.expire(free, null)).isFalse();
        assertThat(deadlines.sweep()).isZero();
        var events = Sse.parse(
                api.get("/api/v1/runs/" + free + "/events", Api.ADMIN_KEY).body());
        assertThat(events).extracting(Sse.Event::name).containsExactly("error");
    }

    /** Entries of runs waiting in the queue (not executing). */
    protected long queuedEntries() {
        return queue.queued();
    }

    private String status(String id) {
        return api.get("/api/v1/runs/" + id, Api.ADMIN_KEY).json().get("status").asString();
    }

    private double failedRuns(String agent) {
        var c = registry.find("cadre.runs")
                .tags("agent", agent, "status", "failed")
                .counter();
        return c == null ? 0 : c.count();
    }

    /** A submitted run whose deadline passed a minute ago (as if the instance had been down). */
    private String insertPastDeadline(String id) {
        Instant now = Instant.now();
        store.insert(new RunRecord(
                id,
                "echoer",
                "never executed",
                null,
                RunStatus.SUBMITTED,
                null,
                null,
                null,
                null,
                null,
                null,
                0,
                0,
                0,
                "test",
                null,
                null,
                null,
                null,
                0,
                now.minusSeconds(120),
                null,
                null,
                now.minusSeconds(120),
                null,
                0,
                now.minusSeconds(60),
                0,
                null));
        return id;
    }
}
