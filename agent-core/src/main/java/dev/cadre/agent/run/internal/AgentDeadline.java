package dev.cadre.agent.run.internal;

import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One agent's timeout: the timer that stops its scope when its budget's time runs out, and the
 * deadline its workers and its model port wait against (its own or an ancestor's, whichever is
 * first). A resumed agent counts the time it ran before the restart.
 */
final class AgentDeadline {

    private final AgentContext ctx;
    private final long elapsedBeforeNanos;
    // Absolute System.nanoTime() deadline of this agent, set when it starts.
    private long deadlineNanos;

    AgentDeadline(AgentContext ctx, long elapsedBeforeNanos) {
        this.ctx = ctx;
        this.elapsedBeforeNanos = elapsedBeforeNanos;
    }

    /**
     * Fixes the deadline from the agent's start and schedules the stop; null when no timer of its own
     * is needed (already out of time, or an ancestor stops first and its stop reaches this scope).
     */
    @Nullable
    ScheduledFuture<?> start(long startNanos) {
        long remaining = ctx.spec().budget().timeout().toNanos() - elapsedBeforeNanos;
        if (remaining <= 0) {
            ctx.scope().stop(timeoutReason());
            return null;
        }
        deadlineNanos = startNanos + remaining;
        Long inherited = ctx.inheritedDeadlineNanos();
        if (inherited != null && deadlineNanos - inherited >= 0) {
            return null;
        }
        return ctx.rt().timer().schedule(() -> ctx.scope().stop(timeoutReason()), remaining, TimeUnit.NANOSECONDS);
    }

    /** The deadline a worker of this agent inherits: this agent's or an ancestor's, whichever is first. */
    long forChildren() {
        Long inherited = ctx.inheritedDeadlineNanos();
        return inherited != null && inherited - deadlineNanos < 0 ? inherited : deadlineNanos;
    }

    /** This agent's deadline as a wall-clock instant, for a model port's waits; null when it has none. */
    @Nullable
    Instant asInstant() {
        long deadline = forChildren();
        if (deadline == 0) {
            return null;
        }
        return Instant.now().plusNanos(deadline - System.nanoTime());
    }

    private StopReason timeoutReason() {
        return new StopReason(
                OutcomeStatus.TIMEOUT,
                FailureCode.AGENT_TIMEOUT.failure("agent '" + ctx.spec().name() + "' exceeded its timeout of "
                        + ctx.spec().budget().timeout()));
    }
}
