package dev.cadre.agent.model;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/** A tool call the model asked for: an id unique within the session, a tool name and JSON arguments. */
public record ToolCall(String id, String name, JsonNode arguments) {
    public ToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
    }
}
