package dev.cadre.platform.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Removes secrets before anything is stored, streamed or traced: values of fields whose names look
 * secret (password, token, api key, authorization, …) and substrings that look like credentials
 * (bearer tokens, provider keys, Cadre keys, and any configured pattern).
 */
@Component
public class SecretRedactor {

    public static final String MASK = "[REDACTED]";

    private static final Pattern SECRET_FIELD = Pattern.compile(
            "(?i).*(password|passwd|secret|token|api[_-]?key|apikey|authorization|credential|private[_-]?key).*");

    private final List<Pattern> valuePatterns = new ArrayList<>();
    private final tools.jackson.databind.json.JsonMapper json =
            tools.jackson.databind.json.JsonMapper.builder().build();

    SecretRedactor(@Value("${cadre.redaction.patterns:}") List<String> extraPatterns) {
        valuePatterns.add(Pattern.compile("(?i)bearer\\s+[A-Za-z0-9._~+/=-]{8,}"));
        valuePatterns.add(Pattern.compile("\\bcadre_[A-Za-z0-9]{16,}"));
        valuePatterns.add(Pattern.compile("\\bsk-[A-Za-z0-9_-]{16,}"));
        valuePatterns.add(Pattern.compile("\\bgh[pousr]_[A-Za-z0-9]{20,}"));
        valuePatterns.add(Pattern.compile("\\bxox[abpr]-[A-Za-z0-9-]{10,}"));
        valuePatterns.add(Pattern.compile("\\bAKIA[0-9A-Z]{16}\\b"));
        valuePatterns.add(Pattern.compile(
                "(?i)(?<![a-z])(password|passwd|secret|token|api[_-]?key)[\"']?\\s*[=:]\\s*[\"']?[^\\s,;\"'}]+"));
        for (String p : extraPatterns) {
            if (!p.isBlank()) {
                valuePatterns.add(Pattern.compile(p));
            }
        }
    }

    public String redactText(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String trimmed = text.strip();
        if ((trimmed.startsWith("{") && trimmed.endsWith("}")) || (trimmed.startsWith("[") && trimmed.endsWith("]"))) {
            try {
                return redact(json.readTree(trimmed)).toString();
            } catch (RuntimeException notJson) {
                // fall through to the textual patterns
            }
        }
        String out = text;
        for (Pattern p : valuePatterns) {
            out = p.matcher(out).replaceAll(MASK);
        }
        return out;
    }

    public JsonNode redact(JsonNode node) {
        if (node == null) {
            return null;
        }
        if (node.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                if (SECRET_FIELD.matcher(e.getKey()).matches() && !e.getValue().isContainer()) {
                    copy.put(e.getKey(), MASK);
                } else {
                    copy.set(e.getKey(), redact(e.getValue()));
                }
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            node.forEach(n -> copy.add(redact(n)));
            return copy;
        }
        if (node.isString()) {
            String red = redactText(node.asString());
            return red.equals(node.asString()) ? node : JsonNodeFactory.instance.stringNode(red);
        }
        return node;
    }
}
