package dev.cadre.platform.tools;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code csv_query}: filter, group and sum the rows of a read-only dataset ({@link CsvDatasets}).
 * There is no write path at all: the rows live in immutable memory loaded at start-up, so a model
 * can ask anything of the data and change none of it (seed 004's CRM data agent).
 */
final class CsvQueryTool implements Tool {

    /** The most rows one answer lists (grouped answers are never that long). */
    static final int MAX_ROWS = 1000;

    private final CsvDatasets datasets;
    private final JsonMapper json;
    private final JsonNode schema;

    CsvQueryTool(CsvDatasets datasets, JsonMapper json) {
        this.datasets = datasets;
        this.json = json;
        this.schema = JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"dataset\":{\"type\":\"string\",\"description\":\"dataset name\"},"
                + "\"where\":{\"type\":\"object\",\"description\":\"column -> value, or list of values (any of);"
                + " all columns must match\",\"additionalProperties\":{\"type\":[\"string\",\"number\",\"array\"]}},"
                + "\"columns\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":"
                + "\"columns of each listed row (default all)\"},"
                + "\"groupBy\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":"
                + "\"group the matching rows by these columns: one result row per group, with its row count\"},"
                + "\"sum\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":"
                + "\"numeric columns to total (per group, and overall)\"},"
                + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":" + MAX_ROWS + "}},"
                + "\"required\":[\"dataset\"],\"additionalProperties\":false}");
    }

    @Override
    public String name() {
        return "csv_query";
    }

    @Override
    public String description() {
        return "Query a read-only table (datasets: " + datasets.names() + "): filter rows with 'where', list them"
                + " ('columns', 'limit'), or group them ('groupBy') with row counts and totals ('sum'). Never changes"
                + " any data.";
    }

    @Override
    public JsonNode parametersSchema() {
        return schema;
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) throws ToolException {
        String name = args.get("dataset").asString();
        CsvDatasets.Dataset data = datasets.find(name)
                .orElseThrow(() -> invalid("unknown dataset '" + name + "' (datasets: " + datasets.names() + ")"));
        Set<String> known = Set.copyOf(data.columns());
        Map<String, List<String>> where = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : args.path("where").properties()) {
            column(e.getKey(), known, "where");
            List<String> values = new ArrayList<>();
            if (e.getValue().isArray()) {
                e.getValue().forEach(v -> values.add(v.asString()));
            } else {
                values.add(e.getValue().asString());
            }
            where.put(e.getKey(), values);
        }
        List<String> columns = names(args.path("columns"), known, "columns");
        List<String> groupBy = names(args.path("groupBy"), known, "groupBy");
        List<String> sum = names(args.path("sum"), known, "sum");
        int limit = args.path("limit").asInt(MAX_ROWS);

        List<Map<String, String>> matched = data.rows().stream()
                .filter(r ->
                        where.entrySet().stream().allMatch(w -> w.getValue().contains(r.get(w.getKey()))))
                .toList();
        ObjectNode out = json.createObjectNode();
        out.put("dataset", name);
        out.put("matched", matched.size());
        ObjectNode totals = out.putObject("totals");
        for (String s : sum) {
            totals.put(s, total(matched, s));
        }
        if (!groupBy.isEmpty()) {
            Map<List<String>, List<Map<String, String>>> groups = new TreeMap<>(Comparator.comparing(List::toString));
            for (Map<String, String> r : matched) {
                groups.computeIfAbsent(groupBy.stream().map(r::get).toList(), k -> new ArrayList<>())
                        .add(r);
            }
            ArrayNode list = out.putArray("groups");
            for (Map.Entry<List<String>, List<Map<String, String>>> g : groups.entrySet()) {
                if (list.size() >= limit) {
                    break;
                }
                ObjectNode row = list.addObject();
                for (int i = 0; i < groupBy.size(); i++) {
                    row.put(groupBy.get(i), g.getKey().get(i));
                }
                row.put("rows", g.getValue().size());
                for (String s : sum) {
                    row.put(s, total(g.getValue(), s));
                }
            }
            out.put("truncated", groups.size() > limit);
            return out.toString();
        }
        ArrayNode list = out.putArray("rows");
        for (Map<String, String> r : matched) {
            if (list.size() >= limit) {
                break;
            }
            ObjectNode row = list.addObject();
            for (String c : columns.isEmpty() ? data.columns() : columns) {
                row.put(c, r.get(c));
            }
        }
        out.put("truncated", matched.size() > limit);
        return out.toString();
    }

    private BigDecimal total(List<Map<String, String>> rows, String column) throws ToolException {
        BigDecimal t = BigDecimal.ZERO;
        for (Map<String, String> r : rows) {
            try {
                t = t.add(new BigDecimal(r.get(column)));
            } catch (NumberFormatException e) {
                throw invalid("column '" + column + "' is not numeric (value '" + r.get(column) + "')");
            }
        }
        return t;
    }

    private static List<String> names(JsonNode node, Set<String> known, String field) throws ToolException {
        List<String> out = new ArrayList<>();
        for (JsonNode n : node) {
            out.add(column(n.asString(), known, field));
        }
        return out;
    }

    private static String column(String c, Set<String> known, String field) throws ToolException {
        if (!known.contains(c)) {
            throw invalid("'" + field + "': unknown column '" + c + "' (columns: "
                    + known.stream().sorted().toList() + ")");
        }
        return c;
    }

    private static ToolException invalid(String message) {
        return new ToolException(dev.cadre.agent.FailureCategory.EXECUTION_ERROR, "invalid_query", message);
    }
}
