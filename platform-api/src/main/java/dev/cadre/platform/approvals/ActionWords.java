package dev.cadre.platform.approvals;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A tool call in words for the person deciding it, when the tool has no words of its own: one
 * sentence built from the action ("Restart service with host web-7 and service api.") and each bound
 * argument as a line ("host: web-7"). Nested values are named by their path ("selector app: web");
 * nothing a person reads here is JSON. The structured arguments stay beside it in the API.
 */
final class ActionWords {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    /** Values longer than this are cut in the one-line sentence (the argument lines keep them whole). */
    private static final int SENTENCE_VALUE_CHARS = 60;

    /** More arguments than this are left out of the sentence: the lines below list them all. */
    private static final int SENTENCE_ARGUMENTS = 4;

    private ActionWords() {}

    /** "Restart service with host web-7 and service api." */
    static String sentence(String tool, JsonNode arguments) {
        List<String[]> pairs = lines(arguments);
        StringBuilder out = new StringBuilder(capitalised(words(tool)));
        if (!pairs.isEmpty()) {
            List<String> parts = new ArrayList<>();
            for (String[] p : pairs.subList(0, Math.min(SENTENCE_ARGUMENTS, pairs.size()))) {
                parts.add(p[0] + " " + cut(p[1]));
            }
            if (pairs.size() > SENTENCE_ARGUMENTS) {
                parts.add((pairs.size() - SENTENCE_ARGUMENTS) + " more");
            }
            out.append(" with ").append(joined(parts));
        }
        return out.append('.').toString();
    }

    /** Each bound argument as "name: value", nested objects by their path, lists joined by commas. */
    static List<String> argumentLines(JsonNode arguments) {
        return lines(arguments).stream().map(p -> p[0] + ": " + p[1]).toList();
    }

    /**
     * One plan item — the platform stores each call of a turn as its tool name and its JSON arguments
     * ({@code restart_service {"host":"web-7"}}) — as a sentence; text that is not of that form is kept.
     */
    static String planItem(String item, UnaryOperator<JsonNode> redact, @Nullable Words words) {
        int space = item.indexOf(' ');
        String tool = space < 0 ? item : item.substring(0, space);
        if (!tool.matches("[A-Za-z0-9_.:-]+")) {
            return item;
        }
        String rest = space < 0 ? "" : item.substring(space + 1).strip();
        JsonNode arguments = rest.isEmpty() ? MAPPER.createObjectNode() : parse(rest);
        if (arguments == null && !rest.startsWith("{")) {
            return item;
        }
        if (arguments == null) {
            // Stored text a redaction cut through (a masked secret takes its quotes with it): no
            // longer JSON, still read as words — the punctuation of JSON dropped, the rest kept.
            String said = rest.replaceAll("\"\\s*:\\s*", ": ")
                    .replaceAll("\"?\\s*,\\s*\"?", ", ")
                    .replaceAll("[{}\"]", "")
                    // brackets go, except a mask's own ("[REDACTED]")
                    .replaceAll("\\[(?![A-Z_]{1,40}\\])", "")
                    .replaceAll("(?<!\\[[A-Z_]{1,40})\\]", "")
                    .strip();
            return capitalised(words(tool)) + (said.isEmpty() ? "" : " with " + said) + ".";
        }
        String said = words == null ? null : words.of(tool, arguments);
        return said != null ? said : sentence(tool, redact.apply(arguments));
    }

    /** The tool's own headline for a call, when it has one. */
    interface Words {
        @Nullable
        String of(String tool, JsonNode arguments);
    }

    private static List<String[]> lines(JsonNode arguments) {
        List<String[]> out = new ArrayList<>();
        if (arguments.isObject()) {
            flatten("", arguments, out);
        } else if (!arguments.isMissingNode() && !arguments.isNull()) {
            out.add(new String[] {"value", scalar(arguments)});
        }
        return out;
    }

    private static void flatten(String prefix, JsonNode node, List<String[]> out) {
        for (Map.Entry<String, JsonNode> f : node.properties()) {
            String name = prefix.isEmpty() ? words(f.getKey()) : prefix + " " + words(f.getKey());
            JsonNode v = f.getValue();
            if (v.isObject() && !v.isEmpty()) {
                flatten(name, v, out);
            } else {
                out.add(new String[] {name, scalar(v)});
            }
        }
    }

    private static String scalar(JsonNode v) {
        if (v.isNull() || v.isMissingNode()) {
            return "none";
        }
        if (v.isObject()) {
            return "nothing";
        }
        if (v.isArray()) {
            if (v.isEmpty()) {
                return "none";
            }
            List<String> items = new ArrayList<>();
            for (JsonNode i : v) {
                if (i.isObject()) {
                    List<String> fields = new ArrayList<>();
                    for (String[] p : lines(i)) {
                        fields.add(p[0] + " " + p[1]);
                    }
                    items.add(String.join(" ", fields));
                } else {
                    items.add(scalar(i));
                }
            }
            return String.join(", ", items);
        }
        return v.asString();
    }

    private static String joined(List<String> parts) {
        if (parts.size() == 1) {
            return parts.getFirst();
        }
        return String.join(", ", parts.subList(0, parts.size() - 1)) + " and " + parts.getLast();
    }

    private static String cut(String value) {
        return value.length() <= SENTENCE_VALUE_CHARS ? value : value.substring(0, SENTENCE_VALUE_CHARS - 1) + "…";
    }

    /** {@code restart_service}, {@code dryRun} → "restart service", "dry run". */
    static String words(String key) {
        String spaced = key.replace('_', ' ').replace('-', ' ').replaceAll("([a-z0-9])([A-Z])", "$1 $2");
        return spaced.toLowerCase(Locale.ROOT).strip();
    }

    private static String capitalised(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static @Nullable JsonNode parse(String json) {
        try {
            JsonNode n = MAPPER.readTree(json);
            return n != null && n.isObject() ? n : null;
        } catch (RuntimeException notJson) {
            return null;
        }
    }
}
