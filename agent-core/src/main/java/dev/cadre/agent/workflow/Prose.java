package dev.cadre.agent.workflow;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Renders what agents hand each other — JSON results, a worker's {@code {"status":"ok","summary":…}}
 * wrapper, findings, JSON quoted inside strings — as Markdown a person can read: a wrapper becomes its
 * summary, findings a list (severity, target, what, evidence, suggestion), any other object a list of
 * its fields. Text around the JSON is kept as it is. The machine form stays where it was; this is the
 * view for people, made at the edge.
 */
public final class Prose {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    /** Longer texts are returned as they are: scanning them for JSON would cost more than it helps. */
    static final int MAX_CHARS = 200_000;

    private static final int MAX_DEPTH = 6;

    private Prose() {}

    /** {@code text} with every JSON value in it rendered as Markdown; null stays null. */
    public static @Nullable String markdown(@Nullable String text) {
        if (text == null || text.length() > MAX_CHARS) {
            return text;
        }
        return fromText(text, 0, new BracketScan(text)).strip();
    }

    /** A JSON value as Markdown. */
    public static String markdown(JsonNode node) {
        return render(node, 0, new BracketScan(node.toString())).strip();
    }

    private static String fromText(String text, int depth, BracketScan scan) {
        if (depth > MAX_DEPTH || (text.indexOf('{') < 0 && text.indexOf('[') < 0)) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if ((c == '{' || c == '[') && !scan.spent()) {
                int end = scan.matching(text, i);
                JsonNode node = end > i ? parse(text.substring(i, end + 1)) : null;
                if (node != null && (node.isObject() || node.isArray())) {
                    place(out, render(node, depth + 1, scan));
                    i = end + 1;
                    continue;
                }
            }
            out.append(c);
            i++;
        }
        return out.toString();
    }

    /** Appends a rendering inline when it is one line, else as a block on lines of its own. */
    private static void place(StringBuilder out, String rendered) {
        String r = rendered.strip();
        if (r.indexOf('\n') < 0 && !r.startsWith("- ")) {
            out.append(r);
            return;
        }
        int len = out.length();
        while (len > 0 && out.charAt(len - 1) == ' ') {
            len--;
        }
        out.setLength(len);
        if (len > 0 && out.charAt(len - 1) != '\n') {
            out.append('\n');
        }
        out.append(r).append('\n');
    }

    private static String render(JsonNode node, int depth, BracketScan scan) {
        if (depth > MAX_DEPTH) {
            return node.toString();
        }
        if (node.isString()) {
            return fromText(node.asString(), depth + 1, scan).strip();
        }
        if (node.isArray()) {
            return renderArray(node, depth, scan);
        }
        if (!node.isObject()) {
            return node.isNull() ? "—" : node.asString();
        }
        if (isWrapper(node)) {
            String summary = render(node.get("summary"), depth, scan);
            String status = node.path("status").asString("ok");
            return status.equals("ok") ? summary : "**" + status + "** — " + summary;
        }
        if (node.size() == 2 && node.path("status").isString()) {
            for (String because : List.of("reason", "comment", "message", "error")) {
                if (node.path(because).isString()) {
                    return "**" + node.get("status").asString() + "** — " + render(node.get(because), depth, scan);
                }
            }
        }
        StringBuilder out = new StringBuilder();
        if (node.path("findings").isArray()) {
            out.append(findings(node.get("findings"), depth, scan));
        }
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            if (field.getKey().equals("findings") && field.getValue().isArray()) {
                continue;
            }
            item(out, "**" + words(field.getKey()) + "**: ", field.getValue(), depth, scan);
        }
        return out.toString();
    }

    private static String renderArray(JsonNode array, int depth, BracketScan scan) {
        if (array.isEmpty()) {
            return "none";
        }
        if (isFindings(array)) {
            return findings(array, depth, scan);
        }
        boolean scalars = true;
        for (JsonNode n : array) {
            scalars &= n.isValueNode() && !(n.isString() && n.asString().indexOf('\n') >= 0);
        }
        if (scalars) {
            List<String> parts = new ArrayList<>();
            array.forEach(n -> parts.add(render(n, depth, scan)));
            return String.join(", ", parts);
        }
        StringBuilder out = new StringBuilder();
        array.forEach(n -> item(out, "", n, depth, scan));
        return out.toString();
    }

    /** One list item: a label and a value, the value's own lines indented under it. */
    private static void item(StringBuilder out, String label, JsonNode value, int depth, BracketScan scan) {
        String r = label.isEmpty() && isFlat(value)
                ? inline(value, depth, scan)
                : render(value, depth + 1, scan).strip();
        String[] lines = r.split("\n");
        if (lines.length == 1 && !r.startsWith("- ")) {
            out.append("- ").append(label).append(r).append('\n');
            return;
        }
        int from = 0;
        if (label.isEmpty()) {
            // An unlabelled block (a nested object in a list): its first line is the item.
            out.append("- ")
                    .append(lines[0].startsWith("- ") ? lines[0].substring(2) : lines[0])
                    .append('\n');
            from = 1;
        } else {
            out.append("- ").append(label.stripTrailing()).append('\n');
        }
        for (int k = from; k < lines.length; k++) {
            out.append("  ").append(lines[k]).append('\n');
        }
    }

    /** An object of a few plain fields, shown on one line when it is an item of a list. */
    private static boolean isFlat(JsonNode node) {
        if (!node.isObject() || node.size() > 6 || isWrapper(node)) {
            return false;
        }
        for (JsonNode v : node) {
            if (!v.isValueNode()
                    || (v.isString()
                            && (v.asString().length() > 120 || v.asString().indexOf('{') >= 0))) {
                return false;
            }
        }
        return true;
    }

    private static String inline(JsonNode flat, int depth, BracketScan scan) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, JsonNode> f : flat.properties()) {
            parts.add("**" + words(f.getKey()) + "**: " + render(f.getValue(), depth + 1, scan));
        }
        return String.join(" · ", parts);
    }

    private static String findings(JsonNode list, int depth, BracketScan scan) {
        StringBuilder out = new StringBuilder();
        for (JsonNode f : list) {
            String severity = f.path("severity").asString("info").toUpperCase(Locale.ROOT);
            String what = firstText(f, "description", "what", "summary", "title");
            out.append("- **").append(severity).append("**");
            String target = f.path("target").asString("");
            if (!target.isBlank()) {
                out.append(" `").append(target.replace("`", "'")).append('`');
            }
            String category = f.path("category").asString("");
            if (!category.isBlank()) {
                out.append(" (").append(category).append(')');
            }
            if (!what.isBlank()) {
                out.append(": ").append(what);
            }
            out.append('\n');
            if (f.has("evidence") && !f.get("evidence").isNull()) {
                String evidence = render(f.get("evidence"), depth + 1, scan).strip();
                out.append("  - Evidence: ")
                        .append(evidence.replace("\n", "\n    "))
                        .append('\n');
            }
            String suggestion = f.path("suggestion").asString("");
            if (!suggestion.isBlank()) {
                out.append("  - Suggestion: ").append(suggestion).append('\n');
            }
        }
        return out.toString();
    }

    private static String firstText(JsonNode node, String... fields) {
        for (String f : fields) {
            if (node.path(f).isString() && !node.get(f).asString().isBlank()) {
                return node.get(f).asString();
            }
        }
        return "";
    }

    private static boolean isWrapper(JsonNode node) {
        if (!node.path("summary").isString() || !node.path("status").isString()) {
            return false;
        }
        for (String name : node.propertyNames()) {
            if (!List.of("status", "summary", "degraded").contains(name)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isFindings(JsonNode array) {
        JsonNode first = array.get(0);
        return first.isObject() && first.has("severity") && (first.has("description") || first.has("target"));
    }

    /** {@code durationMillis}, {@code exit_code} → "duration millis", "exit code". */
    static String words(String key) {
        String spaced = key.replace('_', ' ').replace('-', ' ').replaceAll("([a-z0-9])([A-Z])", "$1 $2");
        return spaced.toLowerCase(Locale.ROOT);
    }

    private static @Nullable JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (RuntimeException notJson) {
            return null;
        }
    }
}
