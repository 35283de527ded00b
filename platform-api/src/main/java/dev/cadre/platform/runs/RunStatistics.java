package dev.cadre.platform.runs;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
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

    /** Accumulates one pass over a window's runs. */
    static final class WindowTally {
        private final Map<Instant, Map<String, Long>> perHour = new TreeMap<>();
        private final Map<String, Long> byStatus = zeroStatuses();
        private final Map<String, long[]> byAgent = new TreeMap<>();
        private final Map<String, Long> byCategory = new TreeMap<>();
        private long[] durations = new long[256];
        private int durationCount;
        private long total;

        WindowTally(Instant from, Instant to) {
            for (Instant h = from.truncatedTo(ChronoUnit.HOURS); !h.isAfter(to); h = h.plus(1, ChronoUnit.HOURS)) {
                perHour.put(h, zeroStatuses());
            }
        }

        void add(
                String agent,
                String status,
                @Nullable String category,
                long inputTokens,
                long outputTokens,
                Instant created,
                @Nullable Instant started,
                @Nullable Instant finished) {
            long durationMs = started == null || finished == null
                    ? -1
                    : Duration.between(started, finished).toMillis();
            total++;
            byStatus.merge(status, 1L, Long::sum);
            perHour.computeIfAbsent(created.truncatedTo(ChronoUnit.HOURS), k -> zeroStatuses())
                    .merge(status, 1L, Long::sum);
            long[] t = byAgent.computeIfAbsent(agent, k -> new long[3]);
            t[0]++;
            t[1] += inputTokens;
            t[2] += outputTokens;
            if (category != null && !status.equals("completed")) {
                byCategory.merge(category, 1L, Long::sum);
            }
            if (durationMs >= 0 && TERMINAL.contains(status)) {
                if (durationCount == durations.length) {
                    durations = Arrays.copyOf(durations, durations.length * 2);
                }
                durations[durationCount++] = durationMs;
            }
        }

        Window window() {
            long ended = TERMINAL.stream().mapToLong(byStatus::get).sum();
            Double success = ended == 0 ? null : (double) byStatus.get("completed") / ended;
            long[] sorted = Arrays.copyOf(durations, durationCount);
            Arrays.sort(sorted);
            Durations duration = new Durations(
                    percentile(sorted, 0.50),
                    percentile(sorted, 0.95),
                    sorted.length == 0 ? null : sorted[sorted.length - 1],
                    sorted.length);
            List<AgentTokens> agents = new ArrayList<>();
            byAgent.forEach((a, t) -> agents.add(new AgentTokens(a, t[0], t[1], t[2])));
            agents.sort((x, y) -> Long.compare(y.inputTokens() + y.outputTokens(), x.inputTokens() + x.outputTokens()));
            List<CategoryCount> categories = new ArrayList<>();
            byCategory.forEach((c, k) -> categories.add(new CategoryCount(c, k)));
            categories.sort((x, y) -> Long.compare(y.count(), x.count()));
            return new Window(total, byStatus, perHour, success, duration, agents, categories);
        }

        /** Nearest-rank percentile. */
        private static @Nullable Long percentile(long[] sorted, double p) {
            if (sorted.length == 0) {
                return null;
            }
            int rank = (int) Math.ceil(p * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
        }

        private static Map<String, Long> zeroStatuses() {
            Map<String, Long> m = new LinkedHashMap<>();
            STATUSES.forEach(s -> m.put(s, 0L));
            return m;
        }
    }
}
