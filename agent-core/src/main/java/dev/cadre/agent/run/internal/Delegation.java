package dev.cadre.agent.run.internal;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.ReviewPolicy;
import dev.cadre.agent.internal.JsonText;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.run.AgentWork;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.ToolResult;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Hands a task to a worker: takes a concurrency slot, reserves the worker's token budget from the
 * parent's (degraded when short), renders the worker's prompt, runs it as a child loop and reads its
 * answer through the result contract ({@code {"summary", "data", "metrics"}}), past a human review when
 * the worker's policy asks for one.
 */
final class Delegation {

    private final AgentExecution parent;
    private final AgentContext ctx;
    private final SessionStream stream;
    private final HumanGate gate;

    Delegation(AgentExecution parent, AgentContext ctx, SessionStream stream, HumanGate gate) {
        this.parent = parent;
        this.ctx = ctx;
        this.stream = stream;
        this.gate = gate;
    }

    /** Runs the worker call at {@code index} once a run slot and a platform slot are free. */
    ToolResult runWorker(
            int index, CallPlan.Delegate plan, ToolCall call, JsonNode arguments, Turn turn, Context context)
            throws InterruptedException {
        String task = arguments.path("task").asString("");
        JsonNode contextNode = arguments.get("context");
        List<String> keys = new ArrayList<>();
        for (JsonNode k : arguments.path("memory_keys")) {
            keys.add(k.asString());
        }
        Map<String, String> inputs =
                keys.isEmpty() ? Map.of() : ctx.rt().sharedInputs().resolve(ctx.runId(), ctx.sessionId(), keys);
        WorkerTask work = new WorkerTask(task, contextNode == null ? null : contextNode.asString(), keys, inputs);

        ctx.scope().await(() -> {
            ctx.run().subagentSlots().acquire();
            return null;
        });
        try {
            ctx.scope().await(() -> {
                ctx.rt().limiter().acquire();
                return null;
            });
            try {
                return spawn(index, plan, call, work, turn, context);
            } finally {
                ctx.rt().limiter().release();
            }
        } finally {
            ctx.run().subagentSlots().release();
        }
    }

    /** What the parent's call asks of the worker, with the shared-memory inputs it named. */
    private record WorkerTask(String task, @Nullable String context, List<String> keys, Map<String, String> inputs) {}

    private ToolResult spawn(
            int index, CallPlan.Delegate plan, ToolCall call, WorkerTask work, Turn turn, Context context)
            throws InterruptedException {
        AgentSpec worker = plan.worker();
        TokenBudget budget = ctx.budget();
        long requested = worker.budget().maxTokens();
        long floor = (long) Math.ceil(requested * ctx.rt().limits().minWorkerBudgetFraction());
        TokenBudget childBudget = budget.reserve(requested, floor);
        if (childBudget == null) {
            Failure f = FailureCode.RUN_BUDGET_EXHAUSTED.failure("run token budget has " + budget.available()
                    + " tokens left; worker " + worker.name() + " needs at least " + floor + " of its " + requested);
            turn.subagents()[index] = new SubagentOutcome.Failed(
                    call.id(),
                    worker.name(),
                    plan.childSessionId(),
                    OutcomeStatus.BUDGET_EXCEEDED,
                    f,
                    null,
                    null,
                    false,
                    AgentWork.none(Duration.ZERO));
            return ToolResult.failed(call.id(), call.name(), OutcomeStatus.BUDGET_EXCEEDED, f);
        }
        boolean degraded = childBudget.limit() < requested;
        String prompt = prompt(work, degraded, childBudget.limit(), requested);
        if (!turn.startAnnounced()[index]) {
            turn.announceStart(index, plan, stream);
        }
        AgentContext childContext = ctx.child(worker, plan.childSessionId(), childBudget, parent.deadlineForChildren());
        AgentExecution child = new AgentExecution(childContext, StartState.fresh(worker.instructions(), prompt));
        AgentExecution.LoopResult r;
        try {
            r = child.run(context, true);
        } finally {
            childBudget.close();
        }
        parent.addUsage(r.work().usage());
        return readResult(index, plan, call, r, degraded, turn);
    }

    /** The worker's first user message: the task, its context, its inputs and, if short, its budget. */
    private static String prompt(WorkerTask work, boolean degraded, long granted, long requested) {
        StringBuilder user = new StringBuilder(work.task());
        if (work.context() != null && !work.context().isBlank()) {
            user.append("\n\nContext:\n").append(work.context());
        }
        if (!work.keys().isEmpty()) {
            user.append("\n\nInputs (read-only):");
            for (String key : work.keys()) {
                String value = work.inputs().get(key);
                user.append("\n- ").append(key).append(": ").append(value == null ? "(not available)" : value);
            }
        }
        if (degraded) {
            user.append("\n\nBudget: the run is short of tokens; you have ")
                    .append(granted)
                    .append(" of your usual ")
                    .append(requested)
                    .append(". Report the data you have briefly and skip deeper analysis.");
        }
        return user.toString();
    }

    /** Turns the child's loop result into the parent's tool result and the call's subagent outcome. */
    private ToolResult readResult(
            int index, CallPlan.Delegate plan, ToolCall call, AgentExecution.LoopResult r, boolean degraded, Turn turn)
            throws InterruptedException {
        String worker = plan.worker().name();
        String session = plan.childSessionId();
        if (r.status() != OutcomeStatus.OK) {
            Failure own = r.failure() != null
                    ? r.failure()
                    : FailureCode.WORKER_FAILED.failure("worker " + worker + " failed");
            turn.subagents()[index] = new SubagentOutcome.Failed(
                    call.id(), worker, session, r.status(), own, null, null, degraded, r.work());
            return ToolResult.failed(
                    call.id(), call.name(), r.status(), r.failure() == null ? own : forParent(worker, r.status(), own));
        }
        String summary = r.text() == null ? "" : r.text();
        JsonNode data = null;
        JsonNode metrics = null;
        JsonNode contract = parseContract(summary);
        if (contract != null) {
            summary = contract.path("summary").asString("");
            data = contract.get("data");
            metrics = contract.get("metrics");
        }
        if (plan.worker().review() == ReviewPolicy.REVIEW_RESULT) {
            switch (gate.decide(HumanGate.Subject.resultReview(call, worker, summary), turn)) {
                case HumanGate.Verdict.Proceed p ->
                    summary = p.arguments().path("summary").asString(summary);
                case HumanGate.Verdict.Denied d -> {
                    turn.subagents()[index] =
                            new SubagentOutcome.Rejected(call.id(), worker, session, data, metrics, degraded, r.work());
                    return ToolResult.denied(call.id(), call.name(), d.comment());
                }
                case HumanGate.Verdict.Abort a -> {
                    turn.subagents()[index] =
                            new SubagentOutcome.Rejected(call.id(), worker, session, data, metrics, degraded, r.work());
                    ctx.scope().root().stop(new StopReason(OutcomeStatus.DENIED, a.failure()));
                    return ToolResult.denied(call.id(), call.name(), a.failure().message());
                }
                case HumanGate.Verdict.Refused x -> {
                    turn.subagents()[index] = new SubagentOutcome.Failed(
                            call.id(),
                            worker,
                            session,
                            OutcomeStatus.FAILED,
                            x.failure(),
                            data,
                            metrics,
                            degraded,
                            r.work());
                    return ToolResult.failed(call.id(), call.name(), OutcomeStatus.FAILED, x.failure());
                }
            }
        }
        turn.subagents()[index] =
                new SubagentOutcome.Ok(call.id(), worker, session, summary, data, metrics, degraded, r.work());
        return ToolResult.ok(call.id(), call.name(), render(summary, degraded));
    }

    /** What the parent's model reads of a worker's success: its summary only, never data or metrics. */
    static String render(String summary, boolean degraded) {
        StringBuilder body = new StringBuilder(32 + summary.length());
        body.append("{\"status\":\"ok\",\"summary\":");
        JsonText.quote(body, summary);
        if (degraded) {
            body.append(",\"degraded\":true");
        }
        return body.append('}').toString();
    }

    /** How a worker's failure reads to its parent: one category, a worker-level message. */
    static Failure forParent(String worker, OutcomeStatus status, Failure child) {
        return switch (status) {
            case TIMEOUT -> FailureCode.WORKER_TIMEOUT.failure("worker " + worker + " timed out: " + child.message());
            case BUDGET_EXCEEDED ->
                FailureCode.WORKER_BUDGET_EXCEEDED.failure(
                        "worker " + worker + " ran out of budget: " + child.message());
            case CANCELLED -> child;
            case OK, DENIED, FAILED ->
                FailureCode.WORKER_FAILED.failure(
                        "worker " + worker + " failed (" + child.category() + "): " + child.message());
        };
    }

    /** The worker's answer as a result contract, or null when it is plain text. */
    static @Nullable JsonNode parseContract(String text) {
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
}
