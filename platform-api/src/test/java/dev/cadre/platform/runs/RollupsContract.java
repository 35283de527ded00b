package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.agents.AgentRunHistory;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * The statistics rollups (issue #18) agree with a count over the raw runs: counts by status and
 * hour, tokens, failure categories, delegations, per-agent outcomes and the duration percentiles
 * (from the histogram: the upper bound of the bucket holding the exact nearest-rank value). Runs on
 * H2 ({@link RollupsTest}) and PostgreSQL ({@link RollupsPostgresTest}), in a window of 2001 that
 * no other test writes to, with a RunStore on a clock the test sets.
 */
abstract class RollupsContract {

    private static final String SUBAGENTS = """
            [{"worker": "W1", "status": "ok", "summary": "done"},
             {"worker": "W2", "status": "failed", "error": {"category": "ORCHESTRATION_ERROR"}},
             {"worker": "W1", "status": "ok", "summary": "",
              "subagents": [{"worker": "W3", "status": "ok", "summary": "nested"}]}]""";

    @Autowired
    JdbcClient jdbc;

    @Autowired
    PlatformTransactionManager transactionManager;

    @Autowired
    JsonMapper json;

    final SetClock clock = new SetClock();
    RunStore store;
    Instant base;
    String a;
    String b;
    String w1;

    /** A clock the test moves. */
    static final class SetClock extends Clock {
        volatile Instant now = Instant.now();

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @BeforeEach
    void setUp() {
        store = new RunStore(jdbc, clock, json, transactionManager, dev.cadre.platform.web.SecretRedactor.standard());
        // A random day of 2001: nothing else writes there, so the window's figures are this test's.
        base = Instant.parse("2001-01-01T00:00:00Z")
                .plus(ThreadLocalRandom.current().nextInt(300), ChronoUnit.DAYS);
        String tag = UUID.randomUUID().toString().substring(0, 6);
        a = "roll-a-" + tag;
        b = "roll-b-" + tag;
        w1 = "W1";
    }

    /** 200 runs over ~5.4 hours: every status, categories, tokens, durations, delegations, some live. */
    private void grow() {
        String[] categories = {"MODEL_ERROR", "TOOL_ERROR", "TIMEOUT", "ORCHESTRATION_ERROR"};
        for (int i = 0; i < 200; i++) {
            Instant created = base.plusSeconds(i * 97L).plusMillis(i);
            String id = UUID.randomUUID().toString();
            String agent = i % 3 == 0 ? b : a;
            clock.now = created;
            store.insert(new RunRecord(
                    id,
                    agent,
                    "rollup " + i,
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
                    "rollups-test",
                    null,
                    null,
                    null,
                    null,
                    0,
                    created,
                    null,
                    null,
                    created));
            if (i % 41 == 7) {
                continue; // still queued
            }
            boolean started = i % 17 != 3;
            Instant start = created.plusMillis(500 + i);
            if (started) {
                clock.now = start;
                store.transition(id, EnumSet.of(RunStatus.SUBMITTED), RunStatus.WORKING);
            }
            if (i % 43 == 11) {
                continue; // still working
            }
            RunStatus status = !started
                    ? RunStatus.CANCELED
                    : switch (i % 7) {
                        case 0, 1, 2, 3 -> RunStatus.COMPLETED;
                        case 4, 5 -> RunStatus.FAILED;
                        default -> i % 2 == 0 ? RunStatus.CANCELED : RunStatus.REJECTED;
                    };
            String category = status == RunStatus.FAILED ? categories[i % categories.length] : null;
            long durationMs = (long) i * i * 37 % 200_000 + (i % 5);
            clock.now = (started ? start : created).plusMillis(started ? durationMs : 10);
            boolean ended = store.finish(
                    null,
                    id,
                    status,
                    status == RunStatus.COMPLETED ? "ok" : null,
                    category,
                    category == null ? null : "X",
                    null,
                    i % 4 == 0 ? SUBAGENTS : null,
                    null,
                    3L * i,
                    5L * i,
                    1);
            assertThat(ended).isTrue();
            // A second outcome (a resumed run, a cancel racing the end) changes nothing, rollups included.
            assertThat(store.finish(
                            null, id, RunStatus.FAILED, null, "TIMEOUT", null, null, SUBAGENTS, null, 1000, 1000, 1))
                    .isFalse();
        }
    }

    private record Raw(
            String agent,
            String status,
            String category,
            long in,
            long out,
            Instant created,
            Instant started,
            Instant finished,
            String subagents) {}

    private List<Raw> raw(Instant from, Instant to) {
        return jdbc.sql("SELECT agent, status, failure_category, input_tokens, output_tokens, created_at, started_at,"
                        + " finished_at, subagents FROM cadre_run WHERE created_at >= ? AND created_at <= ?")
                .params(Timestamp.from(from), Timestamp.from(to))
                .query((rs, n) -> new Raw(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getLong(4),
                        rs.getLong(5),
                        rs.getTimestamp(6).toInstant(),
                        rs.getTimestamp(7) == null ? null : rs.getTimestamp(7).toInstant(),
                        rs.getTimestamp(8) == null ? null : rs.getTimestamp(8).toInstant(),
                        rs.getString(9)))
                .list();
    }

    @Test
    void replayRuns_areNotCountedAsRuns_endedOrLive() {
        java.util.Set<String> replays = java.util.concurrent.ConcurrentHashMap.newKeySet();
        RunStore marked = new RunStore(
                jdbc,
                clock,
                json,
                transactionManager,
                dev.cadre.platform.web.SecretRedactor.standard(),
                ids -> ids.stream()
                        .filter(replays::contains)
                        .collect(java.util.stream.Collectors.toMap(i -> i, i -> "rpl")));
        String replayed = UUID.randomUUID().toString();
        String ordinary = UUID.randomUUID().toString();
        String liveReplay = UUID.randomUUID().toString();
        replays.add(replayed);
        replays.add(liveReplay);
        // A day of 1999: apart from the other tests' windows (2001), which count every run they find.
        Instant base = this.base.minus(2 * 365, ChronoUnit.DAYS);
        clock.now = base.plusSeconds(60);
        for (String id : List.of(replayed, ordinary, liveReplay)) {
            marked.insert(submitted(id, a, clock.now));
            marked.transition(id, EnumSet.of(RunStatus.SUBMITTED), RunStatus.WORKING);
        }
        clock.now = base.plusSeconds(61);
        assertThat(marked.finish(null, replayed, RunStatus.COMPLETED, "ok", null, null, null, null, null, 1, 1, 1))
                .isTrue();
        assertThat(marked.finish(null, ordinary, RunStatus.FAILED, null, "TOOL_ERROR", "X", null, null, null, 1, 1, 1))
                .isTrue();

        RunStatistics.Window w = marked.windowStatistics(base, base.plus(1, ChronoUnit.HOURS));

        assertThat(w.total()).isEqualTo(1);
        assertThat(w.byStatus().get("failed")).isEqualTo(1);
        assertThat(w.byStatus().get("completed")).isZero();
        assertThat(w.byStatus().get("working")).isZero();
        marked.finish(null, liveReplay, RunStatus.CANCELED, null, null, null, null, null, null, 0, 0, 0);
    }

    private static RunRecord submitted(String id, String agent, Instant created) {
        return new RunRecord(
                id,
                agent,
                "replay test",
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
                "rollups-test",
                null,
                null,
                null,
                null,
                0,
                created,
                null,
                null,
                created);
    }

    @Test
    void rollupsAgreeWithACountOverTheRawRuns_includingPercentiles() {
        grow();
        Instant from = base;
        Instant to = base.plus(6, ChronoUnit.HOURS);
        List<Raw> rows = raw(from, to);
        assertThat(rows).hasSize(200);

        RunStatistics.Window w = store.windowStatistics(from, to);

        Map<String, Long> byStatus = new LinkedHashMap<>();
        RunStatistics.STATUSES.forEach(s -> byStatus.put(s, 0L));
        Map<Instant, Map<String, Long>> byHour = new TreeMap<>();
        Map<String, long[]> tokens = new TreeMap<>();
        Map<String, Long> categories = new TreeMap<>();
        List<Long> durations = new ArrayList<>();
        for (Raw r : rows) {
            byStatus.merge(r.status(), 1L, Long::sum);
            byHour.computeIfAbsent(r.created().truncatedTo(ChronoUnit.HOURS), k -> new TreeMap<>())
                    .merge(r.status(), 1L, Long::sum);
            long[] t = tokens.computeIfAbsent(r.agent(), k -> new long[3]);
            t[0]++;
            t[1] += r.in();
            t[2] += r.out();
            if (r.category() != null && !r.status().equals("completed")) {
                categories.merge(r.category(), 1L, Long::sum);
            }
            if (r.started() != null && r.finished() != null) {
                durations.add(Duration.between(r.started(), r.finished()).toMillis());
            }
        }
        assertThat(w.total()).isEqualTo(200);
        assertThat(w.byStatus()).isEqualTo(byStatus);
        byHour.forEach((hour, counts) ->
                counts.forEach((status, n) -> assertThat(w.byHour().get(hour).get(status))
                        .as(hour + " " + status)
                        .isEqualTo(n)));
        assertThat(w.byHour().values().stream()
                        .flatMap(m -> m.values().stream())
                        .mapToLong(Long::longValue)
                        .sum())
                .isEqualTo(200);
        assertThat(w.tokensByAgent())
                .extracting(t -> List.<Object>of(t.agent(), t.runs(), t.inputTokens(), t.outputTokens()))
                .containsExactlyInAnyOrderElementsOf(tokens.entrySet().stream()
                        .map(e -> List.<Object>of(e.getKey(), e.getValue()[0], e.getValue()[1], e.getValue()[2]))
                        .toList());
        assertThat(w.failuresByCategory())
                .extracting(c -> List.<Object>of(c.category(), c.count()))
                .containsExactlyInAnyOrderElementsOf(categories.entrySet().stream()
                        .map(e -> List.<Object>of(e.getKey(), e.getValue()))
                        .toList());
        long ended = byStatus.get("completed")
                + byStatus.get("failed")
                + byStatus.get("canceled")
                + byStatus.get("rejected");
        assertThat(w.successRate()).isEqualTo((double) byStatus.get("completed") / ended);

        long[] sorted = durations.stream().mapToLong(Long::longValue).sorted().toArray();
        long max = sorted[sorted.length - 1];
        assertThat(w.durations().count()).isEqualTo(sorted.length);
        assertThat(w.durations().maxMs()).isEqualTo(max);
        for (double p : new double[] {0.50, 0.95}) {
            long exact = sorted[(int) Math.ceil(p * sorted.length) - 1];
            long reported = p == 0.50 ? w.durations().p50Ms() : w.durations().p95Ms();
            assertThat(reported)
                    .as("p%s: the upper bound of the exact value's bucket", (int) (p * 100))
                    .isEqualTo(Math.min(RunRollups.upperBound(RunRollups.bucketOf(exact)), max));
            assertThat(reported).isBetween(exact, (long) Math.ceil(exact * 1.0906));
        }

        Map<String, long[]> delegations = new TreeMap<>();
        rows.stream()
                .filter(r -> r.subagents() != null)
                .forEach(r -> RunStatistics.countDelegations(r.agent(), json.readTree(r.subagents()), delegations));
        assertThat(store.delegationStatistics(from, to))
                .extracting(d ->
                        List.<Object>of(d.agent(), d.made(), d.madeMisrouted(), d.received(), d.receivedMisrouted()))
                .containsAll(delegations.entrySet().stream()
                        .filter(e -> !e.getKey().startsWith("W"))
                        .map(e -> List.<Object>of(
                                e.getKey(), e.getValue()[0], e.getValue()[1], e.getValue()[2], e.getValue()[3]))
                        .toList());
        long[] w1Raw = delegations.get(w1);
        assertThat(store.delegationStatistics(from, to))
                .filteredOn(d -> d.agent().equals(w1))
                .extracting(d -> List.of(d.made(), d.madeMisrouted(), d.received(), d.receivedMisrouted()))
                .containsExactly(List.of(w1Raw[0], w1Raw[1], w1Raw[2], w1Raw[3]));

        for (String agent : List.of(a, b)) {
            List<Raw> mine = rows.stream()
                    .filter(r -> r.agent().equals(agent) && r.finished() != null)
                    .toList();
            AgentRunHistory.Outcomes o = store.outcomesOf(agent);
            assertThat(o.runs()).isEqualTo(mine.size());
            assertThat(o.completed())
                    .isEqualTo(mine.stream()
                            .filter(r -> r.status().equals("completed"))
                            .count());
            assertThat(o.failed())
                    .isEqualTo(mine.stream()
                            .filter(r -> r.status().equals("failed"))
                            .count());
            assertThat(o.averageTokens())
                    .isCloseTo(
                            mine.stream()
                                    .mapToLong(r -> r.in() + r.out())
                                    .average()
                                    .orElse(0),
                            org.assertj.core.data.Offset.offset(1e-9));
        }
    }

    @Test
    void theBackfillBuildsTheSameRollupsAsTheLiveIncrements() {
        grow();
        Instant from = base;
        Instant to = base.plus(6, ChronoUnit.HOURS);
        RunStatistics.Window live = store.windowStatistics(from, to);
        List<RunStatistics.AgentDelegations> liveDelegations = store.delegationStatistics(from, to);
        AgentRunHistory.Outcomes liveOutcome = store.outcomesOf(a);
        // Rebuild everything from the run rows, as after the upgrade to V8, and compare; then undo.
        new TransactionTemplate(transactionManager).executeWithoutResult(tx -> {
            for (String table : List.of(
                    "cadre_run_rollup",
                    "cadre_run_duration_rollup",
                    "cadre_delegation_rollup",
                    "cadre_agent_outcome")) {
                jdbc.sql("DELETE FROM " + table).update();
            }
            jdbc.sql("INSERT INTO cadre_run_rollup (bucket_hour, agent, status, failure_category)"
                            + " VALUES (?, '', 'backfill', '')")
                    .param(Timestamp.from(RunRollups.BACKFILL_MARK))
                    .update();
            assertThat(store.windowStatistics(from, to).total())
                    .isEqualTo(
                            live.byStatus().get("submitted") + live.byStatus().get("working"));
            RunStore.backfillRollups(jdbc, json);
            RunStatistics.Window rebuilt = store.windowStatistics(from, to);
            assertThat(rebuilt).isEqualTo(live);
            assertThat(store.delegationStatistics(from, to)).isEqualTo(liveDelegations);
            assertThat(store.outcomesOf(a)).isEqualTo(liveOutcome);
            // Claimed once: a second start finds no marker and adds nothing.
            RunStore.backfillRollups(jdbc, json);
            assertThat(store.windowStatistics(from, to)).isEqualTo(live);
            tx.setRollbackOnly();
        });
    }
}
