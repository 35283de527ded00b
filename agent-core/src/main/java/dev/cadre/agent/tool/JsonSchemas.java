package dev.cadre.agent.tool;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Validation of tool arguments against the JSON-Schema subset tools use: {@code type} (one or a list),
 * {@code properties}, {@code required}, {@code additionalProperties} (boolean or schema), {@code enum},
 * {@code const}, {@code minimum}/{@code maximum}, {@code minLength}/{@code maxLength}, {@code items},
 * {@code minItems}/{@code maxItems}. Other keywords are ignored, so a richer schema still passes
 * through to the model unchanged.
 */
public final class JsonSchemas {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private JsonSchemas() {}

    /** Parses JSON text into a tree; a syntax error is an {@link IllegalArgumentException}. */
    public static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("invalid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** The problems of {@code instance} against {@code schema}, each naming its JSON path; empty when valid. */
    public static List<String> validate(JsonNode schema, JsonNode instance) {
        List<String> errors = new ArrayList<>();
        check(schema, instance, "$", errors);
        return errors;
    }

    static void checkObjectSchema(String toolName, JsonNode schema) {
        if (!schema.isObject() || !"object".equals(schema.path("type").asString(""))) {
            throw new IllegalArgumentException("tool '" + toolName
                    + "' must declare an object schema ({\"type\":\"object\", ...}) for its arguments");
        }
    }

    private static void check(JsonNode schema, JsonNode value, String path, List<String> errors) {
        if (!schema.isObject()) {
            return;
        }
        JsonNode type = schema.get("type");
        if (type != null && !matchesType(type, value)) {
            errors.add(path + ": expected " + typeText(type) + " but was " + describe(value));
            return;
        }
        JsonNode allowed = schema.get("enum");
        if (allowed != null && allowed.isArray() && !contains(allowed, value)) {
            errors.add(path + ": must be one of " + allowed);
        }
        JsonNode constant = schema.get("const");
        if (constant != null && !sameValue(constant, value)) {
            errors.add(path + ": must be " + constant);
        }
        if (value.isNumber()) {
            JsonNode min = schema.get("minimum");
            if (min != null && min.isNumber() && value.doubleValue() < min.doubleValue()) {
                errors.add(path + ": must be >= " + min);
            }
            JsonNode max = schema.get("maximum");
            if (max != null && max.isNumber() && value.doubleValue() > max.doubleValue()) {
                errors.add(path + ": must be <= " + max);
            }
        }
        if (value.isString()) {
            int length =
                    value.stringValue().codePointCount(0, value.stringValue().length());
            JsonNode minLength = schema.get("minLength");
            if (minLength != null && length < minLength.asInt()) {
                errors.add(path + ": must have at least " + minLength.asInt() + " characters");
            }
            JsonNode maxLength = schema.get("maxLength");
            if (maxLength != null && length > maxLength.asInt()) {
                errors.add(path + ": must have at most " + maxLength.asInt() + " characters");
            }
        }
        if (value.isArray()) {
            JsonNode minItems = schema.get("minItems");
            if (minItems != null && value.size() < minItems.asInt()) {
                errors.add(path + ": must have at least " + minItems.asInt() + " items");
            }
            JsonNode maxItems = schema.get("maxItems");
            if (maxItems != null && value.size() > maxItems.asInt()) {
                errors.add(path + ": must have at most " + maxItems.asInt() + " items");
            }
            JsonNode items = schema.get("items");
            if (items != null) {
                for (int i = 0; i < value.size(); i++) {
                    check(items, value.get(i), path + "[" + i + "]", errors);
                }
            }
        }
        if (value.isObject()) {
            JsonNode properties = schema.path("properties");
            JsonNode required = schema.get("required");
            if (required != null && required.isArray()) {
                for (JsonNode name : required) {
                    JsonNode present = value.get(name.asString());
                    if (present == null || present.isNull()) {
                        errors.add(path + ": missing required property '" + name.asString() + "'");
                    }
                }
            }
            JsonNode additional = schema.get("additionalProperties");
            for (Map.Entry<String, JsonNode> property : value.properties()) {
                JsonNode propertySchema = properties.get(property.getKey());
                String childPath = path + "." + property.getKey();
                if (propertySchema != null) {
                    check(propertySchema, property.getValue(), childPath, errors);
                } else if (additional != null && additional.isBoolean() && !additional.booleanValue()) {
                    errors.add(path + ": unknown property '" + property.getKey() + "'");
                } else if (additional != null && additional.isObject()) {
                    check(additional, property.getValue(), childPath, errors);
                }
            }
        }
    }

    private static boolean matchesType(JsonNode type, JsonNode value) {
        if (type.isArray()) {
            for (JsonNode one : type) {
                if (matchesType(one, value)) {
                    return true;
                }
            }
            return false;
        }
        return switch (type.asString()) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isString();
            case "boolean" -> value.isBoolean();
            case "null" -> value.isNull();
            case "number" -> value.isNumber();
            case "integer" ->
                value.isIntegralNumber() || (value.isNumber() && value.doubleValue() == Math.rint(value.doubleValue()));
            default -> true;
        };
    }

    private static boolean contains(JsonNode values, JsonNode value) {
        for (JsonNode candidate : values) {
            if (sameValue(candidate, value)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameValue(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.doubleValue() == b.doubleValue();
        }
        return a.equals(b);
    }

    private static String typeText(JsonNode type) {
        return type.isArray() ? type.toString() : type.asString();
    }

    private static String describe(JsonNode value) {
        if (value.isObject()) {
            return "object";
        }
        if (value.isArray()) {
            return "array";
        }
        if (value.isString()) {
            return "string";
        }
        if (value.isBoolean()) {
            return "boolean";
        }
        if (value.isNull()) {
            return "null";
        }
        if (value.isIntegralNumber()) {
            return "integer";
        }
        return value.isNumber() ? "number" : value.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    }
}
