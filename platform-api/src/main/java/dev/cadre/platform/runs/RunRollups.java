package dev.cadre.platform.runs;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The pre-aggregated run statistics (issue #18) and the only class that reads or writes their
 * tables: ended runs per hour of submission, agent, status and failure category; a duration
 * histogram per hour; delegations per agent and hour; all-time outcomes per agent. {@link RunStore}
 * adds a run here in the same transaction as its terminal update, which matches a run once (first
 * outcome wins), so the rollups agree with the run table; reads cost the window's hours, not the
 * history's runs.
 */
final class RunRollups {

    /** Histogram resolution: 8 buckets per doubling, so a bucket's bounds are 9 % apart. */
    static final int BUCKETS_PER_DOUBLING = 8;

    /** Marks rollups not yet built from the history stored before they existed (see V8). */
    static final Instant BACKFILL_MARK = Instant.EPOCH;

    private static final List<String> TERMINAL = List.of("completed", "failed", "canceled", "rejected");

    private final JdbcClient jdbc;
    private final JsonMapper json;

    RunRollups(JdbcClient jdbc, JsonMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    /** The histogram bucket of a duration: the smallest b with d ≤ 2^(b/8) ms. */
    static int bucketOf(long durationMs) {
        if (durationMs <= 1) {
            return 0;
        }
        int b = (int) Math.ceil(BUCKETS_PER_DOUBLING * (Math.log(durationMs) / Math.log(2)));
        // Floating point can land one bucket off at exact powers; settle it with integer bounds.
        while (b > 0 && upperBound(b - 1) >= durationMs) {
            b--;
        }
        while (upperBound(b) < durationMs) {
            b++;
        }
        return b;
    }

    /** The largest duration (ms) bucket {@code b} holds. */
    static long upperBound(int bucket) {
        return (long) Math.floor(Math.pow(2, (double) bucket / BUCKETS_PER_DOUBLING));
    }

    /** One ended run, as the rollups need it. */
    record Ended(
            String agent,
            String status,
            @Nullable String failureCategory,
            long inputTokens,
            long outputTokens,
            Instant createdAt,
            @Nullable Instant startedAt,
            @Nullable Instant finishedAt,
            @Nullable String subagentsJson) {}

    /** Increments accumulated in memory (one run, or a whole backfill) and written by {@link #flush}. */
    final class Batch {
        private final Map<List<Object>, long[]> runs = new TreeMap<>(RunRollups::compareKeys);
        private final Map<List<Object>, long[]> durations = new TreeMap<>(RunRollups::compareKeys);
        private final Map<List<Object>, long[]> delegations = new TreeMap<>(RunRollups::compareKeys);
        private final Map<String, long[]> outcomes = new TreeMap<>();

        void add(Ended r) {
            Instant hour = r.createdAt().truncatedTo(ChronoUnit.HOURS);
            long durationMs = r.startedAt() == null || r.finishedAt() == null
                    ? -1
                    : Math.max(
                            0, Duration.between(r.startedAt(), r.finishedAt()).toMillis());
            String category = r.failureCategory() == null || r.status().equals("completed") ? "" : r.failureCategory();
            long[] t = runs.computeIfAbsent(List.of(hour, r.agent(), r.status(), category), k -> new long[4]);
            t[0]++;
            t[1] += r.inputTokens();
            t[2] += r.outputTokens();
            t[3] = Math.max(t[3], Math.max(0, durationMs));
            if (durationMs >= 0 && TERMINAL.contains(r.status())) {
                durations.computeIfAbsent(List.of(hour, bucketOf(durationMs)), k -> new long[1])[0]++;
            }
            if (r.subagentsJson() != null) {
                Map<String, long[]> counts = new TreeMap<>();
                RunStatistics.countDelegations(r.agent(), json.readTree(r.subagentsJson()), counts);
                counts.forEach((agent, c) -> {
                    long[] d = delegations.computeIfAbsent(List.of(hour, agent), k -> new long[4]);
                    for (int i = 0; i < 4; i++) {
                        d[i] += c[i];
                    }
                });
            }
            long[] o = outcomes.computeIfAbsent(r.agent(), k -> new long[4]);
            o[0]++;
            o[1] += r.status().equals("completed") ? 1 : 0;
            o[2] += r.status().equals("failed") ? 1 : 0;
            o[3] += r.inputTokens() + r.outputTokens();
        }

        /** Adds the increments to the stored rows; call inside the transaction that ended the runs. */
        void flush() {
            runs.forEach((k, t) -> upsert(
                    "INSERT INTO cadre_run_rollup (bucket_hour, agent, status, failure_category) VALUES (?, ?, ?, ?)"
                            + " ON CONFLICT DO NOTHING",
                    "UPDATE cadre_run_rollup SET runs = runs + ?, input_tokens = input_tokens + ?,"
                            + " output_tokens = output_tokens + ?, max_duration_ms = GREATEST(max_duration_ms, ?)"
                            + " WHERE bucket_hour = ? AND agent = ? AND status = ? AND failure_category = ?",
                    List.of(ts(k.get(0)), k.get(1), k.get(2), k.get(3)),
                    List.of(t[0], t[1], t[2], t[3])));
            durations.forEach((k, t) -> upsert(
                    "INSERT INTO cadre_run_duration_rollup (bucket_hour, bucket) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    "UPDATE cadre_run_duration_rollup SET runs = runs + ? WHERE bucket_hour = ? AND bucket = ?",
                    List.of(ts(k.get(0)), k.get(1)),
                    List.of(t[0])));
            delegations.forEach((k, d) -> upsert(
                    "INSERT INTO cadre_delegation_rollup (bucket_hour, agent) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    "UPDATE cadre_delegation_rollup SET made = made + ?, made_misrouted = made_misrouted + ?,"
                            + " received = received + ?, received_misrouted = received_misrouted + ?"
                            + " WHERE bucket_hour = ? AND agent = ?",
                    List.of(ts(k.get(0)), k.get(1)),
                    List.of(d[0], d[1], d[2], d[3])));
            outcomes.forEach((agent, o) -> upsert(
                    "INSERT INTO cadre_agent_outcome (agent) VALUES (?) ON CONFLICT DO NOTHING",
                    "UPDATE cadre_agent_outcome SET runs = runs + ?, completed = completed + ?, failed = failed + ?,"
                            + " tokens = tokens + ? WHERE agent = ?",
                    List.of(agent),
                    List.of(o[0], o[1], o[2], o[3])));
        }
    }

    Batch batch() {
        return new Batch();
    }

    /**
     * Claims the one-time build from older history: true for the one transaction that removed the
     * marker row V8 inserted (a concurrent instance waits on the row, then finds it gone).
     */
    boolean claimBackfill() {
        return jdbc.sql("DELETE FROM cadre_run_rollup WHERE bucket_hour = ? AND status = 'backfill'")
                        .param(ts(BACKFILL_MARK))
                        .update()
                > 0;
    }

    /**
     * The ended runs submitted in {@code [from, to]} ({@code from} on an hour): per hour, status,
     * agent and category, plus the duration histogram, added to {@code tally}.
     */
    void addWindow(Instant from, Instant to, RunStatistics.WindowTally tally) {
        jdbc.sql("SELECT bucket_hour, agent, status, failure_category, runs, input_tokens, output_tokens,"
                        + " max_duration_ms FROM cadre_run_rollup WHERE bucket_hour >= ? AND bucket_hour <= ?")
                .params(ts(from), ts(to))
                .withFetchSize(1000)
                .query(rs -> {
                    String category = rs.getString("failure_category");
                    tally.addRollup(
                            rs.getTimestamp("bucket_hour").toInstant(),
                            rs.getString("agent"),
                            rs.getString("status"),
                            category.isEmpty() ? null : category,
                            rs.getLong("runs"),
                            rs.getLong("input_tokens"),
                            rs.getLong("output_tokens"),
                            rs.getLong("max_duration_ms"));
                });
        jdbc.sql("SELECT bucket, SUM(runs) AS runs FROM cadre_run_duration_rollup"
                        + " WHERE bucket_hour >= ? AND bucket_hour <= ? GROUP BY bucket")
                .params(ts(from), ts(to))
                .query(rs -> {
                    tally.addDurationBucket(rs.getInt("bucket"), rs.getLong("runs"));
                });
    }

    /** Delegations per agent over the hours in {@code [from, to]}, by agent name. */
    List<RunStatistics.AgentDelegations> delegations(Instant from, Instant to) {
        List<RunStatistics.AgentDelegations> out = new ArrayList<>();
        jdbc.sql("SELECT agent, SUM(made) AS made, SUM(made_misrouted) AS mm, SUM(received) AS received,"
                        + " SUM(received_misrouted) AS rm FROM cadre_delegation_rollup"
                        + " WHERE bucket_hour >= ? AND bucket_hour <= ? GROUP BY agent ORDER BY agent")
                .params(ts(from), ts(to))
                .query(rs -> {
                    out.add(new RunStatistics.AgentDelegations(
                            rs.getString("agent"),
                            rs.getLong("made"),
                            rs.getLong("mm"),
                            rs.getLong("received"),
                            rs.getLong("rm")));
                });
        return out;
    }

    /**
     * Removes the hourly rows of hours before {@code before} (retention: no statistics window reaches
     * back that far); V8's backfill marker (1970) and the all-time per-agent outcomes stay.
     */
    long trimBefore(Instant before) {
        long n = jdbc.sql("DELETE FROM cadre_run_rollup WHERE bucket_hour < ? AND bucket_hour > ?")
                .params(ts(before), ts(BACKFILL_MARK))
                .update();
        n += jdbc.sql("DELETE FROM cadre_run_duration_rollup WHERE bucket_hour < ?")
                .param(ts(before))
                .update();
        n += jdbc.sql("DELETE FROM cadre_delegation_rollup WHERE bucket_hour < ?")
                .param(ts(before))
                .update();
        return n;
    }

    /** All-time outcomes of an agent's ended runs: one primary-key lookup. */
    dev.cadre.platform.agents.AgentRunHistory.Outcomes outcomesOf(String agent) {
        return jdbc.sql("SELECT runs, completed, failed, tokens FROM cadre_agent_outcome WHERE agent = ?")
                .param(agent)
                .query((rs, i) -> {
                    long runs = rs.getLong("runs");
                    return new dev.cadre.platform.agents.AgentRunHistory.Outcomes(
                            runs,
                            rs.getLong("completed"),
                            rs.getLong("failed"),
                            runs == 0 ? 0 : (double) rs.getLong("tokens") / runs);
                })
                .optional()
                .orElse(new dev.cadre.platform.agents.AgentRunHistory.Outcomes(0, 0, 0, 0));
    }

    /**
     * Adds to a row, creating it first only when it is missing. The update comes first because on
     * H2 an INSERT … ON CONFLICT DO NOTHING that finds the row fails inside the database and rolls
     * back to a savepoint; from then on H2 lets every transaction waiting for a row this one holds
     * retry at once instead of waiting (no lock timeout applies), so runs ending together spun on
     * the rows of the first — on virtual threads on every carrier, starving the transaction they
     * waited for of one to commit on. Only the first ending of an hour's row inserts now.
     */
    private void upsert(String insert, String update, List<Object> key, List<Object> increments) {
        List<Object> params = new ArrayList<>(increments);
        params.addAll(key);
        if (jdbc.sql(update).params(params).update() == 0) {
            jdbc.sql(insert).params(key).update();
            jdbc.sql(update).params(params).update();
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareKeys(List<Object> a, List<Object> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = ((Comparable) a.get(i)).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    private static Timestamp ts(Object instant) {
        return Timestamp.from((Instant) instant);
    }
}
