package dev.cadre.platform.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Walks every operation of the platform's OpenAPI document ({@code /v3/api-docs}) and builds
 * requests its schemas accept, for the tests that hold a rule over every endpoint (unknown request
 * fields, team isolation): a new endpoint is in their walk without anyone adding it.
 */
public final class OpenApiWalk {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private OpenApiWalk() {}

    /** One operation: its method (upper case), path template and OpenAPI object. */
    public record Operation(String method, String path, JsonNode op) {

        /** "METHOD /path/{template}", as the tests name operations. */
        public String name() {
            return method + " " + path;
        }

        /** The JSON request body's schema, resolved; null when the operation takes none. */
        public @Nullable JsonNode bodySchema(JsonNode doc) {
            return op.has("requestBody") ? resolve(op.at("/requestBody/content/application~1json/schema"), doc) : null;
        }

        /** The media types of its 200 response. */
        public List<String> produces() {
            List<String> out = new ArrayList<>();
            op.at("/responses/200/content").propertyNames().forEach(out::add);
            return out;
        }
    }

    /** Every operation of the document, in its order. */
    public static List<Operation> operations(JsonNode doc) {
        List<Operation> out = new ArrayList<>();
        for (var path : doc.get("paths").properties()) {
            for (var entry : path.getValue().properties()) {
                out.add(new Operation(entry.getKey().toUpperCase(Locale.ROOT), path.getKey(), entry.getValue()));
            }
        }
        return out;
    }

    /** The schema behind a {@code $ref}, or the schema itself. */
    public static JsonNode resolve(JsonNode schema, JsonNode doc) {
        return schema.has("$ref") ? resolve(doc.at(schema.get("$ref").asString().substring(1)), doc) : schema;
    }

    /** The required query parameters of an operation, each set to {@code sample} ("" when none). */
    public static String requiredQuery(JsonNode op) {
        StringBuilder q = new StringBuilder();
        for (JsonNode p : op.path("parameters")) {
            if (p.path("in").asString().equals("query") && p.path("required").asBoolean(false)) {
                q.append(q.isEmpty() ? "?" : "&")
                        .append(p.get("name").asString())
                        .append("=sample");
            }
        }
        return q.toString();
    }

    /** A value the schema accepts: its example, default or first enum value, else one of its type. */
    public static JsonNode sample(JsonNode schema, JsonNode doc) {
        JsonNode s = resolve(schema, doc);
        for (String given : List.of("example", "default")) {
            if (s.has(given)) {
                return s.get(given);
            }
        }
        if (s.has("enum")) {
            return s.get("enum").get(0);
        }
        String type = s.path("type").isArray()
                ? s.get("type").get(0).asString()
                : s.path("type").asString("object");
        return switch (type) {
            case "string" -> NODES.stringNode("sample");
            case "integer", "number" ->
                NODES.numberNode(Math.max(1, s.path("minimum").asLong(1)));
            case "boolean" -> NODES.booleanNode(true);
            case "array" -> NODES.arrayNode().add(sample(s.path("items"), doc));
            default -> {
                ObjectNode o = NODES.objectNode();
                for (var property : s.path("properties").properties()) {
                    o.set(property.getKey(), sample(property.getValue(), doc));
                }
                yield o;
            }
        };
    }
}
