package dev.cadre.agent.model;

import dev.cadre.agent.TokenUsage;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The model's answer: text and/or tool calls, the tokens it cost, and whether the output was cut
 * short by {@link ModelRequest#maxOutputTokens()} (which the loop treats as budget exhaustion).
 *
 * @param cost what the call cost in the price table's currency, rounded to its micro-unit (0 when
 *     the model has no price)
 * @param fallback when a fallback model answered because the configured one was unavailable: which
 *     and why, e.g. {@code openai:gpt-4o unavailable (provider_circuit_open); answered by ollama:llama3};
 *     the loop records it in the run
 * @param answeredBy the model that answered when it is not the one asked for (a fallback), null when
 *     it is: the loop prices, labels and names the call by the model that answered
 */
public record ModelResponse(
        @Nullable String text,
        List<ToolCall> toolCalls,
        TokenUsage usage,
        boolean truncated,
        double cost,
        @Nullable String fallback,
        @Nullable ModelRef answeredBy) {
    public ModelResponse {
        toolCalls = List.copyOf(toolCalls);
        cost = Costs.round(cost);
    }

    /** An answer of the model asked for, with its cost and fallback note. */
    public ModelResponse(
            @Nullable String text,
            List<ToolCall> toolCalls,
            TokenUsage usage,
            boolean truncated,
            double cost,
            @Nullable String fallback) {
        this(text, toolCalls, usage, truncated, cost, fallback, null);
    }

    /** An answer without price or fallback. */
    public ModelResponse(@Nullable String text, List<ToolCall> toolCalls, TokenUsage usage, boolean truncated) {
        this(text, toolCalls, usage, truncated, 0, null);
    }

    /** A complete answer. */
    public ModelResponse(@Nullable String text, List<ToolCall> toolCalls, TokenUsage usage) {
        this(text, toolCalls, usage, false);
    }

    /** The same answer, noting that the fallback model {@code by} gave it, and why. */
    public ModelResponse withFallback(ModelRef by, String note) {
        return new ModelResponse(text, toolCalls, usage, truncated, cost, note, by);
    }
}
