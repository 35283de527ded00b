package dev.cadre.agent;

import java.time.Duration;
import java.util.Objects;

/**
 * What one agent may spend: model iterations, tokens (input plus output) and wall-clock time. For the
 * agent a run starts with, {@code maxTokens} is also the run-wide tree budget its subagents reserve
 * from.
 */
public record Budget(int maxIterations, long maxTokens, Duration timeout) {

    /** Ten iterations, 200,000 tokens, five minutes. */
    public static final Budget DEFAULT = new Budget(10, 200_000, Duration.ofMinutes(5));

    public Budget {
        Objects.requireNonNull(timeout, "timeout");
        if (maxIterations < 1) {
            throw new IllegalArgumentException("budget.maxIterations must be at least 1, was " + maxIterations);
        }
        if (maxTokens < 1) {
            throw new IllegalArgumentException("budget.maxTokens must be at least 1, was " + maxTokens);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("budget.timeout must be positive, was " + timeout);
        }
    }

    /** This budget with another iteration limit. */
    public Budget withMaxIterations(int value) {
        return new Budget(value, maxTokens, timeout);
    }

    /** This budget with another token limit. */
    public Budget withMaxTokens(long value) {
        return new Budget(maxIterations, value, timeout);
    }

    /** This budget with another time limit. */
    public Budget withTimeout(Duration value) {
        return new Budget(maxIterations, maxTokens, value);
    }
}
