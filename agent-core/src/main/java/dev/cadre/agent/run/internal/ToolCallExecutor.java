package dev.cadre.agent.run.internal;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.journal.JournalEntry;
import dev.cadre.agent.journal.JournalKey;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.telemetry.AgentTelemetryListener;
import dev.cadre.agent.tool.ProposingTool;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.agent.tool.ToolResult;
import dev.cadre.agent.tool.output.ToolOutputs;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Executes one planned call of a turn: in its own {@code execute_tool} span, through the journal when
 * it has side effects (finished calls are not repeated, half-done ones not re-run), past the human gate
 * when it needs approval, and always into a structured {@link ToolResult}, never an exception.
 */
final class ToolCallExecutor {

    private final AgentContext ctx;
    private final HumanGate gate;
    private final Delegation delegation;

    ToolCallExecutor(AgentContext ctx, HumanGate gate, Delegation delegation) {
        this.ctx = ctx;
        this.gate = gate;
        this.delegation = delegation;
    }

    /** One call in its own span, caught into a structured result; never throws. */
    ToolResult execute(int index, CallPlan plan, Turn turn, Context context) {
        ToolCall call = turn.calls().get(index);
        boolean worker = plan instanceof CallPlan.Delegate;
        long t0 = System.nanoTime();
        Span span = ctx.rt()
                .spans()
                .startTool(
                        context,
                        call.name(),
                        call.id(),
                        plan.risk(),
                        worker,
                        ctx.runId(),
                        ctx.sessionId(),
                        call.arguments());
        ToolResult result;
        try {
            result = executeInSpan(index, plan, turn, context.with(span));
        } catch (InterruptedException e) {
            StopReason s = ctx.scope().stopReasonOrCancelled();
            result = ToolResult.failed(call.id(), call.name(), s.status(), s.failure());
        } catch (RuntimeException e) {
            result = ToolResult.failed(call.id(), call.name(), FailureCode.INTERNAL_ERROR.failure(Errors.describe(e)));
        }
        ctx.rt().spans().endTool(span, call.name(), result.status().wireName(), result.content(), result.failure());
        finished(call, result, plan.risk(), worker, t0);
        return result;
    }

    /**
     * A call refused before it started (unknown tool or worker, malformed arguments or delegation, depth
     * limit, cycle, a repeated call): its own {@code execute_tool} span, ended at once with the failure,
     * a child of the agent's span like every other call; a refused delegation is also reported to the
     * telemetry listener as one (an unknown worker is a misroute).
     */
    ToolResult refuse(ToolCall call, CallPlan.Rejected plan, Context context) {
        ToolResult result = plan.result();
        Span span = ctx.rt()
                .spans()
                .startTool(
                        context,
                        call.name(),
                        call.id(),
                        plan.risk(),
                        plan.delegation(),
                        ctx.runId(),
                        ctx.sessionId(),
                        call.arguments());
        ctx.rt().spans().endTool(span, call.name(), result.status().wireName(), result.content(), result.failure());
        finished(call, result, plan.risk(), false, 0);
        // A repeated call (EXECUTION_ERROR) went somewhere before; only an orchestration refusal is a misroute.
        if (plan.delegation()
                && result.failure() != null
                && result.failure().category() == FailureCategory.ORCHESTRATION_ERROR) {
            ctx.rt()
                    .listener()
                    .delegationRefused(new AgentTelemetryListener.DelegationRefused(
                            ctx.runId(), ctx.sessionId(), ctx.agent(), call.name(), result.failure()));
        }
        return result;
    }

    /** Tells the telemetry listener a call ended; {@code t0} 0 for a call that never started. */
    void finished(ToolCall call, ToolResult result, Risk risk, boolean worker, long t0) {
        ctx.rt()
                .listener()
                .toolCallFinished(new AgentTelemetryListener.ToolCallFinished(
                        ctx.runId(),
                        ctx.sessionId(),
                        ctx.agent(),
                        call.name(),
                        risk,
                        worker,
                        result.status(),
                        result.failure() == null ? null : result.failure().category(),
                        Duration.ofNanos(t0 == 0 ? 0 : System.nanoTime() - t0)));
    }

    private ToolResult executeInSpan(int index, CallPlan plan, Turn turn, Context context) throws InterruptedException {
        ToolCall call = turn.calls().get(index);
        boolean sideEffects = plan instanceof CallPlan.RunTool && plan.risk() != Risk.AUTO;
        JournalKey key = new JournalKey(ctx.runId(), ctx.sessionId(), call.id());
        if (sideEffects) {
            ToolResult earlier = journalled(key, call);
            if (earlier != null) {
                return earlier;
            }
        }
        JsonNode arguments = call.arguments();
        if (plan.risk() == Risk.APPROVE
                && plan instanceof CallPlan.RunTool run
                && run.tool() instanceof ProposingTool proposing) {
            // The tool completes the proposal (e.g. the object's current version) before a human sees it;
            // a proposal it refuses (bad target, unreachable) never reaches a human.
            try {
                arguments = proposing.propose(
                        arguments, new ToolContext(ctx.runId(), ctx.sessionId(), ctx.agent(), call.id()));
            } catch (InterruptedException e) {
                throw e;
            } catch (ToolException e) {
                return ToolResult.failed(call.id(), call.name(), new Failure(e.category(), e.code(), e.getMessage()));
            } catch (Exception e) {
                return ToolResult.failed(
                        call.id(),
                        call.name(),
                        FailureCode.TOOL_FAILED.failure(
                                "tool " + call.name() + " could not propose: " + Errors.describe(e)));
            }
        }
        if (plan.risk() == Risk.APPROVE) {
            HumanGate.Subject subject = switch (plan) {
                case CallPlan.RunTool t ->
                    HumanGate.Subject.toolCall(
                            call, arguments, t.tool().parametersSchema(), headline(t.tool(), arguments));
                case CallPlan.Delegate d ->
                    HumanGate.Subject.toolCall(call, arguments, Runtime.DELEGATION_SCHEMA, null);
                case CallPlan.Rejected r -> throw new IllegalStateException("a rejected call never asks a human");
            };
            switch (gate.decide(subject, turn)) {
                case HumanGate.Verdict.Proceed p -> arguments = p.arguments();
                case HumanGate.Verdict.Denied d -> {
                    return ToolResult.denied(call.id(), call.name(), d.comment());
                }
                case HumanGate.Verdict.Abort a -> {
                    ctx.scope().root().stop(new StopReason(OutcomeStatus.DENIED, a.failure()));
                    return ToolResult.denied(call.id(), call.name(), a.failure().message());
                }
                case HumanGate.Verdict.Refused r -> {
                    return ToolResult.failed(call.id(), call.name(), r.failure());
                }
            }
        }
        if (sideEffects) {
            ctx.rt().journal().started(key, call.name(), arguments);
        }
        ToolResult result = switch (plan) {
            case CallPlan.RunTool t -> runTool(t.tool(), call, arguments, context);
            case CallPlan.Delegate d -> delegation.runWorker(index, d, call, arguments, turn, context);
            case CallPlan.Rejected r -> r.result();
        };
        // A call stopped mid-flight stays "started": its outcome is unknown, so a resume must not repeat it.
        if (sideEffects && !(result.status() == OutcomeStatus.CANCELLED || result.status() == OutcomeStatus.TIMEOUT)) {
            ctx.rt().journal().finished(key, result);
        }
        return result;
    }

    /** The tool's one-sentence account of the proposed call, or null (the tool has none, or it failed). */
    private static @Nullable String headline(Tool tool, JsonNode proposed) {
        if (!(tool instanceof ProposingTool proposing)) {
            return null;
        }
        try {
            ProposingTool.Words words = proposing.words(proposed);
            return words == null ? null : words.headline();
        } catch (RuntimeException e) {
            return null; // the generic line is shown; the proposal itself stands
        }
    }

    /** The result a side-effecting call already has in the journal, or null when it must run. */
    private @Nullable ToolResult journalled(JournalKey key, ToolCall call) {
        JournalEntry entry = ctx.rt().journal().find(key);
        return switch (entry) {
            // A re-run subagent may have chosen another tool at this position: that is a new action.
            case JournalEntry.Finished f when !f.result().toolName().equals(call.name()) -> null;
            case JournalEntry.Started s when !s.tool().equals(call.name()) -> null;
            case JournalEntry.Finished f -> f.result();
            case JournalEntry.Started s ->
                ToolResult.failed(
                        call.id(),
                        call.name(),
                        FailureCode.INTERRUPTED.failure("interrupted before its outcome was recorded; not re-run"));
            case null -> null;
        };
    }

    /**
     * What the model reads of a result: within the agent's cap, else head + tail and a handle to the
     * full output kept with the run. {@code tool_output_read} bounds its own pages and is not capped.
     */
    private String delivered(ToolContext toolContext, String tool, String out, Context context) {
        ToolOutputs outputs = ctx.rt().toolOutputs();
        ToolOutputs.Delivered d = ToolOutputs.READ_TOOL.equals(tool)
                ? ToolOutputs.whole(out)
                : outputs.deliver(
                        toolContext,
                        tool,
                        out,
                        outputs.budget().capFor(tool, ctx.spec().toolOutput()));
        ctx.rt().spans().toolOutput(Span.fromContext(context), d.originalBytes(), d.deliveredBytes(), d.handle());
        return d.content();
    }

    private ToolResult runTool(Tool tool, ToolCall call, JsonNode arguments, Context context)
            throws InterruptedException {
        try (Scope ignored = context.makeCurrent()) {
            ToolContext toolContext = new ToolContext(ctx.runId(), ctx.sessionId(), ctx.agent(), call.id());
            // The tool is a wait of the loop: a stop interrupts it (tools respond to interruption).
            String out = ctx.scope().await(() -> tool.execute(arguments, toolContext));
            return ToolResult.ok(
                    call.id(), call.name(), delivered(toolContext, call.name(), out == null ? "" : out, context));
        } catch (InterruptedException e) {
            throw e;
        } catch (ToolException e) {
            return ToolResult.failed(call.id(), call.name(), new Failure(e.category(), e.code(), e.getMessage()));
        } catch (Exception e) {
            StopReason stop = ctx.scope().stopReason();
            if (stop != null) {
                return ToolResult.failed(call.id(), call.name(), stop.status(), stop.failure());
            }
            return ToolResult.failed(
                    call.id(),
                    call.name(),
                    FailureCode.TOOL_FAILED.failure("tool " + call.name() + " failed: " + Errors.describe(e)));
        }
    }
}
