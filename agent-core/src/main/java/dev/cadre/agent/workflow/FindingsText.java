package dev.cadre.agent.workflow;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Finds standard findings wherever agents put them: a JSON array, an object with a {@code findings}
 * array, or such JSON embedded in text — including the quoted summaries of worker results, which
 * wrap a worker's answer in {@code {"status":"ok","summary":"…"}}.
 */
public final class FindingsText {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private FindingsText() {}

    /** Every finding found in {@code text}, in order of appearance. */
    public static List<Finding> extract(String text) {
        List<Finding> out = new ArrayList<>();
        collectFromText(text, out, 0, new BracketScan(text));
        return out;
    }

    /** Every finding in a JSON tree (arrays of findings, {@code findings} fields, JSON in strings). */
    public static List<Finding> extract(JsonNode node) {
        List<Finding> out = new ArrayList<>();
        collect(node, out, 0, new BracketScan(node.toString()));
        return out;
    }

    private static void collectFromText(String text, List<Finding> out, int depth, BracketScan scan) {
        if (depth > 4) {
            return;
        }
        int i = 0;
        while (i < text.length() && !scan.spent()) {
            char c = text.charAt(i);
            if (c == '{' || c == '[') {
                int end = scan.matching(text, i);
                if (end > i) {
                    try {
                        collect(MAPPER.readTree(text.substring(i, end + 1)), out, depth, scan);
                        i = end + 1;
                        continue;
                    } catch (RuntimeException notJson) {
                        // not JSON from here: move on
                    }
                }
            }
            i++;
        }
    }

    private static void collect(JsonNode node, List<Finding> out, int depth, BracketScan scan) {
        if (node.isArray()) {
            boolean findingsArray = node.size() > 0
                    && node.get(0).isObject()
                    && node.get(0).has("severity")
                    && (node.get(0).has("description") || node.get(0).has("target"));
            if (findingsArray) {
                out.addAll(Findings.parse("finding", node.toString()));
                return;
            }
            node.forEach(n -> collect(n, out, depth, scan));
        } else if (node.isObject()) {
            if (node.path("findings").isArray()) {
                out.addAll(Findings.parse("finding", node.toString()));
                return;
            }
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                collect(field.getValue(), out, depth, scan);
            }
        } else if (node.isString() && node.asString().indexOf('{') >= 0) {
            collectFromText(node.asString(), out, depth + 1, scan);
        }
    }
}
