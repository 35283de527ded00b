package dev.cadre.agent;

/**
 * Tokens spent by a model call, an agent or a whole run. {@code inputTokens} counts every prompt
 * token, also those a provider served from or wrote to its prompt cache, so budgets bind on what the
 * model really read; {@code cacheReadTokens} and {@code cacheWriteTokens} say how many of them were
 * read from / written to the cache (priced differently by most providers).
 */
public record TokenUsage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens) {

    /** No tokens spent. */
    public static final TokenUsage ZERO = new TokenUsage(0, 0);

    public TokenUsage {
        if (inputTokens < 0 || outputTokens < 0 || cacheReadTokens < 0 || cacheWriteTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
        if (cacheReadTokens + cacheWriteTokens > inputTokens) {
            throw new IllegalArgumentException("cached input tokens (" + cacheReadTokens + " read, " + cacheWriteTokens
                    + " written) are part of the input tokens (" + inputTokens + ") and cannot exceed them");
        }
    }

    /** Usage without prompt caching. */
    public TokenUsage(long inputTokens, long outputTokens) {
        this(inputTokens, outputTokens, 0, 0);
    }

    /** Input plus output tokens: what a token budget is charged. */
    public long total() {
        return inputTokens + outputTokens;
    }

    /** The sum of this usage and {@code other}. */
    public TokenUsage plus(TokenUsage other) {
        return new TokenUsage(
                inputTokens + other.inputTokens,
                outputTokens + other.outputTokens,
                cacheReadTokens + other.cacheReadTokens,
                cacheWriteTokens + other.cacheWriteTokens);
    }
}
