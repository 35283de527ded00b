package dev.cadre.platform.observability;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.telemetry.AgentTelemetryListener;
import dev.cadre.memory.MemoryListener;
import dev.cadre.platform.approvals.ApprovalRecord;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.runs.RunExecutor;
import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.runs.RunStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Cadre's Prometheus metrics (names documented in docs/observability.md and used by the Grafana
 * dashboard): runs, agents, tokens, tools, failures by category, memory, approvals, and the
 * evaluation counters — delegations, useful results and misroutes — from which dashboards compute
 * completion rate, misroute rate and collaboration efficiency. Labels never carry run, trace or
 * conversation ids.
 */
@Component
public class CadreMetrics
        implements AgentTelemetryListener,
                RunExecutor.RunLifecycleListener,
                MemoryListener,
                ApprovalService.ApprovalListener {

    /** A worker answer that says it cannot do the task counts as a misroute, like no answer at all. */
    private static final Pattern DECLINED = Pattern.compile(
            "(?i)\\b(cannot help|can't help|not (able|my job|in my scope)|outside (of )?my scope|declin(e|ed|ing)|wrong (agent|worker))\\b");

    /** The label of every memory namespace outside the configured set. */
    static final String OTHER_NAMESPACE = "other";

    private final MeterRegistry registry;
    private final Clock clock;
    private final Set<String> namespaceLabels;

    CadreMetrics(
            MeterRegistry registry,
            Clock clock,
            @Value("${cadre.metrics.memory-namespaces:incidents}") List<String> namespaceLabels) {
        this.registry = registry;
        this.clock = clock;
        this.namespaceLabels = Set.copyOf(namespaceLabels);
    }

    /**
     * A namespace comes from the request (or the model): used as a label as it is, every unknown
     * namespace a client names would mint new series without bound. Only the configured ones are
     * labels of their own.
     */
    private String namespaceLabel(String namespace) {
        return namespaceLabels.contains(namespace) ? namespace : OTHER_NAMESPACE;
    }

    @Override
    public void finished(RunRecord run, RunOutcome outcome, RunStatus status) {
        String s = status.wire();
        Counter.builder("cadre.runs")
                .description("Runs that ended, by root agent and final status")
                .tags("agent", run.agent(), "status", s)
                .register(registry)
                .increment();
        Timer.builder("cadre.run.duration")
                .description("Time from submission to the end of a run")
                .tags("agent", run.agent(), "status", s)
                .publishPercentileHistogram()
                .register(registry)
                .record(Duration.between(run.createdAt(), clock.instant()));
        countDelegations(outcome.subagents());
    }

    private void countDelegations(List<SubagentOutcome> subagents) {
        for (SubagentOutcome s : subagents) {
            Counter.builder("cadre.delegations")
                    .description("Worker calls (delegations), by worker and outcome")
                    .tags("worker", s.worker(), "outcome", s.status().wireName())
                    .register(registry)
                    .increment();
            if (misrouted(s)) {
                Counter.builder("cadre.misroutes")
                        .description("Delegations the worker returned no result for, declined, or could not take")
                        .tags("worker", s.worker())
                        .register(registry)
                        .increment();
            } else if (s.status() == OutcomeStatus.OK) {
                Counter.builder("cadre.delegations.useful")
                        .description("Delegations that returned a usable result")
                        .tags("worker", s.worker())
                        .register(registry)
                        .increment();
            }
            countDelegations(s.subagents());
        }
    }

    static boolean misrouted(SubagentOutcome s) {
        if (s.error() != null && s.error().category() == FailureCategory.ORCHESTRATION_ERROR) {
            return true;
        }
        if (s.status() != OutcomeStatus.OK) {
            return false;
        }
        String summary = s.summary();
        return summary == null || summary.isBlank() || DECLINED.matcher(summary).find();
    }

    @Override
    public void agentFinished(AgentFinished e) {
        String outcome = e.status().wireName();
        Counter.builder("cadre.agent.invocations")
                .description("Agent loop invocations (orchestrators and subagents), by outcome")
                .tags("agent", e.agent(), "outcome", outcome)
                .register(registry)
                .increment();
        Timer.builder("cadre.agent.duration")
                .description("Duration of agent loop invocations")
                .tags("agent", e.agent(), "outcome", outcome)
                .publishPercentileHistogram()
                .register(registry)
                .record(e.duration());
        if (e.category() != null) {
            failure(e.category(), e.agent());
        }
    }

    private void failure(FailureCategory category, String agent) {
        Counter.builder("cadre.failures")
                .description("Failed agent invocations and tool calls, by failure category and agent")
                .tags("category", category.name(), "agent", agent)
                .register(registry)
                .increment();
    }

    @Override
    public void toolCallFinished(ToolCallFinished e) {
        Counter.builder("cadre.tool.calls")
                .description("Tool calls (worker calls included), by outcome")
                .tags("tool", e.tool(), "outcome", e.status().wireName())
                .register(registry)
                .increment();
        Timer.builder("cadre.tool.duration")
                .description("Duration of tool calls")
                .tags("tool", e.tool())
                .publishPercentileHistogram()
                .register(registry)
                .record(e.duration());
        // A failed worker call is counted as its agent's failed invocation; count other tools here.
        if (e.category() != null && !e.worker()) {
            failure(e.category(), e.agent());
        }
    }

    @Override
    public void modelCallFinished(ModelCallFinished e) {
        String model = e.model().toString();
        tokens(e.agent(), model, "input", e.usage().inputTokens());
        tokens(e.agent(), model, "output", e.usage().outputTokens());
    }

    private void tokens(String agent, String model, String type, long n) {
        Counter.builder("cadre.tokens")
                .description("Model tokens, by agent, model and type (input|output)")
                .tags("agent", agent, "model", model, "type", type)
                .register(registry)
                .increment(n);
    }

    @Override
    public void onOperation(Operation op) {
        String outcome = op.outcome().name().toLowerCase(Locale.ROOT);
        Counter.builder("cadre.memory.operations")
                .description("Shared-memory operations, by namespace, operation and outcome")
                .tags(
                        "namespace",
                        namespaceLabel(op.namespace()),
                        "op",
                        op.op().name().toLowerCase(Locale.ROOT),
                        "outcome",
                        outcome)
                .register(registry)
                .increment();
        if (op.conflict()) {
            Counter.builder("cadre.memory.conflicts")
                    .description("Shared-memory writes refused because the entry had changed")
                    .tags("namespace", namespaceLabel(op.namespace()))
                    .register(registry)
                    .increment();
        }
    }

    @Override
    public void decided(ApprovalRecord record, Duration waited) {
        Timer.builder("cadre.approval.decision")
                .description("Time from an approval request to its decision (or expiry)")
                .publishPercentileHistogram()
                .register(registry)
                .record(waited);
    }
}
