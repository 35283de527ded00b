package dev.cadre.platform.observability;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.telemetry.AgentTelemetryListener;
import dev.cadre.memory.MemoryListener;
import dev.cadre.platform.agents.AgentCatalog;
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
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Cadre's Prometheus metrics (names documented in docs/observability.md and used by the Grafana
 * dashboard): runs, agents, tokens, tools, failures by category, memory, approvals, and the
 * evaluation counters — delegations, useful results and misroutes — from which dashboards compute
 * completion rate, misroute rate and collaboration efficiency. Labels never carry run, trace or
 * conversation ids. Counters whose label values are a closed set (the configured agents and workers
 * times the statuses, outcomes and failure categories) exist at zero from start-up, so {@code rate()}
 * and alert expressions have a series before the first event. A cancel is not a failure; a call that
 * ran out of time counts with outcome {@code timeout}.
 */
@Component
public class CadreMetrics
        implements AgentTelemetryListener,
                RunExecutor.RunLifecycleListener,
                MemoryListener,
                ApprovalService.ApprovalListener,
                dev.cadre.platform.runs.WorkflowRuns.StepListener,
                SmartInitializingSingleton {

    /** The statuses a run ends with, as {@code cadre_runs_total} labels them. */
    private static final List<RunStatus> RUN_ENDS =
            List.of(RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELED, RunStatus.REJECTED);

    /** A worker answer that says it cannot do the task counts as a misroute, like no answer at all. */
    private static final Pattern DECLINED = Pattern.compile(
            "(?i)\\b(cannot help|can't help|not (able|my job|in my scope)|outside (of )?my scope|declin(e|ed|ing)|wrong (agent|worker))\\b");

    private final MeterRegistry registry;
    private final Clock clock;
    private final ObjectProvider<AgentCatalog> catalog;
    private final Set<String> namespaceLabels;

    CadreMetrics(
            MeterRegistry registry,
            Clock clock,
            ObjectProvider<AgentCatalog> catalog,
            @Value("${cadre.metrics.memory-namespaces:incidents}") List<String> namespaceLabels) {
        this.registry = registry;
        this.clock = clock;
        this.catalog = catalog;
        this.namespaceLabels = Set.copyOf(namespaceLabels);
    }

    /** The label of every memory namespace outside the configured set. */
    static final String OTHER_NAMESPACE = "other";

    /**
     * A namespace comes from the request (or the model): used as a label as it is, every unknown
     * namespace a client names would mint new series without bound. Only the configured ones are
     * labels of their own.
     */
    private String namespaceLabel(String namespace) {
        return namespaceLabels.contains(namespace) ? namespace : OTHER_NAMESPACE;
    }

    /** Before the web server starts (so before the first scrape): every closed-set series at zero. */
    @Override
    public void afterSingletonsInstantiated() {
        AgentCatalog agents = catalog.getIfAvailable();
        if (agents != null) {
            registerKnown(agents.specs());
            for (var w : agents.workflows()) {
                for (RunStatus status : RUN_ENDS) {
                    runs(w.name(), status.wire());
                }
            }
        }
    }

    /** A workflow's step ended: {@code cadre_workflow_steps_total{workflow, agent, outcome}}. */
    @Override
    public void stepFinished(String workflow, dev.cadre.agent.workflow.StepOutcome step) {
        Counter.builder("cadre.workflow.steps")
                .description("Steps of workflow runs, by workflow, agent and outcome")
                .tags(
                        "workflow",
                        workflow,
                        "agent",
                        step.agent(),
                        "outcome",
                        outcome(
                                step.status(),
                                step.failure() == null ? null : step.failure().category()))
                .register(registry)
                .increment();
    }

    /** Registers, at zero, the counters of these agents and of the workers they delegate to. */
    void registerKnown(Collection<AgentSpec> specs) {
        Set<String> workers = new LinkedHashSet<>();
        for (AgentSpec spec : specs) {
            workers.addAll(spec.workers());
            for (RunStatus status : RUN_ENDS) {
                runs(spec.name(), status.wire());
            }
            for (OutcomeStatus status : OutcomeStatus.values()) {
                invocations(spec.name(), status.wireName());
            }
            for (FailureCategory category : FailureCategory.values()) {
                failures(category, spec.name());
            }
        }
        for (String worker : workers) {
            for (OutcomeStatus status : OutcomeStatus.values()) {
                delegations(worker, status.wireName());
            }
            misroutes(worker);
            useful(worker);
        }
    }

    /**
     * The {@code outcome} label: the status, except that a call which failed for lack of time (a
     * provider that did not answer, a tool that timed out) is a {@code timeout} like an agent that
     * ran out of its own time budget.
     */
    static String outcome(OutcomeStatus status, @Nullable FailureCategory category) {
        return status == OutcomeStatus.FAILED && category == FailureCategory.TIMEOUT_ERROR
                ? OutcomeStatus.TIMEOUT.wireName()
                : status.wireName();
    }

    private Counter runs(String agent, String status) {
        return Counter.builder("cadre.runs")
                .description("Runs that ended, by root agent and final status")
                .tags("agent", agent, "status", status)
                .register(registry);
    }

    private Counter invocations(String agent, String outcome) {
        return Counter.builder("cadre.agent.invocations")
                .description("Agent loop invocations (orchestrators and subagents), by outcome")
                .tags("agent", agent, "outcome", outcome)
                .register(registry);
    }

    private Counter failures(FailureCategory category, String agent) {
        return Counter.builder("cadre.failures")
                .description("Failed agent invocations and tool calls, by failure category and agent")
                .tags("category", category.name(), "agent", agent)
                .register(registry);
    }

    private Counter delegations(String worker, String outcome) {
        return Counter.builder("cadre.delegations")
                .description("Worker calls (delegations), by worker and outcome")
                .tags("worker", worker, "outcome", outcome)
                .register(registry);
    }

    private Counter misroutes(String worker) {
        return Counter.builder("cadre.misroutes")
                .description("Delegations the worker returned no result for, declined, or could not take")
                .tags("worker", worker)
                .register(registry);
    }

    private Counter useful(String worker) {
        return Counter.builder("cadre.delegations.useful")
                .description("Delegations that returned a usable result")
                .tags("worker", worker)
                .register(registry);
    }

    @Override
    public void finished(RunRecord run, RunOutcome outcome, RunStatus status) {
        String s = status.wire();
        runs(run.agent(), s).increment();
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
            delegations(
                            s.worker(),
                            outcome(
                                    s.status(),
                                    s.error() == null ? null : s.error().category()))
                    .increment();
            if (misrouted(s)) {
                misroutes(s.worker()).increment();
            } else if (s.status() == OutcomeStatus.OK) {
                useful(s.worker()).increment();
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
        String outcome = outcome(e.status(), e.category());
        invocations(e.agent(), outcome).increment();
        Timer.builder("cadre.agent.duration")
                .description("Duration of agent loop invocations")
                .tags("agent", e.agent(), "outcome", outcome)
                .publishPercentileHistogram()
                .register(registry)
                .record(e.duration());
        if (failed(e.status(), e.category())) {
            failures(e.category(), e.agent()).increment();
        }
    }

    /** A cancel is somebody's decision, not a failure, whatever category the stopped call carries. */
    private static boolean failed(OutcomeStatus status, @Nullable FailureCategory category) {
        return category != null && status != OutcomeStatus.CANCELLED;
    }

    @Override
    public void toolCallFinished(ToolCallFinished e) {
        Counter.builder("cadre.tool.calls")
                .description("Tool calls (worker calls included), by outcome")
                .tags("tool", e.tool(), "outcome", outcome(e.status(), e.category()))
                .register(registry)
                .increment();
        Timer.builder("cadre.tool.duration")
                .description("Duration of tool calls")
                .tags("tool", e.tool())
                .publishPercentileHistogram()
                .register(registry)
                .record(e.duration());
        // A failed worker call is counted as its agent's failed invocation; count other tools here.
        if (failed(e.status(), e.category()) && !e.worker()) {
            failures(e.category(), e.agent()).increment();
        }
    }

    /**
     * A delegation refused before the worker started (unknown worker, malformed delegation, depth,
     * cycle) is a delegation that failed and a misroute; it has no subagent outcome in the run, so it
     * is counted here, when it happens. The worker label is an agent of the tree (a closed set).
     */
    @Override
    public void delegationRefused(DelegationRefused e) {
        delegations(e.worker(), OutcomeStatus.FAILED.wireName()).increment();
        misroutes(e.worker()).increment();
    }

    @Override
    public void modelCallFinished(ModelCallFinished e) {
        String model = e.model().toString();
        tokens(e.agent(), model, "input", e.usage().inputTokens());
        tokens(e.agent(), model, "output", e.usage().outputTokens());
        // Part of the input above, counted apart so the input/output sum stays the total.
        cachedTokens(e.agent(), model, "read", e.usage().cacheReadTokens());
        cachedTokens(e.agent(), model, "write", e.usage().cacheWriteTokens());
        if (e.cost() > 0) {
            Counter.builder("cadre.cost")
                    .description(
                            "What model calls cost, in the price table's currency (cadre.models.prices), by agent and model")
                    .tags("agent", e.agent(), "model", model)
                    .register(registry)
                    .increment(e.cost());
        }
    }

    private void tokens(String agent, String model, String type, long n) {
        Counter.builder("cadre.tokens")
                .description("Model tokens, by agent, model and type (input|output)")
                .tags("agent", agent, "model", model, "type", type)
                .register(registry)
                .increment(n);
    }

    private void cachedTokens(String agent, String model, String type, long n) {
        if (n > 0) {
            Counter.builder("cadre.tokens.cached")
                    .description("Input tokens the provider read from (read) or wrote to (write) its prompt cache;"
                            + " already counted in cadre_tokens_total{type=\"input\"}")
                    .tags("agent", agent, "model", model, "type", type)
                    .register(registry)
                    .increment(n);
        }
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
