package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code compare_periods}: the arithmetic of a period-over-period question, done by code instead of
 * by a model — from grouped figures (the {@code groups} of a {@code csv_query} answer, found in the
 * text it is given) it computes each key's change between two periods, the total change and each
 * key's share of it, largest first. It has no data of its own: without figures it says so.
 */
final class ComparePeriodsTool implements Tool {

    private final JsonMapper json;

    ComparePeriodsTool(JsonMapper json) {
        this.json = json;
    }

    @Override
    public String name() {
        return "compare_periods";
    }

    @Override
    public String description() {
        return "Compare grouped figures between two periods: give the text holding a csv_query answer with 'groups'"
                + " (figures), the period column and its two values (from, to), the column to compare by and the"
                + " value column. Answers with the total change and each key's change and share, largest first.";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse(
                "{\"type\":\"object\",\"properties\":{"
                        + "\"figures\":{\"type\":\"string\",\"maxLength\":200000},"
                        + "\"period\":{\"type\":\"string\"},\"from\":{\"type\":\"string\"},\"to\":{\"type\":\"string\"},"
                        + "\"by\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"}},"
                        + "\"required\":[\"figures\",\"period\",\"from\",\"to\",\"by\",\"value\"],\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) throws ToolException {
        String period = args.get("period").asString();
        String from = args.get("from").asString();
        String to = args.get("to").asString();
        String by = args.get("by").asString();
        String value = args.get("value").asString();
        JsonNode groups = groups(args.get("figures").asString());
        if (groups == null) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "no_figures",
                    "no grouped figures (a csv_query answer with 'groups') in the text given: get the data first");
        }
        Map<String, BigDecimal> before = new TreeMap<>();
        Map<String, BigDecimal> after = new TreeMap<>();
        for (JsonNode g : groups) {
            if (!g.has(period) || !g.has(by) || !g.has(value)) {
                throw new ToolException(
                        FailureCategory.EXECUTION_ERROR,
                        "invalid_figures",
                        "a group lacks '" + period + "', '" + by + "' or '" + value + "': " + g);
            }
            String p = g.get(period).asString();
            BigDecimal v = g.get(value).decimalValue();
            if (p.equals(from)) {
                before.merge(g.get(by).asString(), v, BigDecimal::add);
            } else if (p.equals(to)) {
                after.merge(g.get(by).asString(), v, BigDecimal::add);
            }
        }
        BigDecimal totalBefore = before.values().stream().reduce(BigDecimal.ZERO, BigDecimal::add);
        BigDecimal totalAfter = after.values().stream().reduce(BigDecimal.ZERO, BigDecimal::add);
        BigDecimal change = totalAfter.subtract(totalBefore);
        List<ObjectNode> rows = new ArrayList<>();
        for (String key : new TreeSet<>(union(before, after))) {
            BigDecimal b = before.getOrDefault(key, BigDecimal.ZERO);
            BigDecimal a = after.getOrDefault(key, BigDecimal.ZERO);
            ObjectNode row = json.createObjectNode();
            row.put(by, key).put(from, b).put(to, a).put("change", a.subtract(b));
            row.put("changePct", pct(a.subtract(b), b));
            row.put("shareOfChangePct", pct(a.subtract(b), change.abs()));
            rows.add(row);
        }
        rows.sort(Comparator.comparing(
                        (ObjectNode r) -> r.get("change").decimalValue().abs())
                .reversed());
        ObjectNode out = json.createObjectNode();
        out.put("period", period).put("from", from).put("to", to);
        out.putObject("total")
                .put(from, totalBefore)
                .put(to, totalAfter)
                .put("change", change)
                .put("changePct", pct(change, totalBefore));
        ArrayNode list = out.putArray("by_" + by);
        rows.forEach(list::add);
        return out.toString();
    }

    private static java.util.Set<String> union(Map<String, BigDecimal> a, Map<String, BigDecimal> b) {
        java.util.Set<String> keys = new java.util.HashSet<>(a.keySet());
        keys.addAll(b.keySet());
        return keys;
    }

    private static @Nullable BigDecimal pct(BigDecimal part, BigDecimal whole) {
        return whole.signum() == 0
                ? null
                : part.multiply(BigDecimal.valueOf(100)).divide(whole, 1, RoundingMode.HALF_UP);
    }

    /** The {@code groups} array of the first JSON object in the text that has one. */
    private @Nullable JsonNode groups(String text) {
        for (int i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) {
            try {
                JsonNode node = json.readerFor(JsonNode.class)
                        .without(tools.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                        .readValue(text.substring(i));
                if (node != null && node.path("groups").isArray()) {
                    return node.get("groups");
                }
                // A worker's result arrives wrapped ({"status":"ok","summary":"...figures..."}): look inside.
                if (node != null && node.isObject()) {
                    for (JsonNode field : node) {
                        JsonNode inner = field.isString() ? groups(field.asString()) : null;
                        if (inner != null) {
                            return inner;
                        }
                    }
                }
            } catch (RuntimeException notJson) {
                // keep looking
            }
        }
        return null;
    }
}
