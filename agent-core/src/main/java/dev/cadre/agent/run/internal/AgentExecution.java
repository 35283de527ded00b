package dev.cadre.agent.run.internal;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.ToolDefinition;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.model.UserMessage;
import dev.cadre.agent.run.AgentWork;
import dev.cadre.agent.run.Checkpoint;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.telemetry.AgentTelemetryListener;
import dev.cadre.agent.tool.ToolResult;
import dev.cadre.agent.tool.output.ToolOutputReadTool;
import dev.cadre.agent.tool.output.ToolOutputs;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One agent loop instance, think - act - observe, for the root agent of a run and, unchanged, for
 * every subagent (DESIGN.md section 2: a subagent is one more instance of the same loop). Spans,
 * budgets, events, checkpoints and cancellation are handled here once, around the loop; a model call
 * is made by {@link ModelCall}, the timeout kept by {@link AgentDeadline}, a turn's calls are acted on
 * by {@link TurnRunner}, each call by {@link ToolCallExecutor}, worker calls by {@link Delegation}, and
 * human decisions by {@link HumanGate}.
 */
public final class AgentExecution {

    private final AgentContext ctx;
    // Shorthands for parts of ctx, read on every iteration.
    private final Runtime rt;
    private final RunScope run;
    private final AgentSpec spec;
    private final String sessionId;
    private final List<ToolDefinition> definitions;
    // The model is told about tool_output_read once one of this agent's results was capped.
    private @Nullable List<ToolDefinition> withReader;
    private final TokenBudget budget;
    private final CancelScope scope;
    private final SessionStream stream;
    private final TurnRunner turns;

    // Loop state: touched by the loop thread only, except usage (the tree's), which finishing workers add to.
    private final List<Message> history;
    private List<ToolCall> pending;
    private int iterations;
    private TokenUsage usage;
    // This loop's own model calls (since it started or resumed: what its span's chat children spent).
    private TokenUsage ownUsage = TokenUsage.ZERO;
    private final List<String> toolsCalled;
    private final Map<String, Integer> subagentCounters;
    private final List<SubagentOutcome> subagents = new ArrayList<>();
    private final long elapsedBeforeNanos;
    private long startNanos;
    private final AgentDeadline deadline;
    private final ModelCall modelCall;

    AgentExecution(AgentContext ctx, StartState start) {
        this.ctx = ctx;
        this.rt = ctx.rt();
        this.run = ctx.run();
        this.spec = ctx.spec();
        this.sessionId = ctx.sessionId();
        this.definitions = rt.definitions(spec, ctx.canDelegate());
        this.budget = ctx.budget();
        this.scope = ctx.scope();
        this.stream = new SessionStream(
                run.runId(), sessionId, ctx.parentSessionId(), spec.name(), run.observer(), start.nextSequence());
        HumanGate gate = new HumanGate(ctx, stream);
        ToolCallExecutor executor = new ToolCallExecutor(ctx, gate, new Delegation(this, ctx, stream, gate));
        this.turns = new TurnRunner(ctx, stream, rt.tree().tools(spec.name()), definitions, executor);
        this.history = new ArrayList<>(start.history());
        this.pending = List.copyOf(start.pending());
        this.iterations = start.iterations();
        this.usage = start.usage();
        this.toolsCalled = new ArrayList<>(start.toolsCalled());
        this.subagentCounters = new HashMap<>(start.subagentCounters());
        for (Message m : history) {
            noteCapped(m);
        }
        this.elapsedBeforeNanos = start.elapsedBeforeNanos();
        this.deadline = new AgentDeadline(ctx, elapsedBeforeNanos);
        this.modelCall = new ModelCall(ctx, stream, rt.tree().model(spec.name()));
    }

    /** A fresh root loop for a run. */
    public static AgentExecution root(
            Runtime rt, RunScope run, AgentSpec spec, String sessionId, String input, CancelScope scope) {
        TokenBudget budget = new TokenBudget(spec.budget().maxTokens(), 0);
        return new AgentExecution(
                AgentContext.root(rt, run, spec, sessionId, budget, scope),
                StartState.fresh(spec.instructions(), input));
    }

    /** A root loop continuing from a checkpoint. */
    public static AgentExecution resumed(Runtime rt, RunScope run, AgentSpec spec, Checkpoint cp, CancelScope scope) {
        TokenBudget budget =
                new TokenBudget(spec.budget().maxTokens(), cp.usage().total());
        return new AgentExecution(AgentContext.root(rt, run, spec, cp.sessionId(), budget, scope), StartState.of(cp));
    }

    /** How a loop ended: a status, the final text when ok, the failure when not, and what it did. */
    public record LoopResult(
            OutcomeStatus status,
            @Nullable String text,
            @Nullable Failure failure,
            AgentWork work) {}

    /**
     * Runs the loop on the current thread until it finishes, fails, runs out of budget or is stopped.
     *
     * @param fresh whether this is the session's start (a {@code run_started} event) or a resume
     */
    public LoopResult run(Context parentContext, boolean fresh) {
        startNanos = System.nanoTime();
        Span span = rt.spans()
                .startAgent(
                        parentContext,
                        spec.name(),
                        run.runId(),
                        sessionId,
                        ctx.parentSessionId(),
                        ctx.depth(),
                        spec.model());
        Context context = parentContext.with(span);
        ScheduledFuture<?> timer = deadline.start(startNanos);
        Ended ended;
        // No interrupt reaches this thread between waits (CancelScope): only the model call below and
        // the waits of its calls are interruptible, never the writes its observer makes in between.
        try {
            if (fresh) {
                String input = history.size() > 1 && history.get(1) instanceof UserMessage u ? u.text() : "";
                stream.emit(m -> new AgentEvent.RunStarted(m, input));
            } else {
                stream.emit(m -> new AgentEvent.Status(m, "resumed", iterations));
            }
            ended = loop(context);
        } catch (RuntimeException e) {
            // A bug in the loop or a port must still end as an outcome, never as a lost thread.
            ended = new Ended(OutcomeStatus.FAILED, null, FailureCode.INTERNAL_ERROR.failure(Errors.describe(e)));
        } finally {
            if (timer != null) {
                timer.cancel(false);
            }
            scope.close();
        }
        Duration duration = Duration.ofNanos(elapsedBeforeNanos + System.nanoTime() - startNanos);
        TokenUsage total = usage();
        Failure failure = ended.failure();
        OutcomeStatus endStatus = ended.status();
        if (endStatus == OutcomeStatus.OK) {
            String text = ended.text() == null ? "" : ended.text();
            stream.emit(m -> new AgentEvent.Done(m, text, total, iterations));
        } else if (failure != null) {
            stream.emit(m -> new AgentEvent.Error(m, endStatus, failure, total, iterations));
        }
        rt.spans().endAgent(span, ended.status().wireName(), failure, ownUsage(), total, iterations, toolsCalled);
        rt.listener()
                .agentFinished(new AgentTelemetryListener.AgentFinished(
                        run.runId(),
                        sessionId,
                        spec.name(),
                        ctx.depth(),
                        ended.status(),
                        failure == null ? null : failure.category(),
                        total,
                        iterations,
                        toolsCalled.size(),
                        duration));
        return new LoopResult(
                ended.status(),
                ended.text(),
                failure,
                new AgentWork(total, iterations, toolsCalled, duration, subagents));
    }

    private record Ended(
            OutcomeStatus status,
            @Nullable String text,
            @Nullable Failure failure) {}

    /** The deadline a worker of this agent inherits: this agent's or an ancestor's, whichever is first. */
    long deadlineForChildren() {
        return deadline.forChildren();
    }

    private Ended loop(Context context) {
        while (true) {
            StopReason stop = scope.stopReason();
            if (stop != null) {
                return stopped(stop);
            }
            if (!pending.isEmpty()) {
                boolean completed = executeTurn(pending, context);
                if (!completed || scope.stopReason() != null) {
                    return stopped(scope.stopReasonOrCancelled());
                }
                pending = List.of();
                checkpoint();
                continue;
            }
            if (iterations >= spec.budget().maxIterations()) {
                return budgetExceeded(
                        FailureCode.ITERATION_BUDGET,
                        "agent '" + spec.name() + "' used its " + spec.budget().maxIterations()
                                + " iterations without finishing");
            }
            List<ToolDefinition> definitions = definitions();
            long estimate = rt.estimator().estimate(history, definitions);
            long available = budget.available();
            if (estimate + 1 > available) {
                return budgetExceeded(
                        FailureCode.TOKEN_BUDGET,
                        "agent '" + spec.name() + "' needs about " + estimate + " input tokens but only " + available
                                + " of its token budget are left");
            }
            if (run.costs().exceeded()) {
                return costBudgetExceeded();
            }
            if (ctx.isRoot()) {
                int next = iterations + 1;
                stream.emit(m -> new AgentEvent.Status(m, "iteration " + next, next));
            }
            ModelRequest request = new ModelRequest(
                    run.runId(),
                    sessionId,
                    spec.name(),
                    spec.model(),
                    history,
                    definitions,
                    available - estimate,
                    deadline.asInstant());
            ModelResponse response;
            switch (modelCall.call(context, request, iterations + 1)) {
                case ModelCall.Answered answered -> response = answered.response();
                case ModelCall.Stopped stoppedCall -> {
                    return stopped(stoppedCall.reason());
                }
                case ModelCall.Failed failed -> {
                    return stopOrFail(failed.failure());
                }
            }
            budget.charge(response.usage().total());
            addOwnUsage(response.usage());
            run.costs().charge(response.cost());
            iterations++;
            if (run.costs().exceeded()) {
                return costBudgetExceeded();
            }
            if (response.truncated()) {
                return budgetExceeded(
                        FailureCode.OUTPUT_TRUNCATED,
                        "agent '" + spec.name() + "': the model's answer was cut at the token budget");
            }
            if (budget.spent() > budget.limit()) {
                return budgetExceeded(
                        FailureCode.TOKEN_BUDGET,
                        "agent '" + spec.name() + "': the model reported more tokens than the budget allowed");
            }
            List<ToolCall> calls = CallHistory.withStableIds(response.toolCalls(), iterations);
            String text = response.text();
            int repeats = calls.isEmpty() ? 0 : CallHistory.timesInARow(history, calls);
            history.add(new AssistantMessage(text, calls));
            if (text != null && !text.isEmpty()) {
                stream.emit(m -> new AgentEvent.TextDelta(m, text));
            }
            if (calls.isEmpty()) {
                return new Ended(OutcomeStatus.OK, text == null ? "" : text, null);
            }
            if (repeats >= rt.limits().maxRepeatedToolCalls()) {
                return repeated(calls, repeats, text, context);
            }
            pending = calls;
            checkpoint();
        }
    }

    /** Stops a model going round in circles: the repeated calls are answered, not run, and the agent fails. */
    private Ended repeated(List<ToolCall> calls, int times, @Nullable String text, Context context) {
        List<String> names = new ArrayList<>(calls.size());
        for (ToolCall c : calls) {
            names.add(c.name());
        }
        Failure failure = FailureCode.REPEATED_TOOL_CALL.failure("agent '" + spec.name() + "' asked for the same "
                + (calls.size() == 1 ? "call" : "calls") + " (" + String.join(", ", names)
                + ", same arguments) " + times + " times in a row; stopped instead of running it again");
        ToolResult[] results = turns.refuseAll(Turn.of(calls, text == null ? "" : text), failure, context);
        for (ToolResult r : results) {
            history.add(new ToolResultMessage(r.callId(), r.toolName(), r.content(), r.isError()));
            toolsCalled.add(r.toolName());
        }
        return new Ended(OutcomeStatus.FAILED, null, failure);
    }

    private Ended stopOrFail(Failure failure) {
        StopReason stop = scope.stopReason();
        return stop != null ? stopped(stop) : new Ended(OutcomeStatus.FAILED, null, failure);
    }

    private Ended stopped(StopReason stop) {
        return new Ended(stop.status(), null, stop.failure());
    }

    private Ended costBudgetExceeded() {
        return budgetExceeded(
                FailureCode.COST_BUDGET,
                String.format(
                        java.util.Locale.ROOT,
                        "the run's model calls cost %.6f, more than its budget of %.6f",
                        run.costs().spent(),
                        run.costs().limit()));
    }

    private Ended budgetExceeded(FailureCode code, String message) {
        return new Ended(OutcomeStatus.BUDGET_EXCEEDED, null, code.failure(message));
    }

    /** Adds tokens spent by a worker of this agent when it finishes. */
    synchronized void addUsage(TokenUsage more) {
        usage = usage.plus(more);
    }

    private synchronized void addOwnUsage(TokenUsage more) {
        usage = usage.plus(more);
        ownUsage = ownUsage.plus(more);
    }

    private synchronized TokenUsage usage() {
        return usage;
    }

    private synchronized TokenUsage ownUsage() {
        return ownUsage;
    }

    private void checkpoint() {
        if (!ctx.isRoot()) {
            return;
        }
        Checkpoint cp = new Checkpoint(
                run.runId(),
                sessionId,
                spec.name(),
                history,
                pending,
                iterations,
                usage(),
                TimeUnit.NANOSECONDS.toMillis(elapsedBeforeNanos + System.nanoTime() - startNanos),
                subagentCounters,
                stream.nextSequence(),
                toolsCalled);
        try {
            run.observer().onCheckpoint(cp);
        } catch (RuntimeException ignored) {
            // Persisting is the observer's job; its failure must not end the run it is meant to protect.
        }
    }

    /** What the model is told about: the agent's tools, and tool_output_read once a result was capped. */
    private List<ToolDefinition> definitions() {
        return withReader != null ? withReader : definitions;
    }

    private void noteCapped(Message m) {
        if (withReader == null
                && m instanceof ToolResultMessage r
                && ToolOutputs.isCapped(r.content())
                && definitions.stream().noneMatch(d -> d.name().equals(ToolOutputs.READ_TOOL))) {
            List<ToolDefinition> defs = new ArrayList<>(definitions);
            defs.add(ToolOutputReadTool.DEFINITION);
            withReader = List.copyOf(defs);
        }
    }

    /** Acts on the model's calls and appends their observations; false when the loop was stopped. */
    private boolean executeTurn(List<ToolCall> calls, Context context) {
        String why = history.getLast() instanceof AssistantMessage a && a.text() != null ? a.text() : "";
        Turn turn = Turn.of(calls, why);
        ToolResult[] results = turns.run(turn, subagentCounters, context);
        if (results == null) {
            return false;
        }
        for (int i = 0; i < results.length; i++) {
            ToolResult r = results[i];
            history.add(new ToolResultMessage(r.callId(), r.toolName(), r.content(), r.isError()));
            noteCapped(history.getLast());
            toolsCalled.add(r.toolName());
            if (turn.subagents()[i] != null) {
                subagents.add(turn.subagents()[i]);
            }
        }
        return true;
    }
}
