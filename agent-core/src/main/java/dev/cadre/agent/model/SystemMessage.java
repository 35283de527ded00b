package dev.cadre.agent.model;

import java.util.Objects;

/** The agent's instructions, always the first message of a history. */
public record SystemMessage(String text) implements Message {
    public SystemMessage {
        Objects.requireNonNull(text, "text");
    }
}
