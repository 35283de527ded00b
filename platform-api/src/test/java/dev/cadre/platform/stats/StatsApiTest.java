package dev.cadre.platform.stats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.runs.RunStatistics;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

@PlatformTest
class StatsApiTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private JsonNode runToEnd(String agent, String input) {
        return api.awaitRunEnd(api.submitRun(agent, input).get("id").asString());
    }

    @Test
    void overview_countsRunsTokensByAgentAndModel_andDurations() {
        String run = runToEnd("triage", "stats check").get("id").asString();
        // Chat spans are stored shortly after they end: wait for this run's whole trace, since a
        // probe-c model row may already be there from an earlier run of the shared context.
        api.awaitTrace(run);
        JsonNode o = api.get("/api/v1/stats/overview?hours=24", Api.ADMIN_KEY).json();
        assertThat(o.get("tokensByModel").valueStream().map(m -> m.get("agent").asString()))
                .contains("probe-c");

        assertThat(o.get("hours").asInt()).isEqualTo(24);
        assertThat(o.get("runs").asLong()).isPositive();
        assertThat(o.get("runsByStatus").get("completed").asLong()).isPositive();
        assertThat(o.get("runsPerHour").size()).isBetween(24, 26);
        long perHour = o.get("runsPerHour")
                .valueStream()
                .mapToLong(h -> h.get("total").asLong())
                .sum();
        assertThat(perHour).isEqualTo(o.get("runs").asLong());
        assertThat(o.get("successRate").asDouble()).isBetween(0.0, 1.0);
        assertThat(o.get("duration").get("p95Ms").asLong())
                .isGreaterThanOrEqualTo(o.get("duration").get("p50Ms").asLong());
        JsonNode orchestrator = o.get("tokensByAgent")
                .valueStream()
                .filter(a -> a.get("agent").asString().equals("triage"))
                .findFirst()
                .orElseThrow();
        assertThat(orchestrator.get("inputTokens").asLong()).isPositive();
        JsonNode model = o.get("tokensByModel")
                .valueStream()
                .filter(m -> m.get("agent").asString().equals("triage"))
                .findFirst()
                .orElseThrow();
        assertThat(model.get("model").asString()).isEqualTo("scripted:default");
        assertThat(model.get("calls").asLong()).isGreaterThanOrEqualTo(2);
        assertThat(o.has("approvalsWaiting")).isTrue();
        assertThat(o.has("runsQueued")).isTrue();
        assertThat(o.get("failuresByCategory").isArray()).isTrue();
    }

    @Test
    void overview_rejectsAnUnreasonableWindow_naming_theParameter() {
        var r = api.get("/api/v1/stats/overview?hours=0", Api.ADMIN_KEY);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.header("Content-Type")).contains("application/problem+json");
        assertThat(r.json().get("field").asString()).isEqualTo("hours");
    }

    @Test
    void agents_countDelegationsPerOrchestratorAndWorker() {
        runToEnd("triage", "routing check");
        JsonNode agents = api.get("/api/v1/stats/agents", Api.ADMIN_KEY).json().get("agents");
        JsonNode orchestrator = agents.valueStream()
                .filter(a -> a.get("agent").asString().equals("triage"))
                .findFirst()
                .orElseThrow();
        assertThat(orchestrator.get("asOrchestrator").get("delegations").asLong())
                .isGreaterThanOrEqualTo(3);
        assertThat(orchestrator.get("asOrchestrator").get("misrouted").asLong()).isZero();
        JsonNode cpu = agents.valueStream()
                .filter(a -> a.get("agent").asString().equals("probe-a"))
                .findFirst()
                .orElseThrow();
        assertThat(cpu.get("asWorker").get("delegations").asLong()).isPositive();
    }

    @Test
    void misrouted_isAnOrchestrationFailureOrAnEmptySuccess() {
        assertThat(RunStatistics.misrouted(
                        JSON.readTree("{\"status\":\"failed\",\"error\":{\"category\":\"ORCHESTRATION_ERROR\"}}")))
                .isTrue();
        assertThat(RunStatistics.misrouted(JSON.readTree("{\"status\":\"ok\",\"summary\":\"  \"}")))
                .isTrue();
        assertThat(RunStatistics.misrouted(JSON.readTree("{\"status\":\"ok\",\"summary\":\"disk fine\"}")))
                .isFalse();
        assertThat(RunStatistics.misrouted(
                        JSON.readTree("{\"status\":\"failed\",\"error\":{\"category\":\"EXECUTION_ERROR\"}}")))
                .isFalse();
    }

    @Test
    void overview_viewersMayRead_anonymousMayNot() {
        var created =
                api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", "stats-viewer", "role", "viewer")));
        String viewer = created.json().get("secret").asString();

        assertThat(api.get("/api/v1/stats/overview", viewer).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/stats/overview", null).status()).isEqualTo(401);
    }
}
