package dev.cadre.agent.model;

import java.util.Objects;

/** The observation for one tool call, paired with it by {@code callId}; errors are results too. */
public record ToolResultMessage(String callId, String toolName, String content, boolean error) implements Message {
    public ToolResultMessage {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(content, "content");
    }
}
