package dev.cadre.platform.teams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.model.ModelRequest;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import dev.cadre.platform.tools.Workspaces;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/** Seed 002's fork team, end to end over the REST API (docs/teams.md). */
@PlatformTest
class ForkTeamTest {

    @LocalServerPort
    int port;

    @Autowired
    AgentCatalog catalog;

    @Autowired
    Workspaces workspaces;

    Api api;
    TeamRuns runs;

    @BeforeEach
    void setUp() {
        api = new Api(port);
        runs = new TeamRuns(api);
    }

    @Test
    void twoEditorsEachChangeTheirFileInTheRunsWorkspace_atTheSameTime_andTheLeadsPrivateMarkerNeverReachesThem()
            throws Exception {
        String marker = "PRIVATE-MARKER-" + UUID.randomUUID();
        JsonNode run = runs.runToCompletion(
                "fork-lead", "Update both modules. Note for the lead only: " + marker + " (do not pass it on).");
        String id = run.get("id").asString();

        Path workspace = workspaces.root().resolve(id);
        assertThat(Files.readString(workspace.resolve("alpha.py"))).isEqualTo("# alpha module\nVALUE = 42\n");
        assertThat(Files.readString(workspace.resolve("beta.py"))).isEqualTo("# beta module\nTIMEOUT = 30\n");
        try (var files = Files.list(workspace)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("alpha.py", "beta.py");
        }
        assertThat(run.get("result").asString())
                .contains("Fork finished")
                .contains("VALUE = 42")
                .contains("TIMEOUT = 30");
        assertThat(run.get("subagents").valueStream().map(s -> s.get("worker").asString()))
                .containsExactly("alpha-editor", "beta-editor");
        assertThat(run.get("subagents").valueStream().map(s -> s.get("status").asString()))
                .containsOnly("ok");

        List<JsonNode> nodes = runs.traceNodes(id);
        List<JsonNode> editors = new java.util.ArrayList<>(TeamRuns.agentSpans(nodes, "alpha-editor"));
        editors.addAll(TeamRuns.agentSpans(nodes, "beta-editor"));
        assertThat(editors).hasSize(2);
        WeatherTeamTest.assertOverlap(editors);
        assertThat(TeamRuns.modelCalls(editors.getFirst()))
                .as("read, write, answer")
                .hasSize(3);

        // The marker is in the lead's context...
        List<ModelRequest> lead = requestsOf("fork-lead", id);
        assertThat(lead)
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.messages().toString()).contains(marker));
        // ...and in nothing any editor saw or emitted.
        for (String editor : List.of("alpha-editor", "beta-editor")) {
            List<ModelRequest> seen = requestsOf(editor, id);
            assertThat(seen).as(editor + " requests").hasSize(3);
            assertThat(seen)
                    .allSatisfy(r -> assertThat(r.messages().toString() + r.tools())
                            .doesNotContain(marker)
                            .doesNotContain("PRIVATE-MARKER"));
        }
        List<TeamRuns.Event> all = runs.events(id, true);
        String rootSession = all.getFirst().data().get("sessionId").asString();
        assertThat(all.stream()
                        .filter(e -> !e.data().get("sessionId").asString().equals(rootSession)))
                .as("the editors' own events")
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.data().toString()).doesNotContain(marker));
        assertThat(all.stream()
                        .filter(e -> e.name().equals("subagent_started"))
                        .map(e -> e.data().get("task").asString()))
                .containsExactly("In alpha.py set VALUE to 42.", "In beta.py set TIMEOUT to 30.");

        // The parent's stream holds the fork's lifecycle, not the editors' file operations.
        List<TeamRuns.Event> main = runs.events(id, false);
        assertThat(main.stream()
                        .filter(e -> e.name().equals("tool_call_start"))
                        .map(e -> e.data().get("tool").asString()))
                .containsExactly(
                        "workspace_write",
                        "workspace_write",
                        "alpha-editor",
                        "beta-editor",
                        "workspace_read",
                        "workspace_read");
    }

    @Test
    void anUnknownWorker_isRefusedBeforeAnythingStarts() {
        JsonNode run = runs.runToCompletion("fork-lead", "Fork gamma as well.");
        String id = run.get("id").asString();

        assertThat(run.get("result").asString()).contains("Fork refused").contains("gamma-editor");
        assertThat(run.get("subagents").size()).isZero();
        List<TeamRuns.Event> all = runs.events(id, true);
        JsonNode refusal = all.stream()
                .filter(e -> e.name().equals("tool_result"))
                .map(TeamRuns.Event::data)
                .findFirst()
                .orElseThrow();
        assertThat(refusal.get("tool").asString()).isEqualTo("gamma-editor");
        assertThat(refusal.get("status").asString()).isEqualTo("failed");
        assertThat(refusal.get("error").get("code").asString()).isEqualTo("unknown_tool");
        assertThat(refusal.get("error").get("category").asString()).isEqualTo("ORCHESTRATION_ERROR");
        assertThat(all).noneSatisfy(e -> assertThat(e.name()).isIn("subagent_started", "subagent_finished"));
        assertThat(all)
                .allSatisfy(e ->
                        assertThat(e.data().get("parentSessionId").isNull()).isTrue());
        assertThat(requestsOf("alpha-editor", id)).isEmpty();
        assertThat(requestsOf("beta-editor", id)).isEmpty();
        assertThat(workspaces.root().resolve(id)).doesNotExist();
    }

    private List<ModelRequest> requestsOf(String agent, String runId) {
        return catalog.scripted().orElseThrow().requestsOf(agent).stream()
                .filter(r -> r.runId().equals(runId))
                .toList();
    }
}
