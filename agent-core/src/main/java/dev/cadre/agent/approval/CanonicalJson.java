package dev.cadre.agent.approval;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Canonical JSON text: the same value always gives the same characters, however it was written.
 * Object keys are sorted (by UTF-16 code units, as RFC 8785), there is no whitespace, numbers are
 * normalised ({@code 1}, {@code 1.0}, {@code 1e0} and {@code 10E-1} are all {@code 1}; {@code -0}
 * is {@code 0}; no exponent), and strings escape only what JSON requires ({@code "}, {@code \},
 * control characters). Used to hash an action so that an approval binds to what it means, not to
 * how a model happened to format it.
 */
public final class CanonicalJson {

    private CanonicalJson() {}

    /** The canonical text of {@code node}; a missing node is {@code null}. */
    public static String write(JsonNode node) {
        StringBuilder out = new StringBuilder();
        write(node, out);
        return out.toString();
    }

    private static void write(JsonNode node, StringBuilder out) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            out.append("null");
        } else if (node.isObject()) {
            List<Map.Entry<String, JsonNode>> fields = new ArrayList<>(node.properties());
            fields.sort(Map.Entry.comparingByKey());
            out.append('{');
            for (int i = 0; i < fields.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                string(fields.get(i).getKey(), out);
                out.append(':');
                write(fields.get(i).getValue(), out);
            }
            out.append('}');
        } else if (node.isArray()) {
            out.append('[');
            for (int i = 0; i < node.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(node.get(i), out);
            }
            out.append(']');
        } else if (node.isNumber()) {
            if ((node.isDouble() || node.isFloat()) && !Double.isFinite(node.doubleValue())) {
                string(node.asString(), out); // NaN and infinities are not JSON; a parser never makes them
            } else {
                out.append(number(node.decimalValue()));
            }
        } else if (node.isBoolean()) {
            out.append(node.booleanValue());
        } else if (node.isString()) {
            string(node.asString(), out);
        } else {
            // Binary or POJO nodes never come from parsed JSON; their JSON text is their value.
            string(node.asString(), out);
        }
    }

    /**
     * A number without trailing zeros or exponent: equal values, equal text. Beyond 1000 digits of
     * exponent the (still canonical) scientific form keeps {@code 1e999999} from becoming a megabyte.
     */
    static String number(BigDecimal value) {
        BigDecimal v = value.stripTrailingZeros();
        if (v.signum() == 0) {
            return "0";
        }
        if (Math.abs((long) v.scale()) > 1000) {
            return v.toString();
        }
        return v.scale() <= 0 ? v.toBigIntegerExact().toString() : v.toPlainString();
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
