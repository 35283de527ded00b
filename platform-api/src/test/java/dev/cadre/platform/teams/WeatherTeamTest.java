package dev.cadre.platform.teams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.tool.ToolContext;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Seed 000's weather fan-out team, end to end over the REST API (docs/teams.md). */
@PlatformTest
class WeatherTeamTest {

    static final List<Map<String, Object>> CITIES = List.of(
            Map.of("city", "Shanghai", "sky", "sunny", "celsius", 27),
            Map.of("city", "Beijing", "sky", "cloudy", "celsius", 24),
            Map.of("city", "London", "sky", "light rain", "celsius", 15),
            Map.of("city", "Oslo", "sky", "fog", "celsius", 9),
            Map.of("city", "Lima", "sky", "overcast", "celsius", 18));

    @LocalServerPort
    int port;

    @Autowired
    AgentCatalog catalog;

    Api api;
    TeamRuns runs;

    @BeforeEach
    void desk() {
        api = new Api(port);
        runs = new TeamRuns(api);
        for (int i = 0; i < CITIES.size(); i++) {
            runs.putMemory("weather", "city-" + (i + 1), CITIES.get(i));
        }
    }

    @Test
    void desk_fansOutThreeWorkersInOneTurn_theyReadMemoryAndOverlap_andTheMainStreamShowsOnlyDelegations() {
        JsonNode run = runs.runToCompletion("weather-desk", "How is the weather in today's three cities?");
        String id = run.get("id").asString();

        assertThat(run.get("result").asString())
                .contains("Weather summary (3 cities)")
                .contains("Shanghai", "sunny", "Beijing", "cloudy", "London", "light rain");
        assertThat(run.get("result").asString().indexOf("Shanghai"))
                .as("results in call order")
                .isLessThan(run.get("result").asString().indexOf("Beijing"));
        assertThat(run.get("subagents").valueStream().map(s -> s.get("worker").asString()))
                .containsExactly("weather-worker", "weather-worker", "weather-worker");
        assertThat(run.get("subagents").valueStream().map(s -> s.get("status").asString()))
                .containsOnly("ok");

        List<JsonNode> nodes = runs.traceNodes(id);
        JsonNode desk = TeamRuns.agentSpans(nodes, "weather-desk").getFirst();
        assertThat(TeamRuns.modelCalls(desk))
                .as("one turn issues all three calls, one more turn sums up")
                .hasSize(2);
        List<JsonNode> workers = TeamRuns.agentSpans(nodes, "weather-worker");
        assertThat(workers).hasSize(3);
        assertOverlap(workers);
        // Each worker read its own key, through its own memory_get call.
        assertThat(nodes.stream()
                        .filter(n -> "memory_get".equals(n.get("tool").asString(null)))
                        .map(n -> n.get("status").asString()))
                .hasSize(3)
                .containsOnly("ok");

        List<TeamRuns.Event> main = runs.events(id, false);
        String rootSession = main.getFirst().data().get("sessionId").asString();
        assertThat(main)
                .allSatisfy(e -> assertThat(e.data().get("sessionId").asString())
                        .as("main scope: the desk's own session only")
                        .isEqualTo(rootSession));
        assertThat(main.stream()
                        .filter(e ->
                                e.name().equals("tool_call_start") || e.name().equals("tool_result")))
                .as("the main scope sees the delegations, not the workers' tool calls")
                .hasSize(6)
                .allSatisfy(e -> assertThat(e.data().get("tool").asString()).isEqualTo("weather-worker"));
        assertThat(main.stream().map(TeamRuns.Event::name).collect(Collectors.toSet()))
                .isSubsetOf(Set.of(
                        "run_started",
                        "status",
                        "text_delta",
                        "tool_call_start",
                        "subagent_started",
                        "subagent_finished",
                        "tool_result",
                        "done"));
        assertThat(main.stream().filter(e -> e.name().equals("subagent_finished")))
                .hasSize(3);

        List<TeamRuns.Event> all = runs.events(id, true);
        assertThat(all.stream()
                        .filter(e -> e.name().equals("tool_call_start"))
                        .filter(e -> e.data().get("tool").asString().equals("memory_get")))
                .as("the workers' own events exist, in their own sessions")
                .hasSize(3)
                .allSatisfy(e ->
                        assertThat(e.data().get("parentSessionId").asString()).isEqualTo(rootSession));
    }

    @Test
    void batch_splitsAFiveLineMissionIntoFiveConcurrentWorkers_andAggregatesInLineOrder() {
        String mission = "city-1\ncity-2\ncity-3\ncity-4\ncity-5";
        JsonNode run = runs.runToCompletion("weather-batch", mission);
        String id = run.get("id").asString();

        assertThat(run.get("subagents").valueStream().map(s -> s.get("worker").asString()))
                .hasSize(5)
                .containsOnly("weather-worker");
        assertThat(run.get("subagents").valueStream().map(s -> s.get("status").asString()))
                .containsOnly("ok");
        String result = run.get("result").asString();
        int last = -1;
        for (Map<String, Object> city : CITIES) {
            int at = result.indexOf((String) city.get("city"));
            assertThat(at)
                    .as("%s after the previous city in %s", city.get("city"), result)
                    .isGreaterThan(last);
            last = at;
        }

        List<TeamRuns.Event> main = runs.events(id, false);
        JsonNode split = main.stream()
                .filter(e -> e.name().equals("tool_result"))
                .map(TeamRuns.Event::data)
                .filter(d -> d.get("tool").asString().equals("mission_split"))
                .findFirst()
                .orElseThrow();
        assertThat(split.get("content").asString())
                .isEqualTo("[\"city-1\",\"city-2\",\"city-3\",\"city-4\",\"city-5\"]");
        assertThat(main.stream()
                        .filter(e -> e.name().equals("subagent_started"))
                        .map(e -> e.data().get("task").asString()))
                .containsExactly("city-1", "city-2", "city-3", "city-4", "city-5");

        List<JsonNode> nodes = runs.traceNodes(id);
        assertThat(TeamRuns.modelCalls(
                        TeamRuns.agentSpans(nodes, "weather-batch").getFirst()))
                .as("split, one fan-out turn, answer")
                .hasSize(3);
        List<JsonNode> workers = TeamRuns.agentSpans(nodes, "weather-worker");
        assertThat(workers).hasSize(5);
        assertOverlap(workers);
    }

    @Test
    void theSeedTeamsLoadBesideTheOpsTeam_listedOverRest_andOverA2aOnlyWhereDeclared() {
        Map<String, String> sourceOf = api.get("/api/v1/agents", Api.ADMIN_KEY)
                .json()
                .valueStream()
                .collect(Collectors.toMap(
                        a -> a.get("name").asString(), a -> a.get("source").asString()));
        assertThat(sourceOf)
                .containsEntry("ops-orchestrator", "ops-team.yaml")
                .containsEntry("weather-desk", "weather-team.yaml")
                .containsEntry("weather-batch", "weather-team.yaml")
                .containsEntry("fork-lead", "fork-team.yaml")
                .containsEntry("sales-assistant", "sales-team.yaml")
                .containsEntry("crm-data", "sales-team.yaml");
        JsonNode card = api.get("/.well-known/agent-card.json", null).json();
        // The agent card lists what declares expose: [a2a] (issue 23): the seed teams declare nothing.
        assertThat(card.get("skills").valueStream().map(s -> s.get("id").asString()))
                .contains("ops-orchestrator")
                .doesNotContain("weather-desk", "weather-batch", "fork-lead", "sales-assistant");
    }

    @Test
    void aWorkersMemoryToolsReachOnlyTheNamespacesItsYamlLists() throws Exception {
        // The worker's own memory_get, as the model would call it, with the worker's identity.
        var memoryGet = catalog.tools().find("memory_get");
        var ctx = new ToolContext("run_allow", "run_allow", "weather-worker", "c1");
        var json = JsonMapper.builder().build();
        assertThat(memoryGet.execute(json.readTree("{\"namespace\":\"weather\",\"key\":\"city-1\"}"), ctx))
                .contains("Shanghai");
        runs.putMemory("host-checks", "note", Map.of("secret", "not for the weather desk"));
        assertThatThrownBy(
                        () -> memoryGet.execute(json.readTree("{\"namespace\":\"host-checks\",\"key\":\"note\"}"), ctx))
                .hasMessageContaining("host-checks");
        assertThat(catalog.memoryNamespaces("weather-worker")).containsExactly("weather");
        assertThat(catalog.memoryNamespaces("weather-desk")).isEmpty();
    }

    /** Every worker started before any of them ended: they ran at the same time. */
    static void assertOverlap(List<JsonNode> spans) {
        Instant lastStart = spans.stream()
                .map(TeamRuns::start)
                .max(Comparator.naturalOrder())
                .orElseThrow();
        Instant firstEnd =
                spans.stream().map(TeamRuns::end).min(Comparator.naturalOrder()).orElseThrow();
        assertThat(lastStart)
                .as(
                        "the last worker starts before the first one ends (spans %s)",
                        spans.stream()
                                .map(s -> TeamRuns.start(s) + ".." + TeamRuns.end(s))
                                .toList())
                .isBefore(firstEnd);
    }
}
