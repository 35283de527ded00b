package dev.cadre.agent.model;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/** What the model is told about a tool: name, description and the JSON schema of its arguments. */
public record ToolDefinition(String name, String description, JsonNode parametersSchema) {
    public ToolDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(parametersSchema, "parametersSchema");
    }
}
