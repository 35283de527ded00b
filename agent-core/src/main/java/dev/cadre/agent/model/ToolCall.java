package dev.cadre.agent.model;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * A tool call the model asked for: an id unique within the session, a tool name and JSON arguments.
 * Arguments a provider sent that are not a JSON object are kept as they came — a string node holding
 * raw text that did not parse, or the non-object value — and the loop answers such a call with an
 * {@code invalid_arguments} error result the model can correct, instead of failing the run.
 */
public record ToolCall(String id, String name, JsonNode arguments) {
    public ToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
    }
}
