package dev.cadre.platform.teams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What the seed-team tests read of a run over the REST API: its events, its trace, shared memory. */
final class TeamRuns {

    record Event(long id, String name, JsonNode data) {}

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Api api;

    TeamRuns(Api api) {
        this.api = api;
    }

    JsonNode runToCompletion(String agent, String input) {
        String id = api.submitRun(agent, input).get("id").asString();
        JsonNode run = api.awaitRunEnd(id);
        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        return run;
    }

    /** The run's event stream: {@code all} adds the subagents' own sessions. */
    List<Event> events(String runId, boolean all) {
        var r = api.get("/api/v1/runs/" + runId + "/events" + (all ? "?scope=all" : ""), Api.ADMIN_KEY);
        assertThat(r.status()).isEqualTo(200);
        List<Event> out = new ArrayList<>();
        String id = null;
        String name = "message";
        StringBuilder data = new StringBuilder();
        for (String line : (r.body() + "\n\n").split("\n", -1)) {
            if (line.isEmpty()) {
                if (!data.isEmpty()) {
                    out.add(new Event(id == null ? -1 : Long.parseLong(id), name, JSON.readTree(data.toString())));
                }
                id = null;
                name = "message";
                data.setLength(0);
            } else if (line.startsWith("id:")) {
                id = line.substring(3).trim();
            } else if (line.startsWith("event:")) {
                name = line.substring(6).trim();
            } else if (line.startsWith("data:")) {
                data.append(line.substring(5).trim());
            }
        }
        return out;
    }

    /** Every node of the run's trace tree (agents, tools, model calls), depth first. */
    List<JsonNode> traceNodes(String runId) {
        // Spans reach the store shortly after the run ends: wait until every agent span is there.
        JsonNode trace = dev.cadre.platform.support.Await.until(
                "trace of " + runId,
                () -> api.get("/api/v1/runs/" + runId + "/trace", Api.ADMIN_KEY).json(),
                t -> flatten(t).stream()
                        .anyMatch(n -> n.get("kind").asString().equals("agent")
                                && n.get("depth").asLong(-1) == 0));
        return flatten(trace);
    }

    private static List<JsonNode> flatten(JsonNode trace) {
        List<JsonNode> out = new ArrayList<>();
        trace.get("roots").forEach(r -> walk(r, out));
        return out;
    }

    private static void walk(JsonNode node, List<JsonNode> out) {
        out.add(node);
        node.get("children").forEach(c -> walk(c, out));
    }

    static List<JsonNode> agentSpans(List<JsonNode> nodes, String agent) {
        return nodes.stream()
                .filter(n -> n.get("kind").asString().equals("agent"))
                .filter(n -> agent.equals(n.get("agent").asString(null)))
                .toList();
    }

    /** The model calls made by the agent span (its direct "model" children). */
    static List<JsonNode> modelCalls(JsonNode agentSpan) {
        List<JsonNode> out = new ArrayList<>();
        agentSpan.get("children").forEach(c -> {
            if (c.get("kind").asString().equals("model")) {
                out.add(c);
            }
        });
        return out;
    }

    static Instant start(JsonNode span) {
        return Instant.parse(span.get("start").asString());
    }

    static Instant end(JsonNode span) {
        return Instant.parse(span.get("end").asString());
    }

    /** Writes (creates or replaces) a shared-memory entry through the memory API. */
    void putMemory(String namespace, String key, Map<String, ?> value) {
        var current = api.get("/api/v1/memory/" + namespace + "/" + key, Api.ADMIN_KEY);
        Map<String, String> condition =
                current.status() == 200 ? Map.of("If-Match", current.header("ETag")) : Map.of("If-None-Match", "*");
        var r = api.send("PUT", "/api/v1/memory/" + namespace + "/" + key, Api.ADMIN_KEY, Api.json(value), condition);
        assertThat(r.status()).as(r.body()).isIn(200, 201);
    }
}
