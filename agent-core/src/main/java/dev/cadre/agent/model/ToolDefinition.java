package dev.cadre.agent.model;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * What the model is told about a tool: name, description and the JSON schema of its arguments. The
 * schema kept is always the {@linkplain ModelSchemas#forModel model-facing form} of the one given, so
 * no path to a provider can carry a bound or keyword a real inference server rejects; the tool's own
 * schema, with all its limits, is what calls are validated against.
 */
public record ToolDefinition(String name, String description, JsonNode parametersSchema) {
    public ToolDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        parametersSchema = ModelSchemas.forModel(Objects.requireNonNull(parametersSchema, "parametersSchema"));
    }
}
