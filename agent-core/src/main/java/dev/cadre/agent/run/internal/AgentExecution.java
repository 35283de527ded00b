package dev.cadre.agent.run.internal;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.ReviewPolicy;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalKind;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.internal.JsonText;
import dev.cadre.agent.journal.JournalEntry;
import dev.cadre.agent.journal.JournalKey;
import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.ModelException;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.SystemMessage;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.ToolDefinition;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.model.UserMessage;
import dev.cadre.agent.run.Checkpoint;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.telemetry.AgentTelemetryListener;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.ToolResult;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One agent loop instance, think - act - observe, for the root agent of a run and, unchanged, for
 * every subagent (DESIGN.md section 2: a subagent is one more instance of the same loop). Spans,
 * budgets, events and cancellation are handled here once, around the loop.
 */
public final class AgentExecution {

    private final Runtime rt;
    private final RunScope run;
    private final AgentSpec spec;
    private final ModelPort model;
    private final ToolRegistry tools;
    private final boolean canDelegate;
    private final List<ToolDefinition> definitions;
    private final String sessionId;
    private final @Nullable String parentSessionId;
    private final int depth;
    private final List<String> ancestry;
    private final TokenBudget budget;
    private final CancelScope scope;
    private final SessionStream stream;
    private final boolean root;

    // Loop state: touched by the loop thread only, except usage, which finishing workers add to.
    private final List<Message> history;
    private List<ToolCall> pending;
    private int iterations;
    private TokenUsage usage;
    private final List<String> toolsCalled;
    private final Map<String, Integer> subagentCounters;
    private final List<SubagentOutcome> subagents = new ArrayList<>();
    private final long elapsedBeforeNanos;
    private long startNanos;
    // Absolute System.nanoTime() deadlines: this agent's, and the nearest ancestor's (none for a root).
    private long deadlineNanos;
    private long inheritedDeadlineNanos;
    private boolean hasInheritedDeadline;

    private AgentExecution(
            Runtime rt,
            RunScope run,
            AgentSpec spec,
            String sessionId,
            @Nullable String parentSessionId,
            int depth,
            List<String> ancestry,
            TokenBudget budget,
            CancelScope scope,
            List<Message> history,
            List<ToolCall> pending,
            int iterations,
            TokenUsage usage,
            List<String> toolsCalled,
            Map<String, Integer> subagentCounters,
            long elapsedBeforeNanos,
            long nextSequence) {
        this.rt = rt;
        this.run = run;
        this.spec = spec;
        this.model = rt.tree().model(spec.name());
        this.tools = rt.tree().tools(spec.name());
        this.canDelegate = depth < run.maxDepth() && !spec.workers().isEmpty();
        this.definitions = rt.definitions(spec, canDelegate);
        this.sessionId = sessionId;
        this.parentSessionId = parentSessionId;
        this.depth = depth;
        this.ancestry = ancestry;
        this.budget = budget;
        this.scope = scope;
        this.root = parentSessionId == null;
        this.stream =
                new SessionStream(run.runId(), sessionId, parentSessionId, spec.name(), run.observer(), nextSequence);
        this.history = new ArrayList<>(history);
        this.pending = List.copyOf(pending);
        this.iterations = iterations;
        this.usage = usage;
        this.toolsCalled = new ArrayList<>(toolsCalled);
        this.subagentCounters = new HashMap<>(subagentCounters);
        this.elapsedBeforeNanos = elapsedBeforeNanos;
    }

    /** A fresh root loop for a run. */
    public static AgentExecution root(
            Runtime rt, RunScope run, AgentSpec spec, String sessionId, String input, CancelScope scope) {
        List<Message> history = List.of(new SystemMessage(spec.instructions()), new UserMessage(input));
        return new AgentExecution(
                rt,
                run,
                spec,
                sessionId,
                null,
                0,
                List.of(spec.name()),
                new TokenBudget(spec.budget().maxTokens(), 0),
                scope,
                history,
                List.of(),
                0,
                TokenUsage.ZERO,
                List.of(),
                Map.of(),
                0,
                1);
    }

    /** A root loop continuing from a checkpoint. */
    public static AgentExecution resumed(Runtime rt, RunScope run, AgentSpec spec, Checkpoint cp, CancelScope scope) {
        return new AgentExecution(
                rt,
                run,
                spec,
                cp.sessionId(),
                null,
                0,
                List.of(spec.name()),
                new TokenBudget(spec.budget().maxTokens(), cp.usage().total()),
                scope,
                cp.history(),
                cp.pendingCalls(),
                cp.iterations(),
                cp.usage(),
                cp.toolsCalled(),
                cp.subagentCounters(),
                TimeUnit.MILLISECONDS.toNanos(cp.elapsedMillis()),
                cp.nextSequence());
    }

    /** How a loop ended. */
    public record LoopResult(
            OutcomeStatus status,
            @Nullable String text,
            @Nullable Failure failure,
            TokenUsage usage,
            int iterations,
            List<String> toolsCalled,
            List<SubagentOutcome> subagents,
            Duration duration) {}

    /**
     * Runs the loop on the current thread until it finishes, fails, runs out of budget or is stopped.
     *
     * @param fresh whether this is the session's start (a {@code run_started} event) or a resume
     */
    public LoopResult run(Context parentContext, boolean fresh) {
        startNanos = System.nanoTime();
        Span span = rt.spans()
                .startAgent(parentContext, spec.name(), run.runId(), sessionId, parentSessionId, depth, spec.model());
        Context context = parentContext.with(span);
        ScheduledFuture<?> timer = scheduleTimeout();
        Ended ended;
        try (CancelScope.Entered ignored = scope.enter()) {
            if (fresh) {
                String input = history.size() > 1 && history.get(1) instanceof UserMessage u ? u.text() : "";
                stream.emit(m -> new AgentEvent.RunStarted(m, input));
            } else {
                stream.emit(m -> new AgentEvent.Status(m, "resumed", iterations));
            }
            ended = loop(context);
        } catch (RuntimeException e) {
            // A bug in the loop or a port must still end as an outcome, never as a lost thread.
            ended = new Ended(
                    OutcomeStatus.FAILED,
                    null,
                    new Failure(FailureCategory.EXECUTION_ERROR, "internal_error", describe(e)));
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
        rt.spans().endAgent(span, ended.status().wireName(), failure, total, iterations, toolsCalled);
        rt.listener()
                .agentFinished(new AgentTelemetryListener.AgentFinished(
                        run.runId(),
                        sessionId,
                        spec.name(),
                        depth,
                        ended.status(),
                        failure == null ? null : failure.category(),
                        total,
                        iterations,
                        toolsCalled.size(),
                        duration));
        return new LoopResult(
                ended.status(), ended.text(), failure, total, iterations, toolsCalled, subagents, duration);
    }

    private record Ended(
            OutcomeStatus status,
            @Nullable String text,
            @Nullable Failure failure) {}

    private @Nullable ScheduledFuture<?> scheduleTimeout() {
        long remaining = spec.budget().timeout().toNanos() - elapsedBeforeNanos;
        if (remaining <= 0) {
            scope.stop(timeoutReason());
            return null;
        }
        deadlineNanos = startNanos + remaining;
        if (hasInheritedDeadline && deadlineNanos - inheritedDeadlineNanos >= 0) {
            // An ancestor stops first and its stop reaches this scope: a timer of our own would never fire.
            return null;
        }
        return rt.timer().schedule(() -> scope.stop(timeoutReason()), remaining, TimeUnit.NANOSECONDS);
    }

    private StopReason timeoutReason() {
        return new StopReason(
                OutcomeStatus.TIMEOUT,
                new Failure(
                        FailureCategory.TIMEOUT_ERROR,
                        "agent_timeout",
                        "agent '" + spec.name() + "' exceeded its timeout of "
                                + spec.budget().timeout()));
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
                        "iteration_budget",
                        "agent '" + spec.name() + "' used its " + spec.budget().maxIterations()
                                + " iterations without finishing");
            }
            long estimate = rt.estimator().estimate(history, definitions);
            long available = budget.available();
            if (estimate + 1 > available) {
                return budgetExceeded(
                        "token_budget",
                        "agent '" + spec.name() + "' needs about " + estimate + " input tokens but only " + available
                                + " of its token budget are left");
            }
            if (root) {
                int next = iterations + 1;
                stream.emit(m -> new AgentEvent.Status(m, "iteration " + next, next));
            }
            ModelRequest request = new ModelRequest(
                    run.runId(), sessionId, spec.name(), spec.model(), history, definitions, available - estimate);
            ModelResponse response;
            Span chat = rt.spans().startChat(context, spec.model(), run.runId(), sessionId, spec.name());
            long t0 = System.nanoTime();
            // The chat span is current while the port runs, so an HTTP-backed port propagates it
            // (W3C traceparent) to the provider and the provider's own spans join this trace.
            try (Scope ignored = context.with(chat).makeCurrent()) {
                response = model.call(request);
                if (response == null) {
                    throw new ModelException("empty_response", "the model port returned no response");
                }
            } catch (InterruptedException e) {
                StopReason s = scope.stopReasonOrCancelled();
                modelCallEnded(chat, null, s.failure(), t0);
                return stopped(s);
            } catch (ModelException e) {
                Failure f = new Failure(e.category(), e.code(), "model call failed: " + e.getMessage());
                modelCallEnded(chat, null, f, t0);
                return stopOrFail(f);
            } catch (RuntimeException e) {
                Failure f = new Failure(
                        FailureCategory.COMMUNICATION_ERROR, "model_error", "model call failed: " + describe(e));
                modelCallEnded(chat, null, f, t0);
                return stopOrFail(f);
            }
            modelCallEnded(chat, response.usage(), null, t0);
            budget.charge(response.usage().total());
            addUsage(response.usage());
            iterations++;
            if (response.truncated()) {
                return budgetExceeded(
                        "output_truncated",
                        "agent '" + spec.name() + "': the model's answer was cut at the token budget");
            }
            if (budget.spent() > budget.limit()) {
                return budgetExceeded(
                        "token_budget",
                        "agent '" + spec.name() + "': the model reported more tokens than the budget allowed");
            }
            List<ToolCall> calls = withStableIds(response.toolCalls());
            String text = response.text();
            history.add(new AssistantMessage(text, calls));
            if (text != null && !text.isEmpty()) {
                stream.emit(m -> new AgentEvent.TextDelta(m, text));
            }
            if (calls.isEmpty()) {
                return new Ended(OutcomeStatus.OK, text == null ? "" : text, null);
            }
            pending = calls;
            checkpoint();
        }
    }

    private void modelCallEnded(Span chat, @Nullable TokenUsage used, @Nullable Failure failure, long t0) {
        rt.spans().endChat(chat, used, failure);
        rt.listener()
                .modelCallFinished(new AgentTelemetryListener.ModelCallFinished(
                        run.runId(),
                        sessionId,
                        spec.name(),
                        spec.model(),
                        used == null ? TokenUsage.ZERO : used,
                        failure == null ? null : failure.category(),
                        Duration.ofNanos(System.nanoTime() - t0)));
    }

    private Ended stopOrFail(Failure failure) {
        StopReason stop = scope.stopReason();
        return stop != null ? stopped(stop) : new Ended(OutcomeStatus.FAILED, null, failure);
    }

    private Ended stopped(StopReason stop) {
        return new Ended(stop.status(), null, stop.failure());
    }

    private Ended budgetExceeded(String code, String message) {
        return new Ended(
                OutcomeStatus.BUDGET_EXCEEDED, null, new Failure(FailureCategory.BUDGET_EXCEEDED, code, message));
    }

    /**
     * Renames the calls {@code call_<turn>_<n>}. Ids pair results with calls and key the journal; a
     * provider's ids are random, so a subagent re-run after a crash would never find its journalled
     * side effects under them. Positional ids make the key of "the n-th call of turn t of session s"
     * the same in every run (the model port sends back whatever ids the history holds).
     */
    private List<ToolCall> withStableIds(List<ToolCall> calls) {
        List<ToolCall> out = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            ToolCall call = calls.get(i);
            String id = "call_" + iterations + "_" + (i + 1);
            out.add(id.equals(call.id()) ? call : new ToolCall(id, call.name(), call.arguments()));
        }
        return List.copyOf(out);
    }

    private synchronized void addUsage(TokenUsage more) {
        usage = usage.plus(more);
    }

    private synchronized TokenUsage usage() {
        return usage;
    }

    private void checkpoint() {
        if (!root) {
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

    // ---- acting: one model turn's tool calls ----

    /** What the validation pass decided about one call, before anything of the turn starts. */
    private sealed interface Plan {
        Risk risk();
    }

    private record Rejected(ToolResult result) implements Plan {
        @Override
        public Risk risk() {
            return Risk.AUTO;
        }
    }

    private record RunTool(Tool tool) implements Plan {
        @Override
        public Risk risk() {
            return tool.risk();
        }
    }

    private record Delegate(AgentSpec worker, String childSessionId) implements Plan {
        @Override
        public Risk risk() {
            return worker.review() == ReviewPolicy.APPROVE_BEFORE_START ? Risk.APPROVE : Risk.AUTO;
        }
    }

    /**
     * One turn's calls and what their execution produced. Parent-level events of a call
     * ({@code subagent_started} of concurrent workers, {@code subagent_finished}, {@code tool_result}) are
     * emitted by the loop thread, in call order: concurrent workers never contend for the parent's
     * stream, which profiling showed to be the largest cost of a thousand-worker turn.
     */
    private record Turn(List<ToolCall> calls, String why, SubagentOutcome[] subagents, boolean[] startAnnounced) {
        /** Every call of the turn, for a human who approves one of them; built only when someone asks. */
        List<String> plan() {
            List<String> plan = new ArrayList<>(calls.size());
            for (ToolCall call : calls) {
                plan.add(call.name() + " " + call.arguments());
            }
            return plan;
        }
    }

    /** Runs the calls; false when the loop was stopped before all of them ended. */
    private boolean executeTurn(List<ToolCall> calls, Context context) {
        int n = calls.size();
        Plan[] plans = new Plan[n];
        for (int i = 0; i < n; i++) {
            plans[i] = plan(calls.get(i));
        }
        String why = history.getLast() instanceof AssistantMessage a && a.text() != null ? a.text() : "";
        Turn turn = new Turn(calls, why, new SubagentOutcome[n], new boolean[n]);
        ToolResult[] results = new ToolResult[n];

        for (int i = 0; i < n; i++) {
            ToolCall call = calls.get(i);
            Plan plan = plans[i];
            stream.emit(m -> new AgentEvent.ToolCallStart(
                    m, call.id(), call.name(), call.arguments(), plan.risk(), plan instanceof Delegate));
        }
        // Malformed calls are answered before any call of the turn starts (seed 002: unknown_subagent).
        for (int i = 0; i < n; i++) {
            if (plans[i] instanceof Rejected r) {
                results[i] = r.result();
                toolCallFinished(calls.get(i), r.result(), Risk.AUTO, false, 0);
                afterCall(i, results[i], turn);
            }
        }
        List<Integer> concurrent = new ArrayList<>();
        List<Integer> sequential = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (plans[i] instanceof Rejected) {
                continue;
            }
            (plans[i].risk() == Risk.APPROVE ? sequential : concurrent).add(i);
        }
        if (concurrent.size() == 1) {
            int i = concurrent.getFirst();
            results[i] = execute(i, plans[i], turn, context);
            afterCall(i, results[i], turn);
        } else if (concurrent.size() > 1) {
            List<CompletableFuture<ToolResult>> futures = new ArrayList<>(concurrent.size());
            for (int i : concurrent) {
                CompletableFuture<ToolResult> future = new CompletableFuture<>();
                Plan plan = plans[i];
                if (plan instanceof Delegate d) {
                    // Spawned now; it may still wait for a concurrency slot or find the budget spent.
                    announceStart(i, d, turn);
                }
                Thread.ofVirtual().start(() -> {
                    try (CancelScope.Entered ignored = scope.enter()) {
                        future.complete(execute(i, plan, turn, context));
                    } catch (Throwable t) {
                        future.completeExceptionally(t);
                    }
                });
                futures.add(future);
            }
            // Observations in call order, whatever finished first.
            for (int k = 0; k < concurrent.size(); k++) {
                int i = concurrent.get(k);
                try {
                    results[i] = futures.get(k).get();
                } catch (InterruptedException e) {
                    return false;
                } catch (ExecutionException e) {
                    results[i] = ToolResult.failed(
                            calls.get(i).id(),
                            calls.get(i).name(),
                            new Failure(FailureCategory.EXECUTION_ERROR, "internal_error", describe(e.getCause())));
                }
                afterCall(i, results[i], turn);
            }
        }
        // APPROVE calls one by one, after the concurrent batch: never concurrently with another call.
        for (int i : sequential) {
            if (scope.stopReason() != null) {
                return false;
            }
            results[i] = execute(i, plans[i], turn, context);
            afterCall(i, results[i], turn);
        }
        if (scope.stopReason() != null) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            ToolResult r = results[i];
            history.add(new ToolResultMessage(r.callId(), r.toolName(), r.content(), r.isError()));
            toolsCalled.add(r.toolName());
            if (turn.subagents()[i] != null) {
                subagents.add(turn.subagents()[i]);
            }
        }
        return true;
    }

    private Plan plan(ToolCall call) {
        String name = call.name();
        Tool tool = tools.find(name);
        if (tool != null) {
            List<String> errors = JsonSchemas.validate(tool.parametersSchema(), call.arguments());
            if (!errors.isEmpty()) {
                return reject(
                        call,
                        FailureCategory.EXECUTION_ERROR,
                        "invalid_arguments",
                        "invalid arguments for " + name + ": " + String.join("; ", errors));
            }
            return new RunTool(tool);
        }
        if (spec.workers().contains(name)) {
            if (!canDelegate) {
                return reject(
                        call,
                        FailureCategory.ORCHESTRATION_ERROR,
                        "depth_limit",
                        "agent '" + spec.name() + "' may not delegate at depth " + depth + " (max depth "
                                + run.maxDepth() + ")");
            }
            if (ancestry.contains(name)) {
                return reject(
                        call,
                        FailureCategory.ORCHESTRATION_ERROR,
                        "delegation_cycle",
                        "delegating to '" + name + "' would close a cycle: " + String.join(" -> ", ancestry) + " -> "
                                + name);
            }
            List<String> errors = JsonSchemas.validate(Runtime.DELEGATION_SCHEMA, call.arguments());
            if (!errors.isEmpty()) {
                return reject(
                        call,
                        FailureCategory.ORCHESTRATION_ERROR,
                        "invalid_delegation",
                        "malformed delegation to " + name + ": " + String.join("; ", errors));
            }
            int number = subagentCounters.merge(name, 1, Integer::sum);
            return new Delegate(rt.tree().spec(name), sessionId + "/" + name + "#" + number);
        }
        if (rt.tree().contains(name)) {
            return reject(
                    call,
                    FailureCategory.ORCHESTRATION_ERROR,
                    "unknown_worker",
                    "'" + name + "' is not a worker of agent '" + spec.name() + "'");
        }
        return reject(
                call,
                FailureCategory.ORCHESTRATION_ERROR,
                "unknown_tool",
                "unknown tool or worker '" + name + "'; available: " + definitionNames());
    }

    private String definitionNames() {
        List<String> names = new ArrayList<>(definitions.size());
        for (ToolDefinition d : definitions) {
            names.add(d.name());
        }
        return String.join(", ", names);
    }

    private static Rejected reject(ToolCall call, FailureCategory category, String code, String message) {
        return new Rejected(ToolResult.failed(call.id(), call.name(), new Failure(category, code, message)));
    }

    private void announceStart(int index, Delegate plan, Turn turn) {
        ToolCall call = turn.calls().get(index);
        String task = call.arguments().path("task").asString("");
        turn.startAnnounced()[index] = true;
        stream.emit(
                m -> new AgentEvent.SubagentStarted(m, call.id(), plan.worker().name(), plan.childSessionId(), task));
    }

    /** The parent-level events of a finished call, on the loop thread. */
    private void afterCall(int index, ToolResult result, Turn turn) {
        SubagentOutcome sub = turn.subagents()[index];
        if (sub != null && turn.startAnnounced()[index]) {
            long millis = sub.duration().toMillis();
            stream.emit(m -> new AgentEvent.SubagentFinished(
                    m, sub.callId(), sub.worker(), sub.sessionId(), sub.status(), sub.usage(), millis));
        }
        stream.emit(m -> new AgentEvent.ToolResultEvent(
                m, result.callId(), result.toolName(), result.status(), result.content(), result.failure()));
    }

    private void toolCallFinished(ToolCall call, ToolResult result, Risk risk, boolean worker, long t0) {
        rt.listener()
                .toolCallFinished(new AgentTelemetryListener.ToolCallFinished(
                        run.runId(),
                        sessionId,
                        spec.name(),
                        call.name(),
                        risk,
                        worker,
                        result.status(),
                        result.failure() == null ? null : result.failure().category(),
                        Duration.ofNanos(t0 == 0 ? 0 : System.nanoTime() - t0)));
    }

    /** One call in its own span, caught into a structured result; never throws. */
    private ToolResult execute(int index, Plan plan, Turn turn, Context context) {
        ToolCall call = turn.calls().get(index);
        boolean worker = plan instanceof Delegate;
        long t0 = System.nanoTime();
        Span span = rt.spans()
                .startTool(
                        context, call.name(), call.id(), plan.risk(), worker, run.runId(), sessionId, call.arguments());
        ToolResult result;
        try {
            result = executeInSpan(index, plan, turn, context.with(span));
        } catch (InterruptedException e) {
            StopReason s = scope.stopReasonOrCancelled();
            result = ToolResult.failed(call.id(), call.name(), s.status(), s.failure());
        } catch (RuntimeException e) {
            result = ToolResult.failed(
                    call.id(),
                    call.name(),
                    new Failure(FailureCategory.EXECUTION_ERROR, "internal_error", describe(e)));
        }
        rt.spans().endTool(span, call.name(), result.status().wireName(), result.content(), result.failure());
        toolCallFinished(call, result, plan.risk(), worker, t0);
        return result;
    }

    private ToolResult executeInSpan(int index, Plan plan, Turn turn, Context context) throws InterruptedException {
        ToolCall call = turn.calls().get(index);
        boolean sideEffects = plan instanceof RunTool && plan.risk() != Risk.AUTO;
        JournalKey key = new JournalKey(run.runId(), sessionId, call.id());
        if (sideEffects) {
            JournalEntry entry = rt.journal().find(key);
            switch (entry) {
                // A re-run subagent may have chosen another tool at this position: that is a new action.
                case JournalEntry.Finished f when !f.result().toolName().equals(call.name()) -> {}
                case JournalEntry.Started s when !s.tool().equals(call.name()) -> {}
                case JournalEntry.Finished f -> {
                    return f.result();
                }
                case JournalEntry.Started s -> {
                    return ToolResult.failed(
                            call.id(),
                            call.name(),
                            new Failure(
                                    FailureCategory.EXECUTION_ERROR,
                                    "interrupted",
                                    "interrupted before its outcome was recorded; not re-run"));
                }
                case null -> {}
            }
        }
        JsonNode arguments = call.arguments();
        if (plan.risk() == Risk.APPROVE) {
            JsonNode schema = plan instanceof RunTool t ? t.tool().parametersSchema() : Runtime.DELEGATION_SCHEMA;
            String description =
                    plan instanceof RunTool t ? t.tool().description() : "delegate to worker " + call.name();
            ApprovalDecision decision = ask(
                    ApprovalKind.TOOL_CALL,
                    call,
                    arguments,
                    call.name() + " " + arguments + " (" + description + ")",
                    turn);
            switch (decision) {
                case ApprovalDecision.Approved a -> {}
                case ApprovalDecision.ApprovedWithEdits edits -> {
                    List<String> errors = JsonSchemas.validate(schema, edits.arguments());
                    if (!errors.isEmpty()) {
                        return ToolResult.failed(
                                call.id(),
                                call.name(),
                                new Failure(
                                        FailureCategory.EXECUTION_ERROR,
                                        "invalid_edited_arguments",
                                        "the approver's edited arguments are invalid: " + String.join("; ", errors)));
                    }
                    arguments = edits.arguments();
                }
                case ApprovalDecision.Rejected r -> {
                    return ToolResult.denied(
                            call.id(), call.name(), "rejected" + by(r.decidedBy()) + ": " + r.comment());
                }
                case ApprovalDecision.Expired x -> {
                    return ToolResult.failed(
                            call.id(),
                            call.name(),
                            new Failure(
                                    FailureCategory.HUMAN_INTERVENTION_TIMEOUT,
                                    "approval_expired",
                                    "no human decision arrived before the approval request expired"));
                }
            }
        }
        if (sideEffects) {
            rt.journal().started(key, call.name(), arguments);
        }
        ToolResult result = switch (plan) {
            case RunTool t -> runTool(t.tool(), call, arguments, context);
            case Delegate d -> runWorker(index, d, call, arguments, turn, context);
            case Rejected r -> r.result();
        };
        // A call stopped mid-flight stays "started": its outcome is unknown, so a resume must not repeat it.
        if (sideEffects && !(result.status() == OutcomeStatus.CANCELLED || result.status() == OutcomeStatus.TIMEOUT)) {
            rt.journal().finished(key, result);
        }
        return result;
    }

    private static String by(@Nullable String who) {
        return who == null ? "" : " by " + who;
    }

    private ApprovalDecision ask(ApprovalKind kind, ToolCall call, JsonNode arguments, String what, Turn turn)
            throws InterruptedException {
        JsonNode confidence = arguments.get("confidence");
        ApprovalRequest request = new ApprovalRequest(
                kind,
                run.runId(),
                sessionId,
                spec.name(),
                call.id(),
                call.name(),
                arguments,
                what,
                turn.why(),
                confidence != null && confidence.isNumber() ? confidence.doubleValue() : null,
                turn.plan());
        // The gate records the request before anyone hears of it: a reader who sees the run wait
        // for a human (the event) then always finds the pending approval.
        java.util.concurrent.CompletableFuture<ApprovalDecision> pending;
        try {
            pending = rt.approvals().request(request).toCompletableFuture();
        } catch (RuntimeException e) {
            pending = java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        stream.emit(m -> new AgentEvent.ApprovalRequested(m, request));
        ApprovalDecision decision;
        try {
            decision = pending.get();
        } catch (ExecutionException e) {
            // A gate that cannot answer leaves the action undecided; undecided never means approved.
            decision = new ApprovalDecision.Expired();
        }
        ApprovalDecision resolved = decision;
        stream.emit(m -> new AgentEvent.ApprovalResolved(m, call.id(), resolved));
        return decision;
    }

    private ToolResult runTool(Tool tool, ToolCall call, JsonNode arguments, Context context)
            throws InterruptedException {
        try (Scope ignored = context.makeCurrent()) {
            String out = tool.execute(arguments, new ToolContext(run.runId(), sessionId, spec.name(), call.id()));
            return ToolResult.ok(call.id(), call.name(), out == null ? "" : out);
        } catch (InterruptedException e) {
            throw e;
        } catch (ToolException e) {
            return ToolResult.failed(call.id(), call.name(), new Failure(e.category(), e.code(), e.getMessage()));
        } catch (Exception e) {
            StopReason stop = scope.stopReason();
            if (stop != null) {
                return ToolResult.failed(call.id(), call.name(), stop.status(), stop.failure());
            }
            return ToolResult.failed(
                    call.id(),
                    call.name(),
                    new Failure(
                            FailureCategory.EXECUTION_ERROR,
                            "tool_failed",
                            "tool " + call.name() + " failed: " + describe(e)));
        }
    }

    // ---- delegation ----

    private ToolResult runWorker(
            int index, Delegate plan, ToolCall call, JsonNode arguments, Turn turn, Context context)
            throws InterruptedException {
        AgentSpec worker = plan.worker();
        String task = arguments.path("task").asString("");
        JsonNode contextNode = arguments.get("context");
        List<String> keys = new ArrayList<>();
        for (JsonNode k : arguments.path("memory_keys")) {
            keys.add(k.asString());
        }
        Map<String, String> inputs =
                keys.isEmpty() ? Map.of() : rt.sharedInputs().resolve(run.runId(), sessionId, keys);

        run.subagentSlots().acquire();
        try {
            rt.limiter().acquire();
            try {
                return spawn(
                        index,
                        plan,
                        call,
                        task,
                        contextNode == null ? null : contextNode.asString(),
                        keys,
                        inputs,
                        turn,
                        context);
            } finally {
                rt.limiter().release();
            }
        } finally {
            run.subagentSlots().release();
        }
    }

    private ToolResult spawn(
            int index,
            Delegate plan,
            ToolCall call,
            String task,
            @Nullable String taskContext,
            List<String> keys,
            Map<String, String> inputs,
            Turn turn,
            Context context)
            throws InterruptedException {
        AgentSpec worker = plan.worker();
        long requested = worker.budget().maxTokens();
        long floor = (long) Math.ceil(requested * rt.limits().minWorkerBudgetFraction());
        TokenBudget childBudget = budget.reserve(requested, floor);
        if (childBudget == null) {
            Failure f = new Failure(
                    FailureCategory.BUDGET_EXCEEDED,
                    "run_budget_exhausted",
                    "run token budget has " + budget.available() + " tokens left; worker " + worker.name()
                            + " needs at least " + floor + " of its " + requested);
            turn.subagents()[index] = new SubagentOutcome(
                    call.id(),
                    worker.name(),
                    plan.childSessionId(),
                    OutcomeStatus.BUDGET_EXCEEDED,
                    null,
                    null,
                    null,
                    f,
                    TokenUsage.ZERO,
                    0,
                    List.of(),
                    Duration.ZERO,
                    false,
                    List.of());
            return ToolResult.failed(call.id(), call.name(), OutcomeStatus.BUDGET_EXCEEDED, f);
        }
        boolean degraded = childBudget.limit() < requested;
        StringBuilder user = new StringBuilder(task);
        if (taskContext != null && !taskContext.isBlank()) {
            user.append("\n\nContext:\n").append(taskContext);
        }
        if (!keys.isEmpty()) {
            user.append("\n\nInputs (read-only):");
            for (String key : keys) {
                String value = inputs.get(key);
                user.append("\n- ").append(key).append(": ").append(value == null ? "(not available)" : value);
            }
        }
        if (degraded) {
            user.append("\n\nBudget: the run is short of tokens; you have ")
                    .append(childBudget.limit())
                    .append(" of your usual ")
                    .append(requested)
                    .append(". Report the data you have briefly and skip deeper analysis.");
        }
        String childSession = plan.childSessionId();
        if (!turn.startAnnounced()[index]) {
            announceStart(index, plan, turn);
        }
        List<String> childAncestry = new ArrayList<>(ancestry.size() + 1);
        childAncestry.addAll(ancestry);
        childAncestry.add(worker.name());
        AgentExecution child = new AgentExecution(
                rt,
                run,
                worker,
                childSession,
                sessionId,
                depth + 1,
                childAncestry,
                childBudget,
                scope.child(),
                List.of(new SystemMessage(worker.instructions()), new UserMessage(user.toString())),
                List.of(),
                0,
                TokenUsage.ZERO,
                List.of(),
                Map.of(),
                0,
                1);
        child.hasInheritedDeadline = true;
        child.inheritedDeadlineNanos = hasInheritedDeadline && inheritedDeadlineNanos - deadlineNanos < 0
                ? inheritedDeadlineNanos
                : deadlineNanos;
        LoopResult r;
        try {
            r = child.run(context, true);
        } finally {
            childBudget.close();
        }
        addUsage(r.usage());

        String summary = null;
        JsonNode data = null;
        JsonNode metrics = null;
        if (r.status() == OutcomeStatus.OK) {
            summary = r.text() == null ? "" : r.text();
            JsonNode contract = parseContract(summary);
            if (contract != null) {
                summary = contract.path("summary").asString("");
                data = contract.get("data");
                metrics = contract.get("metrics");
            }
        }
        Failure childFailure = r.failure();
        Failure parentFailure = childFailure == null ? null : forParent(worker.name(), r.status(), childFailure);
        OutcomeStatus status = r.status();
        ToolResult result;
        if (status == OutcomeStatus.OK && worker.review() == ReviewPolicy.REVIEW_RESULT) {
            ObjectNode reviewed = JsonNodeFactory.instance.objectNode().put("summary", summary);
            ApprovalDecision decision = ask(
                    ApprovalKind.RESULT_REVIEW,
                    call,
                    reviewed,
                    "review the result of worker " + worker.name() + ": " + summary,
                    turn);
            switch (decision) {
                case ApprovalDecision.Approved a -> {}
                case ApprovalDecision.ApprovedWithEdits edits ->
                    summary = edits.arguments().path("summary").asString(summary);
                case ApprovalDecision.Rejected rej -> {
                    status = OutcomeStatus.DENIED;
                    summary = null;
                    parentFailure = null;
                    result = ToolResult.denied(
                            call.id(),
                            call.name(),
                            "the reviewer rejected this result" + by(rej.decidedBy()) + ": " + rej.comment());
                    return finishWorker(
                            index,
                            call,
                            worker,
                            childSession,
                            status,
                            null,
                            data,
                            metrics,
                            null,
                            r,
                            degraded,
                            turn,
                            result);
                }
                case ApprovalDecision.Expired x -> {
                    status = OutcomeStatus.FAILED;
                    summary = null;
                    parentFailure = new Failure(
                            FailureCategory.HUMAN_INTERVENTION_TIMEOUT,
                            "review_expired",
                            "no reviewer decided on the result of worker " + worker.name() + " in time");
                }
            }
        }
        if (status == OutcomeStatus.OK) {
            StringBuilder body = new StringBuilder(32 + (summary == null ? 0 : summary.length()));
            body.append("{\"status\":\"ok\",\"summary\":");
            JsonText.quote(body, summary == null ? "" : summary);
            if (degraded) {
                body.append(",\"degraded\":true");
            }
            result = ToolResult.ok(call.id(), call.name(), body.append('}').toString());
        } else {
            Failure f = parentFailure == null
                    ? new Failure(
                            FailureCategory.EXECUTION_ERROR, "worker_failed", "worker " + worker.name() + " failed")
                    : parentFailure;
            result = ToolResult.failed(call.id(), call.name(), status, f);
        }
        return finishWorker(
                index,
                call,
                worker,
                childSession,
                status,
                summary,
                data,
                metrics,
                childFailure == null ? parentFailure : childFailure,
                r,
                degraded,
                turn,
                result);
    }

    private ToolResult finishWorker(
            int index,
            ToolCall call,
            AgentSpec worker,
            String childSession,
            OutcomeStatus status,
            @Nullable String summary,
            @Nullable JsonNode data,
            @Nullable JsonNode metrics,
            @Nullable Failure error,
            LoopResult r,
            boolean degraded,
            Turn turn,
            ToolResult result) {
        turn.subagents()[index] = new SubagentOutcome(
                call.id(),
                worker.name(),
                childSession,
                status,
                summary,
                data,
                metrics,
                error,
                r.usage(),
                r.iterations(),
                r.toolsCalled(),
                r.duration(),
                degraded,
                r.subagents());
        return result;
    }

    /** How a worker's failure reads to its parent: one category, a worker-level message. */
    private static Failure forParent(String worker, OutcomeStatus status, Failure child) {
        return switch (status) {
            case TIMEOUT ->
                new Failure(
                        FailureCategory.TIMEOUT_ERROR,
                        "worker_timeout",
                        "worker " + worker + " timed out: " + child.message());
            case BUDGET_EXCEEDED ->
                new Failure(
                        FailureCategory.BUDGET_EXCEEDED,
                        "worker_budget_exceeded",
                        "worker " + worker + " ran out of budget: " + child.message());
            case CANCELLED -> child;
            case OK, DENIED, FAILED ->
                new Failure(
                        FailureCategory.EXECUTION_ERROR,
                        "worker_failed",
                        "worker " + worker + " failed (" + child.category() + "): " + child.message());
        };
    }

    private static @Nullable JsonNode parseContract(String text) {
        String t = text.strip();
        if (!t.startsWith("{") || !t.contains("\"summary\"")) {
            return null;
        }
        try {
            JsonNode node = JsonSchemas.parse(t);
            return node.isObject() && node.path("summary").isString() ? node : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String describe(@Nullable Throwable e) {
        if (e == null) {
            return "unknown error";
        }
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
