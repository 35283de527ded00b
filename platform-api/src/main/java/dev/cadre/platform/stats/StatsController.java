package dev.cadre.platform.stats;

import dev.cadre.platform.web.ApiProblem;
import java.sql.Timestamp;
import java.time.Clock;
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
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The console's overview and agent figures over a recent window, computed from the run, span and
 * approval tables. Everything JSON-shaped (span attributes, subagent outcomes) is read in Java so
 * the same queries work on PostgreSQL and the embedded H2.
 */
@RestController
@RequestMapping("/api/v1/stats")
class StatsController {

    static final int MAX_HOURS = 24 * 31;
    static final List<String> STATUSES =
            List.of("submitted", "working", "input-required", "completed", "failed", "canceled", "rejected");
    private static final List<String> TERMINAL = List.of("completed", "failed", "canceled", "rejected");

    private final JdbcClient jdbc;
    private final JsonMapper json;
    private final Clock clock;

    StatsController(JdbcClient jdbc, JsonMapper json, Clock clock) {
        this.jdbc = jdbc;
        this.json = json;
        this.clock = clock;
    }

    /** One hour of submitted runs, counted by their status now. */
    record HourView(Instant hour, Map<String, Long> byStatus, long total) {}

    record DurationView(
            @Nullable Long p50Ms,
            @Nullable Long p95Ms,
            @Nullable Long maxMs,
            long count) {}

    record AgentTokensView(String agent, long runs, long inputTokens, long outputTokens) {}

    record ModelTokensView(String agent, String model, long calls, long inputTokens, long outputTokens) {}

    record CategoryView(String category, long count) {}

    record OverviewView(
            Instant from,
            Instant to,
            int hours,
            long runs,
            Map<String, Long> runsByStatus,
            List<HourView> runsPerHour,
            @Nullable Double successRate,
            DurationView duration,
            List<AgentTokensView> tokensByAgent,
            List<ModelTokensView> tokensByModel,
            List<CategoryView> failuresByCategory,
            long approvalsWaiting,
            long runsQueued,
            long runsWorking) {}

    record Share(long delegations, long misrouted, @Nullable Double rate) {}

    /**
     * {@code asOrchestrator}: delegations this agent made and how many went wrong;
     * {@code asWorker}: delegations it received.
     */
    record AgentRoutingView(String agent, Share asOrchestrator, Share asWorker) {}

    record RoutingView(Instant from, Instant to, int hours, List<AgentRoutingView> agents) {}

    @GetMapping("/overview")
    OverviewView overview(@RequestParam(defaultValue = "24") int hours) {
        Instant to = clock.instant();
        Instant from = from(to, hours);
        Window w = new Window(from, to);
        jdbc.sql("SELECT agent, status, failure_category, input_tokens, output_tokens, created_at, started_at,"
                        + " finished_at FROM cadre_run WHERE created_at >= ? AND created_at <= ?")
                .params(Timestamp.from(from), Timestamp.from(to))
                .query(rs -> {
                    Timestamp started = rs.getTimestamp("started_at");
                    Timestamp finished = rs.getTimestamp("finished_at");
                    w.add(
                            rs.getString("agent"),
                            rs.getString("status"),
                            rs.getString("failure_category"),
                            rs.getLong("input_tokens"),
                            rs.getLong("output_tokens"),
                            rs.getTimestamp("created_at").toInstant(),
                            started == null || finished == null
                                    ? -1
                                    : Duration.between(started.toInstant(), finished.toInstant())
                                            .toMillis());
                });

        // Model tokens come from the chat spans: a run's total cannot tell which model spent them.
        Map<String, long[]> byModel = new TreeMap<>();
        jdbc.sql("SELECT attributes FROM cadre_span WHERE start_nanos >= ? AND name LIKE 'chat %'")
                .param(from.getEpochSecond() * 1_000_000_000L + from.getNano())
                .query(rs -> {
                    JsonNode a = json.readTree(rs.getString("attributes"));
                    String agent = a.path("gen_ai.agent.name").asString("unknown");
                    String provider = a.path("gen_ai.provider.name").asString("");
                    String model = a.path("gen_ai.request.model").asString("unknown");
                    long[] t = byModel.computeIfAbsent(
                            agent + "\t" + (provider.isEmpty() ? model : provider + ":" + model), k -> new long[3]);
                    t[0]++;
                    t[1] += a.path("gen_ai.usage.input_tokens").asLong(0);
                    t[2] += a.path("gen_ai.usage.output_tokens").asLong(0);
                });
        List<ModelTokensView> models = new ArrayList<>();
        byModel.forEach((k, t) -> {
            String[] parts = k.split("\t", 2);
            models.add(new ModelTokensView(parts[0], parts[1], t[0], t[1], t[2]));
        });
        models.sort((x, y) -> Long.compare(y.inputTokens() + y.outputTokens(), x.inputTokens() + x.outputTokens()));

        long approvals = jdbc.sql("SELECT COUNT(*) FROM cadre_approval WHERE status = 'pending'")
                .query(Long.class)
                .single();
        Map<String, Long> live = new LinkedHashMap<>();
        jdbc.sql(
                        "SELECT status, COUNT(*) AS n FROM cadre_run WHERE status IN ('submitted', 'working', 'input-required')"
                                + " GROUP BY status")
                .query(rs -> {
                    live.put(rs.getString("status"), rs.getLong("n"));
                });
        return w.view(
                hours,
                models,
                approvals,
                live.getOrDefault("submitted", 0L),
                live.getOrDefault("working", 0L) + live.getOrDefault("input-required", 0L));
    }

    /**
     * Misroutes per agent: a delegation is misrouted when it failed with ORCHESTRATION_ERROR (wrong
     * or unknown worker, bad delegation) or came back ok with an empty summary (the worker could not
     * make sense of the task). Nested delegations count for the worker that made them.
     */
    @GetMapping("/agents")
    RoutingView agents(@RequestParam(defaultValue = "168") int hours) {
        Instant to = clock.instant();
        Instant from = from(to, hours);
        Map<String, long[]> counts = new TreeMap<>();
        jdbc.sql("SELECT agent, subagents FROM cadre_run WHERE created_at >= ? AND created_at <= ?"
                        + " AND subagents IS NOT NULL")
                .params(Timestamp.from(from), Timestamp.from(to))
                .query(rs -> {
                    countDelegations(rs.getString("agent"), json.readTree(rs.getString("subagents")), counts);
                });
        List<AgentRoutingView> agents = new ArrayList<>();
        counts.forEach((agent, c) -> agents.add(new AgentRoutingView(agent, share(c[0], c[1]), share(c[2], c[3]))));
        return new RoutingView(from, to, hours, agents);
    }

    static boolean misrouted(JsonNode delegation) {
        String status = delegation.path("status").asString("");
        if (status.equals("failed")) {
            return "ORCHESTRATION_ERROR"
                    .equals(delegation.path("error").path("category").asString(""));
        }
        return status.equals("ok") && delegation.path("summary").asString("").isBlank();
    }

    private static void countDelegations(String parent, JsonNode subagents, Map<String, long[]> counts) {
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

    private static Share share(long delegations, long misrouted) {
        return new Share(delegations, misrouted, delegations == 0 ? null : (double) misrouted / delegations);
    }

    /** Accumulates one pass over the window's runs. */
    private static final class Window {
        private final Instant from;
        private final Instant to;
        private final Map<Instant, Map<String, Long>> perHour = new TreeMap<>();
        private final Map<String, Long> byStatus = zeroStatuses();
        private final Map<String, long[]> byAgent = new TreeMap<>();
        private final Map<String, Long> byCategory = new TreeMap<>();
        private long[] durations = new long[256];
        private int durationCount;
        private long total;

        Window(Instant from, Instant to) {
            this.from = from;
            this.to = to;
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
                long durationMs) {
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

        OverviewView view(int hours, List<ModelTokensView> models, long approvals, long queued, long working) {
            long ended = TERMINAL.stream().mapToLong(byStatus::get).sum();
            Double success = ended == 0 ? null : (double) byStatus.get("completed") / ended;
            long[] sorted = Arrays.copyOf(durations, durationCount);
            Arrays.sort(sorted);
            DurationView duration = new DurationView(
                    percentile(sorted, 0.50),
                    percentile(sorted, 0.95),
                    sorted.length == 0 ? null : sorted[sorted.length - 1],
                    sorted.length);
            List<HourView> hoursView = new ArrayList<>();
            perHour.forEach((h, m) -> hoursView.add(new HourView(
                    h, m, m.values().stream().mapToLong(Long::longValue).sum())));
            List<AgentTokensView> agents = new ArrayList<>();
            byAgent.forEach((a, t) -> agents.add(new AgentTokensView(a, t[0], t[1], t[2])));
            agents.sort((x, y) -> Long.compare(y.inputTokens() + y.outputTokens(), x.inputTokens() + x.outputTokens()));
            List<CategoryView> categories = new ArrayList<>();
            byCategory.forEach((c, k) -> categories.add(new CategoryView(c, k)));
            categories.sort((x, y) -> Long.compare(y.count(), x.count()));
            return new OverviewView(
                    from,
                    to,
                    hours,
                    total,
                    byStatus,
                    hoursView,
                    success,
                    duration,
                    agents,
                    models,
                    categories,
                    approvals,
                    queued,
                    working);
        }

        /** Nearest-rank percentile. */
        private static @Nullable Long percentile(long[] sorted, double p) {
            if (sorted.length == 0) {
                return null;
            }
            int rank = (int) Math.ceil(p * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
        }
    }

    private static Instant from(Instant to, int hours) {
        if (hours < 1 || hours > MAX_HOURS) {
            throw ApiProblem.badField("hours", "must be between 1 and " + MAX_HOURS)
                    .with("parameter", "hours");
        }
        return to.minus(Duration.ofHours(hours));
    }

    private static Map<String, Long> zeroStatuses() {
        Map<String, Long> m = new LinkedHashMap<>();
        STATUSES.forEach(s -> m.put(s, 0L));
        return m;
    }
}
