package dev.cadre.agent.tool;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/** Factory for tools made of a lambda, the usual way to define ops tools and test tools. */
public final class Tools {

    private Tools() {}

    /** A tool whose schema is given as JSON text. */
    public static Tool of(String name, String description, String schemaJson, Risk risk, ToolFunction body) {
        return of(name, description, JsonSchemas.parse(schemaJson), risk, body);
    }

    /** A tool whose schema is given as a JSON tree. */
    public static Tool of(String name, String description, JsonNode schema, Risk risk, ToolFunction body) {
        ToolRegistry.checkName(name);
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(body, "body");
        JsonSchemas.checkObjectSchema(name, schema);
        return new FunctionTool(name, description, schema, risk, body);
    }

    private record FunctionTool(
            String name, String description, JsonNode parametersSchema, Risk risk, ToolFunction body) implements Tool {
        @Override
        public String execute(JsonNode arguments, ToolContext context) throws Exception {
            return body.apply(arguments, context);
        }
    }
}
