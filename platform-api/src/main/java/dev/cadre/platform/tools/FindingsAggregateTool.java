package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.agent.workflow.Finding;
import dev.cadre.agent.workflow.Findings;
import dev.cadre.agent.workflow.FindingsText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code findings_aggregate}: the reduce step of the inspection map-reduce as a tool — sorts
 * standard findings by severity, groups them by target and removes duplicates (agent-core's
 * {@link Findings}), so the analysis agent answers with the same contract whatever model it runs on.
 */
final class FindingsAggregateTool implements Tool {

    private final JsonMapper json;

    FindingsAggregateTool(JsonMapper json) {
        this.json = json;
    }

    @Override
    public String name() {
        return "findings_aggregate";
    }

    @Override
    public String description() {
        return "Aggregate standard findings {id, severity, category, target, description, suggestion, confidence}:"
                + " sorted by severity, grouped by target, duplicates removed. Pass them as 'findings' (array) or"
                + " pass inspector reports that contain them as 'reports' (text).";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"findings\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
                + "\"reports\":{\"type\":\"string\",\"maxLength\":200000}},\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) throws ToolException {
        List<Finding> all = new ArrayList<>();
        if (args.has("findings")) {
            all.addAll(FindingsText.extract(args.get("findings")));
        }
        if (args.has("reports")) {
            all.addAll(FindingsText.extract(args.get("reports").asString()));
        }
        if (!args.has("findings") && !args.has("reports")) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR, "invalid_arguments", "give 'findings' or 'reports'");
        }
        Findings.Aggregated agg = Findings.aggregate(all);
        ObjectNode out = Findings.toJson(agg.sorted());
        out.put("duplicatesRemoved", agg.duplicatesRemoved());
        out.put(
                "highest",
                agg.sorted().isEmpty()
                        ? "none"
                        : agg.sorted().getFirst().severity().name().toLowerCase(Locale.ROOT));
        out.put("report", Findings.render(agg));
        return out.toString();
    }
}
