package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.agent.workflow.Missions;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;

/**
 * {@code mission_split}: seed 000's programmatic {@code splitTasks} as a tool — agent-core's
 * {@link Missions#split} cuts a long mission into bounded chunks (or one per line), and the calling
 * agent delegates one worker per chunk in a single turn.
 */
final class MissionSplitTool implements Tool {

    static final int MAX_CHUNKS = 50;

    private final JsonMapper json;

    MissionSplitTool(JsonMapper json) {
        this.json = json;
    }

    @Override
    public String name() {
        return "mission_split";
    }

    @Override
    public String description() {
        return "Split a long mission into chunks of at most maxChars characters, keeping line order (onePerLine:"
                + " every non-blank line its own chunk). Answers with a JSON array of the chunks: delegate one worker"
                + " per chunk, all in one turn.";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"mission\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100000},"
                + "\"maxChars\":{\"type\":\"integer\",\"minimum\":20,\"maximum\":20000},"
                + "\"onePerLine\":{\"type\":\"boolean\"}},"
                + "\"required\":[\"mission\"],\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) throws ToolException {
        String mission = args.get("mission").asString();
        int maxChars = args.path("maxChars").asInt(2000);
        List<String> chunks = new ArrayList<>();
        if (args.path("onePerLine").asBoolean(false)) {
            for (String line : mission.split("\\R")) {
                chunks.addAll(Missions.split(line, maxChars));
            }
        } else {
            chunks.addAll(Missions.split(mission, maxChars));
        }
        if (chunks.isEmpty()) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR, "empty_mission", "the mission has no text to split");
        }
        if (chunks.size() > MAX_CHUNKS) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "too_many_chunks",
                    "the mission splits into " + chunks.size() + " chunks; at most " + MAX_CHUNKS
                            + " (raise maxChars)");
        }
        ArrayNode out = json.createArrayNode();
        chunks.forEach(out::add);
        return out.toString();
    }
}
