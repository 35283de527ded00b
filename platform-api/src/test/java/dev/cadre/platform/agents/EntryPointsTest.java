package dev.cadre.platform.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * What callers can start (seed 004's entry-only gateway): internal agents and workflows are workers
 * and steps only — 404 over REST, no A2A skill, listed for admins only — and declared workflows are
 * A2A skills like agents.
 */
@PlatformTest
class EntryPointsTest {

    @LocalServerPort
    int port;

    private static List<String> names(JsonNode list) {
        List<String> out = new ArrayList<>();
        list.forEach(a -> out.add(a.get("name").asString()));
        return out;
    }

    private static String a2aSend(String agent, String text) {
        return "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"SendMessage\",\"params\":{\"message\":{\"messageId\":\""
                + UUID.randomUUID() + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":" + Api.json(text)
                + "}],\"metadata\":{\"agent\":\"" + agent + "\"}},\"configuration\":{\"blocking\":true}}}";
    }

    @Test
    void theDemoTeamsInspectors_areInternal_notStartable_andListedForAdminsOnly() {
        Api api = new Api(port);
        var start = api.post(
                "/api/v1/runs", Api.ADMIN_KEY, Api.json(Map.of("agent", "cpu-inspector", "input", "check cpu")));
        assertThat(start.status()).as(start.body()).isEqualTo(404);

        JsonNode forAdmin = api.get("/api/v1/agents", Api.ADMIN_KEY).json();
        assertThat(names(forAdmin)).contains("cpu-inspector", "ops-orchestrator", "wf-hidden");
        forAdmin.forEach(a -> assertThat(a.get("internal").asBoolean())
                .as(a.get("name").asString())
                .isEqualTo(List.of(
                                "cpu-inspector",
                                "memory-inspector",
                                "disk-inspector",
                                "ops-recorder",
                                "ops-scoper",
                                "ops-alerter",
                                "ops-repairer",
                                "wf-hidden",
                                "k8s-pod-inspector",
                                "k8s-rollout-inspector",
                                "k8s-repairer",
                                "k8s-recorder")
                        .contains(a.get("name").asString())));

        var key = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", "entry-viewer", "role", "viewer")));
        assertThat(key.status()).as(key.body()).isEqualTo(201);
        String viewer = key.json().get("secret").asString();
        assertThat(names(api.get("/api/v1/agents", viewer).json()))
                .contains("ops-orchestrator")
                .doesNotContain(
                        "cpu-inspector",
                        "memory-inspector",
                        "disk-inspector",
                        "ops-recorder",
                        "ops-scoper",
                        "wf-hidden");
        assertThat(api.get("/api/v1/agents/cpu-inspector", viewer).status()).isEqualTo(404);
        assertThat(names(api.get("/api/v1/workflows", viewer).json()))
                .contains("wf-incident")
                .doesNotContain("wf-internal");

        // The orchestrator still uses them as workers.
        JsonNode run = api.awaitRunEnd(
                api.submitRun("ops-orchestrator", "check host web-1").get("id").asString());
        assertThat(run.get("status").asString()).isEqualTo("completed");
        assertThat(run.get("subagents").valueStream().map(s -> s.get("worker").asString()))
                .contains("cpu-inspector");
    }

    @Test
    void a2a_offersWorkflowsAsSkills_runsThem_andRefusesInternalOnes() {
        Api api = new Api(port);
        JsonNode card = api.get("/.well-known/agent-card.json", null).json();
        List<String> skills = new ArrayList<>();
        card.get("skills").forEach(s -> skills.add(s.get("id").asString()));
        assertThat(skills).contains("ops-orchestrator", "wf-review").doesNotContain("cpu-inspector", "wf-internal");
        card.get("skills").forEach(s -> {
            if (s.get("id").asString().equals("wf-review")) {
                assertThat(s.get("tags").toString()).contains("workflow", "parallel");
            }
        });

        var task = api.post("/a2a", Api.ADMIN_KEY, a2aSend("wf-review", "release 9"));
        assertThat(task.status()).as(task.body()).isEqualTo(200);
        assertThat(task.body()).contains("missing index").contains("token never expires");

        var refused = api.post("/a2a", Api.ADMIN_KEY, a2aSend("cpu-inspector", "check cpu"));
        assertThat(refused.json().get("error").get("message").asString()).contains("unknown agent or workflow");
        var refusedWorkflow = api.post("/a2a", Api.ADMIN_KEY, a2aSend("wf-internal", "x"));
        assertThat(refusedWorkflow.json().get("error").get("message").asString())
                .contains("unknown agent or workflow");
    }
}
