package dev.cadre.agent.model;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** What the model answered in one turn: text, tool calls, or both. */
public record AssistantMessage(@Nullable String text, List<ToolCall> toolCalls) implements Message {
    public AssistantMessage {
        toolCalls = List.copyOf(toolCalls);
    }
}
