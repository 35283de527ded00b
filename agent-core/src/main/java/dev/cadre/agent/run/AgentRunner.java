package dev.cadre.agent.run;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.AgentTree;
import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.journal.InMemoryToolJournal;
import dev.cadre.agent.journal.ToolJournal;
import dev.cadre.agent.model.TokenEstimator;
import dev.cadre.agent.run.internal.AgentExecution;
import dev.cadre.agent.run.internal.CancelScope;
import dev.cadre.agent.run.internal.CostLedger;
import dev.cadre.agent.run.internal.RunScope;
import dev.cadre.agent.run.internal.Runtime;
import dev.cadre.agent.run.internal.Spans;
import dev.cadre.agent.run.internal.StopReason;
import dev.cadre.agent.telemetry.AgentTelemetryListener;
import dev.cadre.agent.telemetry.TelemetryOptions;
import dev.cadre.agent.tool.RiskPolicy;
import dev.cadre.agent.tool.output.ToolOutputs;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Starts and resumes runs of the agents of an {@link AgentTree}. Thread-safe; one per platform is
 * enough. Each run executes on its own virtual thread, its concurrent tool calls and subagents on
 * further virtual threads. Close it to stop its timeout timer.
 *
 * <pre>{@code
 * AgentRunner runner = AgentRunner.builder(tree)
 *         .openTelemetry(openTelemetry)
 *         .approvalGate(gate)
 *         .journal(journal)
 *         .subagentLimiter(platformLimiter)
 *         .build();
 * RunHandle handle = runner.start(RunRequest.of("run-1", "orchestrator", "why is api slow?"), observer);
 * RunOutcome outcome = handle.outcome().join();
 * }</pre>
 */
public final class AgentRunner implements AutoCloseable {

    private final Runtime runtime;
    private final ScheduledThreadPoolExecutor timer;

    private AgentRunner(Builder b) {
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "cadre-agent-timeouts");
            t.setDaemon(true);
            return t;
        });
        // Most timeouts are cancelled because the agent finished first; do not keep them queued.
        timer.setRemoveOnCancelPolicy(true);
        this.runtime = new Runtime(
                b.tree,
                new Spans(b.openTelemetry, b.telemetryOptions),
                b.listener,
                b.approvalGate,
                b.journal,
                b.limiter,
                b.limits,
                b.sharedInputs,
                b.estimator,
                timer,
                Map.of(),
                b.toolOutputs,
                b.risks);
    }

    /** A builder for a runner over these agents. */
    public static Builder builder(AgentTree tree) {
        return new Builder(tree);
    }

    /** The agents this runner can start. */
    public AgentTree tree() {
        return runtime.tree();
    }

    /**
     * Starts a run of {@code request.agent()} on a new virtual thread.
     *
     * @throws IllegalArgumentException when the agent is unknown
     */
    public RunHandle start(RunRequest request, RunObserver observer) {
        return start(request, observer, Context.root());
    }

    /**
     * Starts a run whose root {@code invoke_agent} span is a child of {@code parent} — the trace
     * context of whoever asked for the run (an HTTP or A2A caller), so its trace continues here.
     */
    public RunHandle start(RunRequest request, RunObserver observer, Context parent) {
        AgentSpec spec = runtime.tree().spec(request.agent());
        String input = request.context() == null || request.context().isBlank()
                ? request.input()
                : request.input() + "\n\nContext:\n" + request.context();
        CancelScope scope = new CancelScope(null);
        RunScope run = newRun(request.runId(), observer, spec, new CostLedger(request.maxCost(), 0));
        AgentExecution execution = AgentExecution.root(runtime, run, spec, request.sessionId(), input, scope);
        return launch(request.runId(), request.sessionId(), spec.name(), scope, () -> execution.run(parent, true));
    }

    /** Starts a run and waits for its outcome. */
    public RunOutcome run(RunRequest request, RunObserver observer) throws InterruptedException {
        RunHandle handle = start(request, observer);
        try {
            return handle.outcome().get();
        } catch (InterruptedException e) {
            handle.cancel();
            throw e;
        } catch (ExecutionException e) {
            throw new IllegalStateException("a run outcome never completes exceptionally", e);
        }
    }

    /**
     * Continues a run from a checkpoint: calls still pending are executed (side-effecting ones guarded
     * by the journal, approvals asked again for the same call ids), then the loop goes on with the
     * budget that was left.
     */
    public RunHandle resume(Checkpoint checkpoint, RunObserver observer) {
        return resume(checkpoint, observer, Context.root());
    }

    /** Continues a run from a checkpoint under the caller's trace context {@code parent}. */
    public RunHandle resume(Checkpoint checkpoint, RunObserver observer, Context parent) {
        return resume(checkpoint, observer, parent, null, 0);
    }

    /**
     * Continues a run from a checkpoint with its budget in currency ({@code maxCost}, null for none), of
     * which {@code costSoFar} was spent before.
     */
    public RunHandle resume(
            Checkpoint checkpoint, RunObserver observer, Context parent, @Nullable Double maxCost, double costSoFar) {
        AgentSpec spec = runtime.tree().spec(checkpoint.agent());
        CancelScope scope = new CancelScope(null);
        RunScope run = newRun(checkpoint.runId(), observer, spec, new CostLedger(maxCost, costSoFar));
        AgentExecution execution = AgentExecution.resumed(runtime, run, spec, checkpoint, scope);
        return launch(
                checkpoint.runId(), checkpoint.sessionId(), spec.name(), scope, () -> execution.run(parent, false));
    }

    private RunScope newRun(String runId, RunObserver observer, AgentSpec spec, CostLedger costs) {
        return new RunScope(
                runId, observer, new Semaphore(runtime.limits().maxConcurrentSubagents()), spec.maxDepth(), costs);
    }

    private RunHandle launch(
            String runId, String sessionId, String agent, CancelScope scope, Supplier<AgentExecution.LoopResult> body) {
        CompletableFuture<RunOutcome> outcome = new CompletableFuture<>();
        Thread.ofVirtual().name("cadre-run-" + runId).start(() -> {
            long t0 = System.nanoTime();
            try {
                outcome.complete(outcome(runId, sessionId, agent, body.get()));
            } catch (Throwable t) {
                outcome.complete(new RunOutcome.Failed(
                        runId,
                        sessionId,
                        agent,
                        OutcomeStatus.FAILED,
                        FailureCode.INTERNAL_ERROR.failure(String.valueOf(t)),
                        AgentWork.none(Duration.ofNanos(System.nanoTime() - t0))));
            }
        });
        return new RunHandle() {
            @Override
            public String runId() {
                return runId;
            }

            @Override
            public CompletableFuture<RunOutcome> outcome() {
                return outcome;
            }

            @Override
            public void cancel() {
                scope.stop(new StopReason(
                        OutcomeStatus.CANCELLED, FailureCode.CANCELLED.failure("run cancelled by request")));
            }
        };
    }

    private static RunOutcome outcome(String runId, String sessionId, String agent, AgentExecution.LoopResult r) {
        if (r.status() == OutcomeStatus.OK) {
            return new RunOutcome.Completed(runId, sessionId, agent, r.text() == null ? "" : r.text(), r.work());
        }
        // The loop ends every other status with a failure; should one ever be missing, say so, never hide it.
        Failure failure = r.failure() != null
                ? r.failure()
                : FailureCode.INTERNAL_ERROR.failure("run ended " + r.status().wireName() + " without a failure");
        return new RunOutcome.Failed(runId, sessionId, agent, r.status(), failure, r.work());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    /** Configures an {@link AgentRunner}; everything but the tree has a safe default. */
    public static final class Builder {
        private final AgentTree tree;
        private OpenTelemetry openTelemetry = OpenTelemetry.noop();
        private TelemetryOptions telemetryOptions = TelemetryOptions.DEFAULT;
        private AgentTelemetryListener listener = AgentTelemetryListener.NONE;
        private ApprovalGate approvalGate = ApprovalGate.REJECT_ALL;
        private ToolJournal journal = new InMemoryToolJournal();
        private SubagentLimiter limiter = SubagentLimiter.unlimited();
        private RunLimits limits = RunLimits.DEFAULT;
        private SharedInputs sharedInputs = SharedInputs.NONE;
        private TokenEstimator estimator = TokenEstimator.CHARACTERS_DIV_4;
        private ToolOutputs toolOutputs = ToolOutputs.inMemory();
        private RiskPolicy risks = RiskPolicy.DECLARED;

        private Builder(AgentTree tree) {
            this.tree = Objects.requireNonNull(tree, "tree");
        }

        /** Where spans go (default: no-op). */
        public Builder openTelemetry(OpenTelemetry value) {
            this.openTelemetry = Objects.requireNonNull(value);
            return this;
        }

        /** Content capture and redaction for spans (default: nothing captured). */
        public Builder telemetryOptions(TelemetryOptions value) {
            this.telemetryOptions = Objects.requireNonNull(value);
            return this;
        }

        /** Metrics-neutral callbacks (default: none). */
        public Builder telemetryListener(AgentTelemetryListener value) {
            this.listener = Objects.requireNonNull(value);
            return this;
        }

        /** Where {@code APPROVE} calls wait (default: reject everything). */
        public Builder approvalGate(ApprovalGate value) {
            this.approvalGate = Objects.requireNonNull(value);
            return this;
        }

        /** Journal of side-effecting calls (default: a new in-memory journal). */
        public Builder journal(ToolJournal value) {
            this.journal = Objects.requireNonNull(value);
            return this;
        }

        /** The platform-wide cap on concurrent subagents, shared between runners (default: none). */
        public Builder subagentLimiter(SubagentLimiter value) {
            this.limiter = Objects.requireNonNull(value);
            return this;
        }

        /** Per-run limits (default {@link RunLimits#DEFAULT}). */
        public Builder limits(RunLimits value) {
            this.limits = Objects.requireNonNull(value);
            return this;
        }

        /** Resolves delegations' {@code memory_keys} (default: none available). */
        public Builder sharedInputs(SharedInputs value) {
            this.sharedInputs = Objects.requireNonNull(value);
            return this;
        }

        /** Input-token estimate used to refuse calls that would not fit the budget. */
        public Builder tokenEstimator(TokenEstimator value) {
            this.estimator = Objects.requireNonNull(value);
            return this;
        }

        /**
         * The tool output budget and where capped outputs are kept (default: 16 KiB to the model, kept
         * in memory, credentials masked).
         */
        public Builder toolOutputs(ToolOutputs value) {
            this.toolOutputs = Objects.requireNonNull(value);
            return this;
        }

        /** The risk each tool call runs at, per run (default: the tool's declared risk). */
        public Builder riskPolicy(RiskPolicy value) {
            this.risks = Objects.requireNonNull(value);
            return this;
        }

        /** The runner. */
        public AgentRunner build() {
            return new AgentRunner(this);
        }
    }
}
