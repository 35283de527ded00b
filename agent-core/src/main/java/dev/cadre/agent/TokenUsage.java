package dev.cadre.agent;

/** Tokens spent by a model call, an agent or a whole run. */
public record TokenUsage(long inputTokens, long outputTokens) {

    /** No tokens spent. */
    public static final TokenUsage ZERO = new TokenUsage(0, 0);

    public TokenUsage {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
    }

    /** Input plus output tokens: what a token budget is charged. */
    public long total() {
        return inputTokens + outputTokens;
    }

    /** The sum of this usage and {@code other}. */
    public TokenUsage plus(TokenUsage other) {
        return new TokenUsage(inputTokens + other.inputTokens, outputTokens + other.outputTokens);
    }
}
