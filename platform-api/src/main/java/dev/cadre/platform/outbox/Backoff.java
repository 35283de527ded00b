package dev.cadre.platform.outbox;

import java.time.Duration;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * When to try again: exponential from {@code initial}, capped at {@code max}, with "equal jitter"
 * (half the delay fixed, half random) so a receiver that comes back is not hit by every sender at
 * the same instant; a receiver's own {@code Retry-After} wins, capped at {@code maxRetryAfter}.
 */
record Backoff(Duration initial, Duration max, Duration maxRetryAfter) {

    /** The wait after failed attempt number {@code attempt} (1 for the first). */
    Duration delay(int attempt, @Nullable Duration retryAfter, RandomGenerator random) {
        if (retryAfter != null) {
            return retryAfter.isNegative() ? Duration.ZERO : min(retryAfter, maxRetryAfter);
        }
        long ceiling = max.toMillis();
        long exp = initial.toMillis();
        for (int i = 1; i < attempt && exp < ceiling; i++) {
            exp *= 2;
        }
        exp = Math.min(exp, ceiling);
        long half = exp / 2;
        return Duration.ofMillis(exp - half + (half == 0 ? 0 : random.nextLong(half + 1)));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
