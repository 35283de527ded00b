package dev.cadre.agent.run.internal;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.ModelException;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.telemetry.AgentTelemetryListener;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One model call of an agent loop: its {@code chat} span, the live text pieces, the telemetry listener's
 * record, and the failure a port's exception becomes. What the answer does to budgets and history is the
 * loop's business.
 */
final class ModelCall {

    /** How a model call ended. */
    sealed interface Result {}

    /** The model answered. */
    record Answered(ModelResponse response) implements Result {}

    /** The call was interrupted because the agent's scope was stopped. */
    record Stopped(StopReason reason) implements Result {}

    /** The port failed. */
    record Failed(Failure failure) implements Result {}

    private final AgentContext ctx;
    private final SessionStream stream;
    private final ModelPort model;

    ModelCall(AgentContext ctx, SessionStream stream, ModelPort model) {
        this.ctx = ctx;
        this.stream = stream;
        this.model = model;
    }

    /** Calls the model; {@code turn} is the number of the turn this answer will be. */
    Result call(Context context, ModelRequest request, int turn) {
        ModelRef ref = ctx.spec().model();
        Span chat = ctx.rt().spans().startChat(context, ref, ctx.runId(), ctx.sessionId(), ctx.agent());
        long t0 = System.nanoTime();
        ModelResponse response;
        // The chat span is current while the port runs, so an HTTP-backed port propagates it
        // (W3C traceparent) to the provider and the provider's own spans join this trace.
        try (Scope ignored = context.with(chat).makeCurrent()) {
            // Streamed text is shown live (not stored); the turn's whole text is stored by the loop.
            response = ctx.scope()
                    .await(() -> model.stream(
                            request, piece -> stream.emitLive(m -> new AgentEvent.TextDelta(m, piece, true))));
            if (response == null) {
                throw new ModelException(FailureCode.EMPTY_RESPONSE.code(), "the model port returned no response");
            }
        } catch (InterruptedException e) {
            StopReason s = ctx.scope().stopReasonOrCancelled();
            ended(chat, null, s.failure(), t0, 0, ref);
            return new Stopped(s);
        } catch (ModelException e) {
            Failure f = new Failure(e.category(), e.code(), "model call failed: " + e.getMessage());
            ended(chat, null, f, t0, 0, ref);
            return new Failed(f);
        } catch (RuntimeException e) {
            Failure f = FailureCode.MODEL_ERROR.failure("model call failed: " + Errors.describe(e));
            ended(chat, null, f, t0, 0, ref);
            return new Failed(f);
        }
        // A fallback's answer is priced (by its port), counted and named by the model that gave it.
        ModelRef answered = response.answeredBy() != null ? response.answeredBy() : ref;
        if (!answered.equals(ref)) {
            ctx.rt().spans().answeredBy(chat, answered, ref);
        }
        ended(chat, response.usage(), null, t0, response.cost(), answered);
        String fallback = response.fallback();
        if (fallback != null) {
            stream.emit(m -> new AgentEvent.Status(m, "model fallback: " + fallback, turn));
        }
        return new Answered(response);
    }

    private void ended(
            Span chat, @Nullable TokenUsage used, @Nullable Failure failure, long t0, double cost, ModelRef answered) {
        ctx.rt().spans().endChat(chat, used, failure, cost);
        ctx.rt()
                .listener()
                .modelCallFinished(new AgentTelemetryListener.ModelCallFinished(
                        ctx.runId(),
                        ctx.sessionId(),
                        ctx.agent(),
                        answered,
                        used == null ? TokenUsage.ZERO : used,
                        failure == null ? null : failure.category(),
                        Duration.ofNanos(System.nanoTime() - t0),
                        cost));
    }
}
