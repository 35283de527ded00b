package dev.cadre.agent.internal;

import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * JSON text without a Jackson generator, for the loop's hot path: a generator costs microseconds per
 * use, which is most of a subagent's orchestration overhead (measured; see docs/benchmarks).
 */
public final class JsonText {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonText() {}

    /** Appends {@code value} as a JSON string literal. */
    public static StringBuilder quote(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    /**
     * The length of the node's compact JSON text, give or take escapes, computed by walking the tree
     * instead of serialising it (token estimates need the size, not the text).
     */
    public static long approximateLength(JsonNode node) {
        if (node.isObject()) {
            long n = 2;
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                n += e.getKey().length() + 4 + approximateLength(e.getValue());
            }
            return n;
        }
        if (node.isArray()) {
            long n = 2;
            for (JsonNode e : node) {
                n += 1 + approximateLength(e);
            }
            return n;
        }
        if (node.isString()) {
            return node.stringValue().length() + 2;
        }
        if (node.isNull() || node.isMissingNode()) {
            return 4;
        }
        return node.asString().length();
    }
}
