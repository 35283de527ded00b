package dev.cadre.agent.model;

import dev.cadre.agent.TokenUsage;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The model's answer: text and/or tool calls, the tokens it cost, and whether the output was cut
 * short by {@link ModelRequest#maxOutputTokens()} (which the loop treats as budget exhaustion).
 */
public record ModelResponse(@Nullable String text, List<ToolCall> toolCalls, TokenUsage usage, boolean truncated) {
    public ModelResponse {
        toolCalls = List.copyOf(toolCalls);
    }

    /** A complete answer. */
    public ModelResponse(@Nullable String text, List<ToolCall> toolCalls, TokenUsage usage) {
        this(text, toolCalls, usage, false);
    }
}
