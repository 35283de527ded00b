package dev.cadre.platform.teams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.model.ModelRequest;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Seed 004's sales assistant, end to end over the REST API (docs/teams.md). */
@PlatformTest
class SalesTeamTest {

    static final String QUESTION = "Why did East region sales drop in July 2026 compared with June?";

    @LocalServerPort
    int port;

    @Autowired
    AgentCatalog catalog;

    Api api;
    TeamRuns runs;

    @BeforeEach
    void setUp() {
        api = new Api(port);
        runs = new TeamRuns(api);
    }

    @Test
    void assistant_routesDataThenAnalysis_seesSummariesOnly_andItsContextIsAFifthOfOneAgentHoldingTheRows()
            throws Exception {
        try (InputStream csv = getClass().getResourceAsStream("/datasets/orders.csv")) {
            String[] lines = new String(csv.readAllBytes(), StandardCharsets.UTF_8).split("\n");
            assertThat(lines.length - 1).as("order rows shipped").isGreaterThanOrEqualTo(300);
        }
        // The routing hints the parent's model reads: what each worker does, and does NOT do.
        assertThat(api.get("/api/v1/agents/crm-data", Api.ADMIN_KEY)
                        .json()
                        .get("description")
                        .asString())
                .contains("Does not analyse trends");
        assertThat(api.get("/api/v1/agents/sales-analysis", Api.ADMIN_KEY)
                        .json()
                        .get("description")
                        .asString())
                .contains("Does not query any data");

        JsonNode run = runs.runToCompletion("sales-assistant", QUESTION);
        String id = run.get("id").asString();
        assertThat(run.get("subagents").valueStream().map(s -> s.get("worker").asString()))
                .as("the data first, then the analysis")
                .containsExactly("crm-data", "sales-analysis");
        assertThat(run.get("subagents").valueStream().map(s -> s.get("status").asString()))
                .containsOnly("ok");
        String answer = run.get("result").asString();
        JsonNode comparison = comparison(answer);
        assertThat(comparison.at("/total/changePct").asDouble()).isEqualTo(-12.3);
        assertThat(comparison.at("/by_category/0/category").asString())
                .as("the category that drives the drop")
                .isEqualTo("Home Appliances");

        List<TeamRuns.Event> all = runs.events(id, true);
        JsonNode rowsQuery = all.stream()
                .filter(e -> e.name().equals("tool_result"))
                .map(TeamRuns.Event::data)
                .filter(d -> d.get("tool").asString().equals("csv_query"))
                .findFirst()
                .orElseThrow();
        assertThat(rowsQuery.get("agent").asString()).isEqualTo("crm-data");
        JsonNode rows =
                JsonMapper.builder().build().readTree(rowsQuery.get("content").asString());
        assertThat(rows.get("matched").asInt()).isEqualTo(135);
        assertThat(rows.get("rows").size()).isEqualTo(135);

        // Summaries only: the order rows were in crm-data's context, never in the parent's.
        assertThat(requestsOf("crm-data", id).getLast().messages().toString()).contains("SO-202606-");
        assertThat(requestsOf("sales-assistant", id))
                .hasSize(3)
                .allSatisfy(r -> assertThat(r.messages().toString()).doesNotContain("SO-2026"));

        // Context sizes from the trace: the largest model request of the parent vs of one agent that
        // holds the rows itself (gen_ai.usage.input_tokens of their chat spans).
        long parent = maxInputTokens(runs.traceNodes(id), "sales-assistant");
        JsonNode solo = runs.runToCompletion("sales-solo", QUESTION);
        assertThat(comparison(solo.get("result").asString())
                        .at("/total/changePct")
                        .asDouble())
                .isEqualTo(-12.3);
        long single = maxInputTokens(runs.traceNodes(solo.get("id").asString()), "sales-solo");
        long dataWorker = maxInputTokens(runs.traceNodes(id), "crm-data");
        System.out.printf(
                "sales context (max input tokens of one model request): assistant %d, crm-data %d, sales-solo %d,"
                        + " ratio solo/assistant %.1f%n",
                parent, dataWorker, single, (double) single / parent);
        assertThat(parent).isPositive();
        assertThat(single).as("one agent holding the rows vs the parent").isGreaterThanOrEqualTo(5 * parent);
    }

    @Test
    void analysis_withoutTheDataFirst_hasNothingToCompare() {
        JsonNode run = runs.runToCompletion("sales-analysis", "Explain the July drop of the East region.");
        JsonNode compare = runs.events(run.get("id").asString(), false).stream()
                .filter(e -> e.name().equals("tool_result"))
                .map(TeamRuns.Event::data)
                .filter(d -> d.get("tool").asString().equals("compare_periods"))
                .findFirst()
                .orElseThrow();
        assertThat(compare.get("error").get("code").asString()).isEqualTo("no_figures");
        assertThat(compare.get("error").get("message").asString()).contains("get the data first");
    }

    /** The compare_periods figures quoted in an answer, inside a worker's {"status","summary"} wrapper or not. */
    static JsonNode comparison(String text) {
        JsonNode node =
                JsonMapper.builder().build().readTree(text.substring(text.indexOf('{'), text.lastIndexOf('}') + 1));
        return node.has("summary") ? comparison(node.get("summary").asString()) : node;
    }

    private static long maxInputTokens(List<JsonNode> nodes, String agent) {
        return TeamRuns.agentSpans(nodes, agent).stream()
                .flatMap(a -> TeamRuns.modelCalls(a).stream())
                .mapToLong(m -> m.get("inputTokens").asLong())
                .max()
                .orElseThrow();
    }

    private List<ModelRequest> requestsOf(String agent, String runId) {
        return catalog.scripted().orElseThrow().requestsOf(agent).stream()
                .filter(r -> r.runId().equals(runId))
                .toList();
    }
}
