package dev.cadre.platform.a2a;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Typed reads of JSON-RPC params. Each failure is an invalid-params error naming the param by its
 * path (e.g. {@code message.parts[0].text}), so a client sees exactly what to fix.
 */
final class Params {

    private Params() {}

    static ObjectNode object(@Nullable JsonNode node, String path) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            throw JsonRpcException.invalidParams(path, "required (an object)");
        }
        if (!node.isObject()) {
            throw JsonRpcException.invalidParams(path, "must be an object, was " + kind(node));
        }
        return (ObjectNode) node;
    }

    static @Nullable ObjectNode optionalObject(ObjectNode parent, String field, String path) {
        JsonNode node = parent.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        return object(node, path);
    }

    static String string(ObjectNode parent, String field, String path) {
        String value = optionalString(parent, field, path);
        if (value == null || value.isBlank()) {
            throw JsonRpcException.invalidParams(path, "required (a non-empty string)");
        }
        return value;
    }

    static @Nullable String optionalString(ObjectNode parent, String field, String path) {
        JsonNode node = parent.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isString()) {
            throw JsonRpcException.invalidParams(path, "must be a string, was " + kind(node));
        }
        return node.asString();
    }

    static @Nullable Boolean optionalBoolean(ObjectNode parent, String field, String path) {
        JsonNode node = parent.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isBoolean()) {
            throw JsonRpcException.invalidParams(path, "must be true or false, was " + kind(node));
        }
        return node.booleanValue();
    }

    static @Nullable Integer optionalInt(ObjectNode parent, String field, String path, int min, int max) {
        JsonNode node = parent.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < min || node.intValue() > max) {
            throw JsonRpcException.invalidParams(
                    path, "must be an integer from " + min + " to " + max + ", was " + node);
        }
        return node.intValue();
    }

    static String kind(JsonNode node) {
        if (node.isObject()) {
            return "an object";
        }
        if (node.isArray()) {
            return "an array";
        }
        if (node.isString()) {
            return "a string";
        }
        if (node.isNumber()) {
            return "a number";
        }
        if (node.isBoolean()) {
            return "a boolean";
        }
        return "null";
    }
}
