package dev.cadre.platform.models;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The circuit breaker of one provider endpoint. {@code failureThreshold} consecutive failed attempts
 * that say the provider is unavailable (5xx, refused connection, no answer in time) open it: calls
 * then fail at once with {@code provider_circuit_open} instead of each run waiting out its own
 * timeouts and retries. After {@code openDuration} one call is let through (half-open): its success
 * closes the circuit, its failure opens it again. Any answer that is not such a failure (even a 400 or
 * a 429: the provider is up) counts as a success.
 */
final class CircuitBreaker {

    /** The states, numbered as the {@code cadre_provider_circuit_state} gauge reports them. */
    enum State {
        CLOSED,
        OPEN,
        HALF_OPEN;

        int gauge() {
            return ordinal();
        }
    }

    private final String provider;
    private final int failureThreshold;
    private final long openNanos;
    private final LongSupplier nanoClock;
    private State state = State.CLOSED;
    private int failures;
    private long openedAt;
    private boolean probing;

    CircuitBreaker(String provider, int failureThreshold, Duration openDuration, LongSupplier nanoClock) {
        this.provider = provider;
        this.failureThreshold = failureThreshold;
        this.openNanos = openDuration.toNanos();
        this.nanoClock = nanoClock;
    }

    String provider() {
        return provider;
    }

    /** Whether an attempt may go to the provider now; a half-open circuit lets one probe through. */
    synchronized boolean tryAcquire() {
        if (state == State.OPEN && nanoClock.getAsLong() - openedAt >= openNanos) {
            state = State.HALF_OPEN;
            probing = false;
        }
        return switch (state) {
            case CLOSED -> true;
            case OPEN -> false;
            case HALF_OPEN -> {
                if (probing) {
                    yield false;
                }
                probing = true;
                yield true;
            }
        };
    }

    /** The provider answered (whatever it answered, it is there). */
    synchronized void onSuccess() {
        failures = 0;
        probing = false;
        state = State.CLOSED;
    }

    /** An attempt failed in a way that says the provider is unavailable. */
    synchronized void onFailure() {
        probing = false;
        if (state == State.HALF_OPEN || ++failures >= failureThreshold) {
            state = State.OPEN;
            openedAt = nanoClock.getAsLong();
            failures = 0;
        }
    }

    /** An attempt ended without telling anything (cancelled): a half-open circuit may probe again. */
    synchronized void onAbandoned() {
        probing = false;
    }

    /** The state as a gauge shows it: an open circuit whose wait is over reads half-open. */
    synchronized State state() {
        if (state == State.OPEN && nanoClock.getAsLong() - openedAt >= openNanos) {
            return State.HALF_OPEN;
        }
        return state;
    }

    /** Seconds until an open circuit lets a probe through (0 when not open). */
    synchronized long secondsUntilProbe() {
        if (state != State.OPEN) {
            return 0;
        }
        return Math.max(
                0,
                Duration.ofNanos(openNanos - (nanoClock.getAsLong() - openedAt)).toSeconds());
    }
}
