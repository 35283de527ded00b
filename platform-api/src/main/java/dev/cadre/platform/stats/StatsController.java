package dev.cadre.platform.stats;

import dev.cadre.platform.approvals.ApprovalStore;
import dev.cadre.platform.observability.TraceStore;
import dev.cadre.platform.runs.RunStatistics;
import dev.cadre.platform.runs.RunStore;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The console's overview and agent figures over a recent window (at most 31 days, in whole hours),
 * asked of the owners of the run, span and approval tables ({@link RunStore}, {@link TraceStore},
 * {@link ApprovalStore}), which answer from hourly rollups; this class only shapes their answers
 * for the API.
 */
@RestController
@RequestMapping("/api/v1/stats")
class StatsController {

    static final int MAX_HOURS = 24 * 31;

    private final RunStore runs;
    private final TraceStore spans;
    private final ApprovalStore approvals;
    private final Clock clock;

    StatsController(RunStore runs, TraceStore spans, ApprovalStore approvals, Clock clock) {
        this.runs = runs;
        this.spans = spans;
        this.approvals = approvals;
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

    @Operation(summary = "Overview figures of the last hours")
    @GetMapping("/overview")
    OverviewView overview(
            @RequestParam(defaultValue = "24") @Schema(minimum = "1", maximum = "" + MAX_HOURS) int hours) {
        Instant to = clock.instant();
        Instant from = from(to, hours);
        RunStatistics.Window w = runs.windowStatistics(from, to);
        List<ModelTokensView> models = spans.modelTokensSince(from).stream()
                .map(m -> new ModelTokensView(m.agent(), m.model(), m.calls(), m.inputTokens(), m.outputTokens()))
                .toList();
        long pending = approvals.countPending();
        RunStatistics.Live live = runs.liveCounts();
        List<HourView> perHour = new ArrayList<>();
        w.byHour()
                .forEach((h, m) -> perHour.add(new HourView(
                        h, m, m.values().stream().mapToLong(Long::longValue).sum())));
        RunStatistics.Durations d = w.durations();
        return new OverviewView(
                from,
                to,
                hours,
                w.total(),
                w.byStatus(),
                perHour,
                w.successRate(),
                new DurationView(d.p50Ms(), d.p95Ms(), d.maxMs(), d.count()),
                w.tokensByAgent().stream()
                        .map(a -> new AgentTokensView(a.agent(), a.runs(), a.inputTokens(), a.outputTokens()))
                        .toList(),
                models,
                w.failuresByCategory().stream()
                        .map(c -> new CategoryView(c.category(), c.count()))
                        .toList(),
                pending,
                live.submitted(),
                live.working() + live.inputRequired());
    }

    /**
     * Misroutes per agent (see {@link RunStatistics#misrouted}). Nested delegations count for the
     * worker that made them.
     */
    @Operation(summary = "Routing figures per agent")
    @GetMapping("/agents")
    RoutingView agents(@RequestParam(defaultValue = "168") @Schema(minimum = "1", maximum = "" + MAX_HOURS) int hours) {
        Instant to = clock.instant();
        Instant from = from(to, hours);
        List<AgentRoutingView> agents = runs.delegationStatistics(from, to).stream()
                .map(a -> new AgentRoutingView(
                        a.agent(), share(a.made(), a.madeMisrouted()), share(a.received(), a.receivedMisrouted())))
                .toList();
        return new RoutingView(from, to, hours, agents);
    }

    private static Share share(long delegations, long misrouted) {
        return new Share(delegations, misrouted, delegations == 0 ? null : (double) misrouted / delegations);
    }

    private static Instant from(Instant to, int hours) {
        if (hours < 1 || hours > MAX_HOURS) {
            throw ApiProblem.badField("hours", "must be between 1 and " + MAX_HOURS)
                    .with("parameter", "hours");
        }
        // On an hour: the figures come from hourly rollups (issue #18), so a window is whole hours,
        // the first one holding now - hours.
        return to.minus(Duration.ofHours(hours)).truncatedTo(ChronoUnit.HOURS);
    }
}
