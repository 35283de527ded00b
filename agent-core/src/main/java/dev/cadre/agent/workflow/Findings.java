package dev.cadre.agent.workflow;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Parsing and aggregation of standard findings (map-reduce's reduce step). */
public final class Findings {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private static final Comparator<Finding> MOST_SEVERE_FIRST = Comparator.comparing(Finding::severity)
            .thenComparing(Comparator.comparingDouble(Finding::confidence).reversed())
            .thenComparing(Finding::target)
            .thenComparing(Finding::id);

    private Findings() {}

    /** The result of aggregation: sorted, de-duplicated findings and the same grouped by target. */
    public record Aggregated(List<Finding> sorted, Map<String, List<Finding>> byTarget, int duplicatesRemoved) {}

    /**
     * Sorts by severity (then confidence), de-duplicates findings with the same target, category and
     * description (case and spacing ignored; the most confident copy stays) and groups by target in
     * order of each target's most severe finding.
     */
    public static Aggregated aggregate(List<Finding> findings) {
        Map<String, Finding> unique = new LinkedHashMap<>();
        for (Finding f : findings) {
            String key = normalize(f.target()) + "|" + normalize(f.category()) + "|" + normalize(f.description());
            unique.merge(key, f, (a, b) -> MOST_SEVERE_FIRST.compare(a, b) <= 0 ? a : b);
        }
        List<Finding> sorted = new ArrayList<>(unique.values());
        sorted.sort(MOST_SEVERE_FIRST);
        Map<String, List<Finding>> byTarget = new LinkedHashMap<>();
        for (Finding f : sorted) {
            byTarget.computeIfAbsent(f.target(), t -> new ArrayList<>()).add(f);
        }
        byTarget.replaceAll((t, list) -> List.copyOf(list));
        return new Aggregated(List.copyOf(sorted), byTarget, findings.size() - sorted.size());
    }

    /**
     * Reads findings from an agent's answer: a JSON array of findings or an object with a
     * {@code findings} array; anything else holds none. Missing fields get neutral defaults.
     */
    public static List<Finding> parse(String source, @Nullable String text) {
        List<Finding> out = new ArrayList<>();
        JsonNode root = json(text);
        if (root == null) {
            return out;
        }
        JsonNode list = root.isArray() ? root : root.path("findings");
        int n = 0;
        for (JsonNode f : list) {
            n++;
            double confidence = f.path("confidence").asDouble(0.5);
            out.add(new Finding(
                    f.path("id").asString(source + "-" + n),
                    Severity.parse(f.path("severity").asString("info")),
                    f.path("category").asString("general"),
                    f.path("target").asString("unspecified"),
                    f.path("description").asString(""),
                    f.path("suggestion").asString(""),
                    Math.max(0, Math.min(1, confidence))));
        }
        return out;
    }

    /** Findings as {@code {"findings": [...]}} in the standard shape, severities in lower case. */
    public static ObjectNode toJson(List<Finding> findings) {
        ObjectNode out = MAPPER.createObjectNode();
        ArrayNode list = out.putArray("findings");
        for (Finding f : findings) {
            list.addObject()
                    .put("id", f.id())
                    .put("severity", f.severity().name().toLowerCase(Locale.ROOT))
                    .put("category", f.category())
                    .put("target", f.target())
                    .put("description", f.description())
                    .put("suggestion", f.suggestion())
                    .put("confidence", f.confidence());
        }
        return out;
    }

    /** The aggregated findings as a report grouped by target. */
    public static String render(Aggregated aggregated) {
        StringBuilder out = new StringBuilder();
        out.append(aggregated.sorted().size()).append(" findings");
        if (aggregated.duplicatesRemoved() > 0) {
            out.append(" (").append(aggregated.duplicatesRemoved()).append(" duplicates removed)");
        }
        for (Map.Entry<String, List<Finding>> group : aggregated.byTarget().entrySet()) {
            out.append("\n").append(group.getKey()).append(':');
            for (Finding f : group.getValue()) {
                out.append("\n- [")
                        .append(f.severity())
                        .append("] ")
                        .append(f.category())
                        .append(": ")
                        .append(f.description());
                if (!f.suggestion().isBlank()) {
                    out.append(" -> ").append(f.suggestion());
                }
            }
        }
        return out.toString();
    }

    static @Nullable JsonNode json(@Nullable String text) {
        if (text == null) {
            return null;
        }
        String t = text.strip();
        // Models like to wrap JSON in a fenced block; take what is between the first bracket and the last.
        int start = firstOf(t, '{', '[');
        int end = Math.max(t.lastIndexOf('}'), t.lastIndexOf(']'));
        if (start < 0 || end <= start) {
            return null;
        }
        try {
            return MAPPER.readTree(t.substring(start, end + 1));
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static int firstOf(String text, char a, char b) {
        int i = text.indexOf(a);
        int j = text.indexOf(b);
        if (i < 0) {
            return j;
        }
        return j < 0 ? i : Math.min(i, j);
    }

    private static String normalize(String s) {
        return s.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
    }
}
