package dev.cadre.agent.model;

import java.util.Objects;

/** The task an agent was given (for a subagent: task, context and read-only inputs). */
public record UserMessage(String text) implements Message {
    public UserMessage {
        Objects.requireNonNull(text, "text");
    }
}
