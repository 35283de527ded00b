package dev.cadre.platform.runs;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The figures {@link RunStore}'s statistics queries answer with, and how they are tallied from run
 * rows. Kept apart from the SQL so a query can change (say, to aggregate in the database) while
 * the figures it answers with stay the same.
 */
public final class RunStatistics {

    /** Run states in wire form, in the order the console lists them. */
    public static final List<String> STATUSES =
            List.of("submitted", "working", "input-required", "completed", "failed", "canceled", "rejected");

    private static final List<String> TERMINAL = List.of("completed", "failed", "canceled", "rejected");

    private RunStatistics() {}

    /** Nearest-rank percentiles of the durations of ended runs, in milliseconds. */
    public record Durations(
            @Nullable Long p50Ms,
            @Nullable Long p95Ms,
            @Nullable Long maxMs,
            long count) {}

    public record AgentTokens(String agent, long runs, long inputTokens, long outputTokens) {}

    public record CategoryCount(String category, long count) {}

    /**
     * The runs submitted in a window: counts by status (every status present), by hour of
     * submission (every hour of the window present), tokens per agent (most first), failure
     * categories of runs that did not complete (most first), and the success rate of ended runs.
     */
    public record Window(
            long total,
            Map<String, Long> byStatus,
            Map<Instant, Map<String, Long>> byHour,
            @Nullable Double successRate,
            Durations durations,
            List<AgentTokens> tokensByAgent,
            List<CategoryCount> failuresByCategory) {}

    /** Runs not yet ended, by state. */
    public record Live(long submitted, long working, long inputRequired) {}

    /**
     * {@code made}: delegations this agent made as an orchestrator and how many were misrouted;
     * {@code received}: delegations it received as a worker.
     */
    public record AgentDelegations(
            String agent, long made, long madeMisrouted, long received, long receivedMisrouted) {}

    /**
     * A delegation is misrouted when it failed with ORCHESTRATION_ERROR (wrong or unknown worker,
     * bad delegation) or came back ok with an empty summary (the worker could not make sense of the
     * task).
     */
    public static boolean misrouted(JsonNode delegation) {
        String status = delegation.path("status").asString("");
        if (status.equals("failed")) {
            return "ORCHESTRATION_ERROR"
                    .equals(delegation.path("error").path("category").asString(""));
        }
        return status.equals("ok") && delegation.path("summary").asString("").isBlank();
    }

    /** Counts a run's delegation tree; nested delegations count for the worker that made them. */
    static void countDelegations(String parent, JsonNode subagents, Map<String, long[]> counts) {
        for (JsonNode d : subagents) {
            String worker = d.path("worker").asString("unknown");
            boolean wrong = misrouted(d);
            long[] p = counts.computeIfAbsent(parent, k -> new long[4]);
            p[0]++;
            long[] c = counts.computeIfAbsent(worker, k -> new long[4]);
            c[2]++;
            if (wrong) {
                p[1]++;
                c[3]++;
            }
            if (d.has("subagents")) {
                countDelegations(worker, d.get("subagents"), counts);
            }
        }
    }

    static List<AgentDelegations> delegations(Map<String, long[]> counts) {
        List<AgentDelegations> out = new ArrayList<>();
        counts.forEach((agent, c) -> out.add(new AgentDelegations(agent, c[0], c[1], c[2], c[3])));
        return out;
    }

    /**
     * Accumulates a window from the ended runs' hourly rollups ({@link #addRollup}, {@link
     * #addDurationBucket}) and the live runs' rows ({@link #addLive}).
     */
    static final class WindowTally {
        private final Map<Instant, Map<String, Long>> perHour = new TreeMap<>();
        private final Map<String, Long> byStatus = zeroStatuses();
        private final Map<String, long[]> byAgent = new TreeMap<>();
        private final Map<String, Long> byCategory = new TreeMap<>();
        private final TreeMap<Integer, Long> durationBuckets = new TreeMap<>();
        private long maxDurationMs = -1;
        private long total;

        WindowTally(Instant from, Instant to) {
            for (Instant h = from.truncatedTo(ChronoUnit.HOURS); !h.isAfter(to); h = h.plus(1, ChronoUnit.HOURS)) {
                perHour.put(h, zeroStatuses());
            }
        }

        /** A run not yet ended (it has no duration or failure yet). */
        void addLive(String agent, String status, long inputTokens, long outputTokens, Instant created) {
            addRollup(created.truncatedTo(ChronoUnit.HOURS), agent, status, null, 1, inputTokens, outputTokens, -1);
        }

        /** {@code runs} ended runs of one hour, agent, status and failure category. */
        void addRollup(
                Instant hour,
                String agent,
                String status,
                @Nullable String category,
                long runs,
                long inputTokens,
                long outputTokens,
                long maxDurationMs) {
            total += runs;
            byStatus.merge(status, runs, Long::sum);
            perHour.computeIfAbsent(hour, k -> zeroStatuses()).merge(status, runs, Long::sum);
            long[] t = byAgent.computeIfAbsent(agent, k -> new long[3]);
            t[0] += runs;
            t[1] += inputTokens;
            t[2] += outputTokens;
            if (category != null && !status.equals("completed")) {
                byCategory.merge(category, runs, Long::sum);
            }
            if (TERMINAL.contains(status)) {
                this.maxDurationMs = Math.max(this.maxDurationMs, maxDurationMs);
            }
        }

        /** {@code runs} ended runs whose duration falls in histogram bucket {@code bucket} ({@link RunRollups}). */
        void addDurationBucket(int bucket, long runs) {
            durationBuckets.merge(bucket, runs, Long::sum);
        }

        Window window() {
            long ended = TERMINAL.stream().mapToLong(byStatus::get).sum();
            Double success = ended == 0 ? null : (double) byStatus.get("completed") / ended;
            long count =
                    durationBuckets.values().stream().mapToLong(Long::longValue).sum();
            Durations duration = new Durations(
                    percentile(count, 0.50), percentile(count, 0.95), count == 0 ? null : maxDurationMs, count);
            List<AgentTokens> agents = new ArrayList<>();
            byAgent.forEach((a, t) -> agents.add(new AgentTokens(a, t[0], t[1], t[2])));
            agents.sort((x, y) -> Long.compare(y.inputTokens() + y.outputTokens(), x.inputTokens() + x.outputTokens()));
            List<CategoryCount> categories = new ArrayList<>();
            byCategory.forEach((c, k) -> categories.add(new CategoryCount(c, k)));
            categories.sort((x, y) -> Long.compare(y.count(), x.count()));
            return new Window(total, byStatus, perHour, success, duration, agents, categories);
        }

        /**
         * Nearest-rank percentile from the histogram: the upper bound of the bucket holding that
         * rank (at most the window's maximum), so it is at most 9 % above the exact value.
         */
        private @Nullable Long percentile(long count, double p) {
            if (count == 0) {
                return null;
            }
            long rank = Math.max(1, (long) Math.ceil(p * count));
            long seen = 0;
            for (var e : durationBuckets.entrySet()) {
                seen += e.getValue();
                if (seen >= rank) {
                    long bound = RunRollups.upperBound(e.getKey());
                    return maxDurationMs >= 0 ? Math.min(bound, maxDurationMs) : bound;
                }
            }
            return maxDurationMs;
        }

        private static Map<String, Long> zeroStatuses() {
            Map<String, Long> m = new LinkedHashMap<>();
            STATUSES.forEach(s -> m.put(s, 0L));
            return m;
        }
    }
}
