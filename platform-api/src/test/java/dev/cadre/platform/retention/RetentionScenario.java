package dev.cadre.platform.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.Writer;
import dev.cadre.platform.approvals.ApprovalStore;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.observability.TraceStore;
import dev.cadre.platform.runs.JdbcToolJournal;
import dev.cadre.platform.runs.RunEvents;
import dev.cadre.platform.runs.RunStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * One retention scenario on whatever database the platform's context runs on: rows that must go
 * and rows that must stay, seeded straight into the tables with their ages, then two retention
 * services (two instances on one database) run at once. Used by the H2 test and the PostgreSQL IT.
 */
final class RetentionScenario {

    final ApplicationContext context;
    final JdbcClient jdbc;
    final String tag = UUID.randomUUID().toString().substring(0, 8);
    final Instant now = Instant.now();

    final String expired; // ended 100 days ago: goes with everything of its own
    final String live; // still working after 100 days: stays, with its old events and spans
    final String awaitingApproval; // ended 100 days ago but an approval of it is pending: stays
    final String ofOpenIncident; // ended 100 days ago, listed by an open incident: stays
    final String ofResolvedIncident; // ended 100 days ago, its incident resolved: goes
    final String recent; // ended 30 days ago: the run stays, its 30-day-old events and spans go
    final String fresh; // ended a day ago: everything stays
    final String openFingerprint;

    RetentionScenario(ApplicationContext context) {
        this.context = context;
        this.jdbc = context.getBean(JdbcClient.class);
        expired = "run_ret_expired_" + tag;
        live = "run_ret_live_" + tag;
        awaitingApproval = "run_ret_approval_" + tag;
        ofOpenIncident = "run_ret_open_inc_" + tag;
        ofResolvedIncident = "run_ret_resolved_inc_" + tag;
        recent = "run_ret_recent_" + tag;
        fresh = "run_ret_fresh_" + tag;
        openFingerprint = "retention-open-" + tag;
    }

    void seed() {
        Instant old = now.minus(Duration.ofDays(100));
        run(expired, "completed", old);
        run(live, "working", old);
        run(awaitingApproval, "canceled", old);
        run(ofOpenIncident, "completed", old);
        run(ofResolvedIncident, "failed", old);
        run(recent, "completed", now.minus(Duration.ofDays(30)));
        run(fresh, "completed", now.minus(Duration.ofDays(1)));
        approval(expired, "approved");
        approval(awaitingApproval, "pending");
        approval(ofResolvedIncident, "rejected");
        for (String id : List.of(expired, live, awaitingApproval, ofOpenIncident, ofResolvedIncident)) {
            journal(id);
        }
        audit("old", now.minus(Duration.ofDays(400)));
        audit("kept", now.minus(Duration.ofDays(10)));

        IncidentService incidents = context.getBean(IncidentService.class);
        Writer writer = Writer.apiClient("retention-test");
        incidents.open(
                new IncidentService.OpenRequest(openFingerprint, "disk full", "high", "test", Map.of(), null),
                writer,
                ofOpenIncident);
        String resolvedFingerprint = "retention-resolved-" + tag;
        incidents.open(
                new IncidentService.OpenRequest(resolvedFingerprint, "cpu", "high", "test", Map.of(), null),
                writer,
                ofResolvedIncident);
        incidents.resolve(resolvedFingerprint, "test over", writer);

        SharedMemory memory = context.getBean(SharedMemory.class);
        for (int v = 1; v <= 5; v++) {
            memory.put("retention-" + tag, "k", Integer.toString(v), v - 1, writer);
        }
        memory.latestCursor(); // the relay has sequenced them (only sequenced history is pruned)
    }

    private void run(String id, String status, Instant created) {
        boolean ended = !status.equals("working");
        // A working run holds a lease of another (live) instance, so the recovery sweep leaves it be.
        jdbc.sql("INSERT INTO cadre_run (id, agent, input, status, submitted_by, created_at, updated_at, finished_at,"
                        + " checkpoint, owner, lease_until) VALUES (?, 'triage', ?, ?, 'test', ?, ?, ?, ?, ?, ?)")
                .params(
                        id,
                        "input of " + id,
                        status,
                        Timestamp.from(created),
                        Timestamp.from(created),
                        ended ? Timestamp.from(created.plusSeconds(5)) : null,
                        ended ? null : "{\"checkpoint\":true}",
                        ended ? null : "another-instance",
                        ended ? null : Timestamp.from(now.plus(Duration.ofDays(1))))
                .update();
        for (int seq = 1; seq <= 3; seq++) {
            jdbc.sql("INSERT INTO cadre_run_event (run_id, seq, session_id, main_stream, type, data, at)"
                            + " VALUES (?, ?, ?, TRUE, 'status', '{}', ?)")
                    .params(id, seq, id, Timestamp.from(created.plusSeconds(seq)))
                    .update();
        }
        long nanos = created.getEpochSecond() * 1_000_000_000L;
        for (int s = 1; s <= 2; s++) {
            jdbc.sql("INSERT INTO cadre_span (trace_id, span_id, run_id, name, start_nanos, end_nanos, status,"
                            + " attributes) VALUES (?, ?, ?, 'invoke_agent triage', ?, ?, 'OK', '{}')")
                    .params(
                            tag + id.hashCode(),
                            "s" + s + Integer.toHexString(id.hashCode()),
                            id,
                            nanos + s,
                            nanos + s + 10)
                    .update();
        }
    }

    private void approval(String runId, String status) {
        jdbc.sql("INSERT INTO cadre_approval (id, run_id, session_id, call_id, agent, tool, arguments, status,"
                        + " created_at, expires_at) VALUES (?, ?, ?, 'c1', 'triage', 'runbook_execute', '{}', ?, ?, ?)")
                .params(
                        "apr-" + runId,
                        runId,
                        runId,
                        status,
                        Timestamp.from(now.minus(Duration.ofDays(100))),
                        Timestamp.from(now.plus(Duration.ofDays(1))))
                .update();
    }

    private void journal(String runId) {
        jdbc.sql("INSERT INTO cadre_tool_journal (run_id, session_id, call_id, tool, state, started_at)"
                        + " VALUES (?, ?, 'c1', 'runbook_execute', 'finished', ?)")
                .params(runId, runId, Timestamp.from(now.minus(Duration.ofDays(100))))
                .update();
    }

    private void audit(String what, Instant at) {
        jdbc.sql("INSERT INTO cadre_audit_log (at, actor, action, target) VALUES (?, 'test', 'retention-test', ?)")
                .params(Timestamp.from(at), what + "-" + tag)
                .update();
    }

    /** A retention service of its own (another "instance"), with settings that also prune young memory history. */
    RetentionService instance(String name, Clock clock) {
        RetentionSettings defaults = RetentionSettings.defaults();
        RetentionSettings settings = new RetentionSettings(
                defaults.runs(),
                defaults.events(),
                defaults.spans(),
                defaults.audit(),
                1,
                Duration.ofMillis(1),
                defaults.memoryRequestIds(),
                Duration.ofMillis(1),
                100,
                defaults.interval(),
                3);
        RunEvents events = context.getBean(RunEvents.class);
        TraceStore spans = context.getBean(TraceStore.class);
        RetentionMetrics metrics = new RetentionMetrics(new SimpleMeterRegistry());
        return new RetentionService(
                settings,
                context.getBean(RunStore.class),
                events,
                context.getBean(JdbcToolJournal.class),
                spans,
                context.getBean(AuditLog.class),
                context.getBean(ApprovalStore.class),
                context.getBean(IncidentService.class),
                context.getBean(SharedMemory.class),
                new MaintenanceLease(jdbc, clock, name + "-" + tag),
                clock,
                metrics,
                new Partitions(events.partitions(), spans.partitions(), settings),
                StorageBudget.NONE);
    }

    /** Two instances run maintenance at the same moment; returns both passes. */
    List<RetentionService.Pass> runTwoInstancesAtOnce() throws Exception {
        RetentionService a = instance("a", Clock.systemUTC());
        RetentionService b = instance("b", Clock.systemUTC());
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<Callable<RetentionService.Pass>> both = List.of(a::runOnce, b::runOnce);
            List<RetentionService.Pass> passes = new ArrayList<>();
            for (Future<RetentionService.Pass> f : pool.invokeAll(both)) {
                passes.add(f.get());
            }
            return passes;
        }
    }

    long count(String table, String runId) {
        return jdbc.sql("SELECT COUNT(*) FROM " + table + " WHERE run_id = ?")
                .param(runId)
                .query(Long.class)
                .single();
    }

    boolean runExists(String id) {
        return jdbc.sql("SELECT COUNT(*) FROM cadre_run WHERE id = ?")
                        .param(id)
                        .query(Long.class)
                        .single()
                == 1;
    }

    long audits(String what) {
        return jdbc.sql("SELECT COUNT(*) FROM cadre_audit_log WHERE target = ?")
                .param(what + "-" + tag)
                .query(Long.class)
                .single();
    }

    /** What must hold after retention, on any database. */
    void assertRemovedExactlyWhatItShould(List<RetentionService.Pass> passes) {
        // Gone, with everything of their own.
        for (String id : List.of(expired, ofResolvedIncident)) {
            assertThat(runExists(id)).as(id).isFalse();
            assertThat(count("cadre_run_event", id)).as(id).isZero();
            assertThat(count("cadre_span", id)).as(id).isZero();
            assertThat(count("cadre_tool_journal", id)).as(id).isZero();
            assertThat(count("cadre_approval", id)).as(id).isZero();
        }
        // Kept whatever their age, with their events, spans, journal and approvals.
        for (String id : List.of(live, awaitingApproval, ofOpenIncident)) {
            assertThat(runExists(id)).as(id).isTrue();
            assertThat(count("cadre_run_event", id)).as(id).isEqualTo(3);
            assertThat(count("cadre_span", id)).as(id).isEqualTo(2);
            assertThat(count("cadre_tool_journal", id)).as(id).isEqualTo(1);
        }
        assertThat(count("cadre_approval", awaitingApproval)).isEqualTo(1);
        // Within run retention, past event and span retention.
        assertThat(runExists(recent)).isTrue();
        assertThat(count("cadre_run_event", recent)).isZero();
        assertThat(count("cadre_span", recent)).isZero();
        assertThat(runExists(fresh)).isTrue();
        assertThat(count("cadre_run_event", fresh)).isEqualTo(3);
        assertThat(count("cadre_span", fresh)).isEqualTo(2);
        assertThat(audits("old")).isZero();
        assertThat(audits("kept")).isEqualTo(1);

        // Memory: only the current version of the key is left, and it reads as before.
        SharedMemory memory = context.getBean(SharedMemory.class);
        assertThat(memory.get("retention-" + tag, "k", true).orElseThrow().value())
                .isEqualTo("5");
        assertThat(memory.history("retention-" + tag, "k"))
                .extracting(v -> v.version())
                .containsExactly(5L);
        // The open incident still lists its run and its link stays; the resolved one's link is gone.
        IncidentService incidents = context.getBean(IncidentService.class);
        assertThat(incidents.forRun(ofOpenIncident)).isPresent();
        assertThat(incidents.forRun(ofResolvedIncident)).isEmpty();
        assertThat(incidents.findActive(openFingerprint).orElseThrow().runs()).contains(ofOpenIncident);

        // Two instances at once: whoever ran, the runs were removed once in all.
        assertThat(passes).anyMatch(RetentionService.Pass::ran);
        assertThat(passes.stream()
                        .mapToLong(p -> p.of(RetentionKind.RUNS).rows())
                        .sum())
                .isEqualTo(2);
        assertThat(passes.stream()
                        .mapToLong(p -> p.of(RetentionKind.APPROVALS).rows())
                        .sum())
                .isEqualTo(2);
        assertThat(passes.stream()
                        .mapToLong(p -> p.of(RetentionKind.TOOL_JOURNAL).rows())
                        .sum())
                .isEqualTo(2);
        assertThat(passes.stream()
                        .mapToLong(p -> p.of(RetentionKind.AUDIT).rows())
                        .sum())
                .isGreaterThanOrEqualTo(1);
        assertThat(passes).allMatch(p -> p.failures().isEmpty());
    }
}
