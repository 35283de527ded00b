package dev.cadre.agent.workflow;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What workflow steps hand each other, read from their answers: batons, handoff directives, the data
 * a sequence step passes on after {@code Context:}, and the items a fan-out runs over.
 */
final class Batons {

    private Batons() {}

    /** The items of an input: its elements when it is a JSON array, else its non-blank lines. */
    static List<String> itemsOf(String input) {
        String t = input.strip();
        if (t.startsWith("[")) {
            JsonNode json = Findings.json(t);
            if (json != null && json.isArray()) {
                List<String> out = new ArrayList<>();
                json.forEach(n -> out.add(n.isString() ? n.asString() : n.toString()));
                return out;
            }
        }
        return t.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    static @Nullable JsonNode handoffDirective(@Nullable String text) {
        JsonNode json = Findings.json(text);
        return json != null && json.isObject() && json.path("handoff").isObject() ? json.get("handoff") : null;
    }

    private static final List<String> BATON_FIELDS =
            List.of("baton", "decisions", "reasons", "constraints", "next_focus", "summary");

    /**
     * What a sequence step hands on besides its baton: the data of an answer that is JSON (less the
     * baton's own fields, which the baton already carries) or, for a step whose answer is prose, the
     * findings it produced as {@code {"findings": [...]}}. The next step reads it after a
     * {@code Context:} line, so an agent that works on a record (an incident, a findings list) gets
     * that record whole instead of the baton's one-line decision; null when there is nothing.
     */
    static @Nullable JsonNode structuredAnswer(@Nullable String text, List<Finding> findings) {
        String t = text == null ? "" : text.strip();
        if (t.startsWith("```")) {
            t = t.substring(t.indexOf('\n') + 1);
        }
        JsonNode json = t.startsWith("{") || t.startsWith("[") ? Findings.json(t) : null;
        if (json != null && json.isArray() && !json.isEmpty()) {
            return json;
        }
        if (json != null && json.isObject()) {
            ObjectNode data = ((ObjectNode) json).deepCopy();
            data.remove(BATON_FIELDS);
            if (!data.isEmpty()) {
                return data;
            }
        }
        return findings.isEmpty() ? null : Findings.toJson(findings);
    }

    /** True when {@code text} is JSON with none of the baton's fields: its baton is the text itself. */
    static boolean batonless(@Nullable String text) {
        JsonNode json = Findings.json(text);
        return json != null && (json.isArray() || BATON_FIELDS.stream().noneMatch(json::has));
    }

    /** A baton from a step's answer: its {@code baton} object, its own baton fields, or its text as the one decision. */
    static Baton batonOf(@Nullable String text) {
        JsonNode json = Findings.json(text);
        if (json != null && json.isObject()) {
            JsonNode node = json.path("baton").isObject() ? json.get("baton") : json;
            if (node.has("decisions") || node.has("next_focus") || node.has("reasons")) {
                return batonFrom(node);
            }
        }
        String t = text == null ? "" : text.strip();
        return new Baton(
                t.isEmpty() ? List.of() : List.of(t.length() > 1000 ? t.substring(0, 1000) + "…" : t),
                List.of(),
                List.of(),
                "");
    }

    static Baton batonFrom(JsonNode node) {
        List<String> decisions = strings(node.path("decisions"));
        if (decisions.isEmpty() && node.path("summary").isString()) {
            decisions = List.of(node.path("summary").asString());
        }
        return new Baton(
                decisions,
                strings(node.path("reasons")),
                strings(node.path("constraints")),
                node.path("next_focus").asString(""));
    }

    private static List<String> strings(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(n -> out.add(n.asString()));
        } else if (node.isString()) {
            out.add(node.asString());
        }
        return out;
    }
}
