package dev.cadre.agent.workflow;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Builds workflows from configuration: plain maps and lists (parsed YAML) or JSON, e.g.
 *
 * <pre>{@code
 * {"type": "sequence", "name": "incident", "steps": [
 *    {"type": "agent", "agent": "triage"},
 *    {"type": "map_reduce", "name": "review", "agents": ["security", "performance"]},
 *    {"type": "debate", "name": "fix-or-rollback", "participants": ["sre", "dev", "dba"],
 *     "maxRounds": 3, "consensusThreshold": 0.8},
 *    {"type": "split", "name": "checks", "agent": "checker", "maxChunkChars": 400, "parallelism": 4},
 *    {"type": "handoff", "name": "desk", "agents": ["frontdesk", "billing"], "maxHandoffs": 3}]}
 * }</pre>
 *
 * Defaults: {@code name} = the type (or the agent); debate 3 rounds at 0.8 (seed 003); split 4 at
 * once; handoff 3 handoffs.
 */
public final class Workflows {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private Workflows() {}

    /** A workflow from maps and lists. */
    public static Workflow fromMap(Map<String, ?> config) {
        return parse(MAPPER.valueToTree(config), "workflow");
    }

    /** A workflow from JSON text. */
    public static Workflow fromJson(String json) {
        return parse(MAPPER.readTree(json), "workflow");
    }

    private static Workflow parse(JsonNode node, String path) {
        String type = node.path("type").asString("");
        String name = node.path("name")
                .asString(type.equals("agent") ? node.path("agent").asString("agent") : type);
        return switch (type) {
            case "agent" -> new Workflow.AgentStep(name, required(node, "agent", path));
            case "sequence" -> {
                List<Workflow> steps = new ArrayList<>();
                int i = 0;
                for (JsonNode step : node.path("steps")) {
                    steps.add(parse(step, path + ".steps[" + i++ + "]"));
                }
                yield new Workflow.Sequence(name, steps);
            }
            case "map_reduce" -> new Workflow.MapReduce(name, strings(node, "agents", path));
            case "debate" ->
                new Workflow.Debate(
                        name,
                        strings(node, "participants", path),
                        node.path("maxRounds").asInt(3),
                        node.path("consensusThreshold").asDouble(0.8),
                        node.path("judge").isString() ? node.path("judge").asString() : null);
            case "fan_out" ->
                new Workflow.FanOut(
                        name,
                        required(node, "agent", path),
                        node.path("over").asString("input"),
                        node.path("parallelism").asInt(4));
            case "split" ->
                new Workflow.Split(
                        name,
                        required(node, "agent", path),
                        node.path("maxChunkChars").asInt(400),
                        node.path("parallelism").asInt(4));
            case "handoff" ->
                new Workflow.Handoff(
                        name,
                        strings(node, "agents", path),
                        node.path("maxHandoffs").asInt(3));
            default ->
                throw new IllegalArgumentException(path + ".type: expected one of agent, sequence, map_reduce, fan_out,"
                        + " debate, split, handoff but was '" + type + "'");
        };
    }

    private static String required(JsonNode node, String field, String path) {
        JsonNode value = node.get(field);
        if (value == null || !value.isString() || value.asString().isBlank()) {
            throw new IllegalArgumentException(path + "." + field + " is required");
        }
        return value.asString();
    }

    private static List<String> strings(JsonNode node, String field, String path) {
        JsonNode value = node.path(field);
        if (!value.isArray()) {
            throw new IllegalArgumentException(path + "." + field + " must be a list of agent names");
        }
        List<String> out = new ArrayList<>();
        value.forEach(v -> out.add(v.asString()));
        return out;
    }
}
