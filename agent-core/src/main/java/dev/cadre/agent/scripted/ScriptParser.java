package dev.cadre.agent.scripted;

import dev.cadre.agent.TokenUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/** Reads the script format {@link ScriptedModel} describes into {@link AgentScript}s. */
final class ScriptParser {

    private ScriptParser() {}

    /** The agents' scripts of a script document; errors name the field, e.g. {@code script: agents.x.turns[2]}. */
    static Map<String, AgentScript> scripts(JsonNode root) {
        JsonNode defaults = root.path("defaults");
        long defaultLatency = defaults.path("latencyMillis").asLong(0);
        JsonNode defaultExhausted = defaults.get("whenExhausted");
        Map<String, AgentScript> scripts = new LinkedHashMap<>();
        JsonNode agents = root.path("agents");
        if (!agents.isObject()) {
            throw new IllegalArgumentException("script: 'agents' must be an object of agent name -> script");
        }
        for (Map.Entry<String, JsonNode> agent : agents.properties()) {
            String where = "script: agents." + agent.getKey();
            JsonNode node = agent.getValue();
            List<AgentScript.Variant> variants = new ArrayList<>();
            if (node.has("variants")) {
                int i = 0;
                for (JsonNode v : node.path("variants")) {
                    JsonNode when = v.get("when");
                    String at = where + ".variants[" + i++ + "]";
                    if (when != null && when.isObject()) {
                        JsonNode field = when.get("field");
                        JsonNode equals = when.get("equals");
                        if (field == null || !field.isString() || equals == null || !equals.isValueNode()) {
                            throw new IllegalArgumentException(
                                    at + ".when: a structured condition is" + " {field: /json/pointer, equals: value}");
                        }
                        try {
                            variants.add(new AgentScript.Variant(
                                    null,
                                    new AgentScript.FieldIs(field.asString(), equals.asString()),
                                    turns(v.path("turns"), at)));
                        } catch (IllegalArgumentException e) {
                            throw new IllegalArgumentException(at + ".when: " + e.getMessage(), e);
                        }
                    } else {
                        variants.add(new AgentScript.Variant(
                                when == null || when.isNull() ? null : when.asString(), turns(v.path("turns"), at)));
                    }
                }
            } else {
                variants.add(new AgentScript.Variant(null, turns(node.path("turns"), where)));
            }
            JsonNode exhausted = node.has("whenExhausted") ? node.get("whenExhausted") : defaultExhausted;
            scripts.put(
                    agent.getKey(),
                    new AgentScript(
                            variants,
                            Duration.ofMillis(node.path("latencyMillis").asLong(defaultLatency)),
                            exhausted == null || exhausted.isNull() ? null : exhausted.asString()));
        }
        return scripts;
    }

    private static List<ScriptedTurn> turns(JsonNode turns, String where) {
        if (!turns.isArray()) {
            throw new IllegalArgumentException(where + ".turns must be a list");
        }
        List<ScriptedTurn> out = new ArrayList<>();
        int t = 0;
        for (JsonNode turn : turns) {
            List<ScriptedCall> calls = new ArrayList<>();
            for (JsonNode call : turn.path("toolCalls")) {
                JsonNode name = call.get("name");
                if (name == null || !name.isString()) {
                    throw new IllegalArgumentException(where + ".turns[" + t + "]: every tool call needs a name");
                }
                JsonNode id = call.get("id");
                JsonNode args = call.get("arguments");
                JsonNode forEach = call.get("forEach");
                if (forEach != null && !forEach.isNull() && !forEach.isString()) {
                    throw new IllegalArgumentException(where + ".turns[" + t + "]: forEach must be a template text");
                }
                calls.add(new ScriptedCall(
                        id == null || id.isNull() ? null : id.asString(),
                        name.asString(),
                        args == null || args.isNull() ? JsonNodeFactory.instance.objectNode() : args,
                        forEach == null || forEach.isNull() ? null : forEach.asString()));
            }
            JsonNode text = turn.get("text");
            JsonNode latency = turn.get("latencyMillis");
            JsonNode usage = turn.get("usage");
            JsonNode fail = turn.get("fail");
            out.add(new ScriptedTurn(
                    text == null || text.isNull() ? null : text.asString(),
                    calls,
                    latency == null ? null : Duration.ofMillis(latency.asLong()),
                    usage == null
                            ? null
                            : new TokenUsage(
                                    usage.path("input").asLong(0),
                                    usage.path("output").asLong(0)),
                    fail == null || fail.isNull() ? null : fail.asString()));
            t++;
        }
        return out;
    }
}
