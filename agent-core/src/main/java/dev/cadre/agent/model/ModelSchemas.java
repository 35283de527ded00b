package dev.cadre.agent.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The argument schema a model provider is shown, derived from the schema the server validates
 * arguments with. Validation keeps its limits; the model-facing copy keeps only what real inference
 * servers accept. llama.cpp (and the servers built on it) compiles a tool's schema into a sampling
 * grammar and answers HTTP 400 "failed to parse grammar" for a repetition bound of 2000 or more
 * ({@code "maxLength": 2000}); a bound above 2000 it silently drops; a boolean sub-schema, an
 * unanchored {@code pattern} or a remote {@code $ref} fail its conversion too. So the derived schema
 * keeps repetition bounds up to {@link #MAX_REPETITION_BOUND} (small enough that the grammar stays
 * small) and states larger ones, and any {@code pattern}, in the description instead; it keeps only
 * {@linkplain #problems the keywords} those servers compile. Loosening is safe: every call is still
 * validated against the full schema before it runs.
 */
public final class ModelSchemas {

    /**
     * The largest {@code minLength}/{@code maxLength}/{@code minItems}/{@code maxItems} shown to a
     * model: half of llama.cpp's grammar limit (2000 repetitions of a rule), since a bound becomes as
     * many grammar rules, and an array's item group can count more than once against that limit.
     */
    public static final int MAX_REPETITION_BOUND = 1000;

    private static final Set<String> TYPES =
            Set.of("object", "array", "string", "number", "integer", "boolean", "null");
    private static final Set<String> BOUNDS = Set.of("minLength", "maxLength", "minItems", "maxItems");
    private static final Set<String> NUMBER_LIMITS =
            Set.of("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum");
    private static final Set<String> TEXTS = Set.of("description", "title", "format");
    private static final Set<String> COMBINATIONS = Set.of("anyOf", "oneOf", "allOf", "prefixItems");
    private static final Set<String> DEFINITIONS = Set.of("$defs", "definitions");
    private static final Set<String> OTHER = Set.of(
            "type", "enum", "const", "default", "properties", "required", "additionalProperties", "items", "$ref");
    // Integers beyond ±2^53 lose precision as JSON numbers in many clients; llama.cpp reads int64.
    private static final double LARGEST_EXACT = 9_007_199_254_740_992d;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ModelSchemas() {}

    /**
     * The model-facing copy of a validation schema: unsupported keywords dropped, large repetition
     * bounds and patterns moved into the description, boolean sub-schemas made plain. Idempotent.
     */
    public static JsonNode forModel(JsonNode validationSchema) {
        return derive(validationSchema);
    }

    /**
     * What in a model-facing schema a real inference server would reject or silently drop, each
     * naming its JSON path; empty when the schema is fine. {@link #forModel} always yields an empty list.
     */
    public static List<String> problems(JsonNode modelSchema) {
        List<String> problems = new ArrayList<>();
        check(modelSchema, "$", problems);
        return problems;
    }

    private static JsonNode derive(JsonNode schema) {
        ObjectNode out = NODES.objectNode();
        if (!schema.isObject()) {
            // true (anything) and any non-schema become {}; false is loosened too — the server still validates.
            return out;
        }
        List<String> hints = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : schema.properties()) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            switch (key) {
                case "type" -> {
                    JsonNode type = types(value);
                    if (type != null) {
                        out.set(key, type);
                    }
                }
                case "description", "title", "format" -> {
                    if (value.isString()) {
                        out.set(key, value);
                    }
                }
                case "enum" -> {
                    if (value.isArray() && !value.isEmpty()) {
                        out.set(key, value);
                    }
                }
                case "const", "default" -> out.set(key, value);
                case "required" -> {
                    if (value.isArray()) {
                        ArrayNode names = out.putArray(key);
                        value.forEach(n -> {
                            if (n.isString()) {
                                names.add(n);
                            }
                        });
                    }
                }
                case "properties" -> {
                    if (value.isObject()) {
                        ObjectNode properties = out.putObject(key);
                        for (Map.Entry<String, JsonNode> p : value.properties()) {
                            // A property whose schema is false may never be sent: not telling the model is enough.
                            if (!(p.getValue().isBoolean() && !p.getValue().booleanValue())) {
                                properties.set(p.getKey(), derive(p.getValue()));
                            }
                        }
                    }
                }
                case "additionalProperties" -> {
                    if (value.isBoolean()) {
                        out.set(key, value);
                    } else if (value.isObject()) {
                        out.set(key, derive(value));
                    }
                }
                case "items" -> out.set(key, value.isArray() ? deriveAll(value) : derive(value));
                case "anyOf", "oneOf", "allOf", "prefixItems" -> {
                    if (value.isArray() && !value.isEmpty()) {
                        out.set(key, deriveAll(value));
                    }
                }
                case "$defs", "definitions" -> {
                    if (value.isObject()) {
                        ObjectNode defs = out.putObject(key);
                        for (Map.Entry<String, JsonNode> d : value.properties()) {
                            defs.set(d.getKey(), derive(d.getValue()));
                        }
                    }
                }
                case "$ref" -> {
                    // Only references inside the schema resolve without fetching anything.
                    if (value.isString() && value.stringValue().startsWith("#")) {
                        out.set(key, value);
                    }
                }
                case "minLength", "maxLength", "minItems", "maxItems" -> {
                    if (isCount(value)) {
                        if (value.doubleValue() <= MAX_REPETITION_BOUND) {
                            out.put(key, value.asInt());
                        } else {
                            hints.add(boundText(key, value.doubleValue()));
                        }
                    }
                }
                case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum" -> {
                    if (value.isNumber() && Math.abs(value.doubleValue()) <= LARGEST_EXACT) {
                        out.set(key, value);
                    }
                }
                case "pattern" -> {
                    if (value.isString()) {
                        hints.add("matching the regular expression " + value.stringValue());
                    }
                }
                default -> {
                    // Not compiled by grammar-constrained servers (or not understood by some providers).
                }
            }
        }
        if (!hints.isEmpty()) {
            String stated = "(" + String.join("; ", hints) + ")";
            String description = out.path("description").asString("");
            out.put("description", description.isBlank() ? stated : description + " " + stated);
        }
        return out;
    }

    private static ArrayNode deriveAll(JsonNode schemas) {
        ArrayNode out = NODES.arrayNode();
        schemas.forEach(s -> out.add(derive(s)));
        return out;
    }

    private static JsonNode types(JsonNode type) {
        if (type.isString()) {
            return TYPES.contains(type.stringValue()) ? type : null;
        }
        if (type.isArray()) {
            ArrayNode known = NODES.arrayNode();
            type.forEach(t -> {
                if (t.isString() && TYPES.contains(t.stringValue())) {
                    known.add(t);
                }
            });
            return known.isEmpty() ? null : known;
        }
        return null;
    }

    private static boolean isCount(JsonNode value) {
        return value.isNumber() && value.canConvertToExactIntegral() && value.doubleValue() >= 0;
    }

    private static String boundText(String keyword, double value) {
        String bound = value <= Long.MAX_VALUE ? Long.toString((long) value) : value + "";
        return switch (keyword) {
            case "minLength" -> "at least " + bound + " characters";
            case "maxLength" -> "at most " + bound + " characters";
            case "minItems" -> "at least " + bound + " items";
            default -> "at most " + bound + " items";
        };
    }

    private static void check(JsonNode schema, String path, List<String> problems) {
        if (!schema.isObject()) {
            problems.add(path + ": a sub-schema must be an object, not " + schema);
            return;
        }
        for (Map.Entry<String, JsonNode> e : schema.properties()) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            String at = path + "." + key;
            if (BOUNDS.contains(key)) {
                if (!isCount(value)) {
                    problems.add(at + ": must be a non-negative integer");
                } else if (value.doubleValue() > MAX_REPETITION_BOUND) {
                    problems.add(at + ": " + value + " is above " + MAX_REPETITION_BOUND
                            + " (llama.cpp rejects 2000 and more with 'failed to parse grammar')");
                }
            } else if (NUMBER_LIMITS.contains(key)) {
                if (!value.isNumber()) {
                    problems.add(at + ": must be a number");
                }
            } else if (TEXTS.contains(key)) {
                if (!value.isString()) {
                    problems.add(at + ": must be a string");
                }
            } else if (COMBINATIONS.contains(key)) {
                if (!value.isArray() || value.isEmpty()) {
                    problems.add(at + ": must be a non-empty array of schemas");
                } else {
                    for (int i = 0; i < value.size(); i++) {
                        check(value.get(i), at + "[" + i + "]", problems);
                    }
                }
            } else if (DEFINITIONS.contains(key) || key.equals("properties")) {
                if (!value.isObject()) {
                    problems.add(at + ": must be an object of schemas");
                }
                for (Map.Entry<String, JsonNode> d : value.properties()) {
                    check(d.getValue(), at + "." + d.getKey(), problems);
                }
            } else if (OTHER.contains(key)) {
                checkOther(key, value, at, problems);
            } else {
                problems.add(at + ": keyword not supported by grammar-constrained inference servers");
            }
        }
    }

    private static void checkOther(String key, JsonNode value, String at, List<String> problems) {
        switch (key) {
            case "type" -> {
                if (types(value) == null || (value.isArray() && types(value).size() != value.size())) {
                    problems.add(at + ": unknown type " + value);
                }
            }
            case "enum" -> {
                if (!value.isArray() || value.isEmpty()) {
                    problems.add(at + ": must be a non-empty array");
                }
            }
            case "items" -> {
                if (value.isArray()) {
                    for (int i = 0; i < value.size(); i++) {
                        check(value.get(i), at + "[" + i + "]", problems);
                    }
                } else {
                    check(value, at, problems);
                }
            }
            case "additionalProperties" -> {
                if (!value.isBoolean()) {
                    check(value, at, problems);
                }
            }
            case "$ref" -> {
                if (!value.isString() || !value.stringValue().startsWith("#")) {
                    problems.add(at + ": only references inside the schema (#/...) resolve");
                }
            }
            case "required" -> {
                if (!value.isArray()) {
                    problems.add(at + ": must be an array of property names");
                }
            }
            default -> {
                // const and default: any value.
            }
        }
    }
}
