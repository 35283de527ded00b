package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.incidents.OpsPlatformTestBase;
import dev.cadre.platform.support.Api;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/** Recording a run of the shipped host ops team as an incident case over REST (issue 25). */
class CaseExportTest extends OpsPlatformTestBase {

    private static final String EXPECT = """
            {"rootCause": {"category": "cpu"},
             "mustNotFind": [{"category": "disk"}],
             "actions": [{"tool": "runbook_execute", "arguments": {"runbook": "clear-tmp-cache"}}],
             "forbiddenActions": [{"tool": "runbook_execute", "arguments": {"runbook": "restart-db"}}],
             "ignoreArguments": {"host_metrics": ["tailLines"]}}""";

    @Autowired
    CaseFile files;

    @Autowired
    AgentCatalog catalog;

    @Test
    void aFinishedTriageRunBecomesAValidCaseWithItsCallsFindingsActionsAndDecisions() {
        var submitted = api.post(
                "/api/v1/runs",
                Api.ADMIN_KEY,
                Api.json(Map.of("agent", "ops-orchestrator", "input", "triage the platform host")));
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(202);
        String id = submitted.json().get("id").asString();
        JsonNode waiting = awaitStatus(id, "input-required|completed|failed|canceled|rejected");
        assertThat(waiting.get("status").asString()).as(waiting.toString()).isEqualTo("input-required");

        var early = api.post("/api/v1/runs/" + id + "/case", Api.ADMIN_KEY, EXPECT);
        assertThat(early.status())
                .as("a run still waiting cannot be a case: " + early.body())
                .isEqualTo(409);
        var earlyRead = api.get("/api/v1/runs/" + id + "/case", Api.ADMIN_KEY);
        assertThat(earlyRead.status()).as(earlyRead.body()).isEqualTo(409);

        List<JsonNode> pending = pendingApprovals(id);
        String approval = pending.getFirst().get("id").asString();
        var approved = api.approve(approval, Api.ADMIN_KEY, "{\"comment\":\"ok\"}");
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
        assertThat(awaitPastDecisions(id, List.of(approval)).get("status").asString())
                .isEqualTo("completed");

        var exported = api.post("/api/v1/runs/" + id + "/case?name=cpu-triage", Api.ADMIN_KEY, EXPECT);
        assertThat(exported.status()).as(exported.body()).isEqualTo(200);
        assertThat(exported.header("Content-Type")).startsWith("application/yaml");

        IncidentCase c = files.read("cpu-triage.yaml", exported.body());
        assertThat(c.name()).isEqualTo("cpu-triage");
        assertThat(c.recordedFrom()).isEqualTo(id);
        assertThat(c.input()).isEqualTo(new IncidentCase.Input("ops-orchestrator", "triage the platform host", null));
        // Every tool call but the workers (they run again in a replay), each with the session it ran in.
        assertThat(c.calls().stream().map(IncidentCase.Call::tool))
                .containsExactlyInAnyOrder(
                        "host_target",
                        "host_metrics",
                        "host_metrics",
                        "host_metrics",
                        "findings_aggregate",
                        "incident_open",
                        "notify",
                        "runbook_execute");
        assertThat(c.calls().stream()
                        .filter(k -> k.tool().equals("host_metrics"))
                        .map(k -> k.arguments().get("resource").asString()))
                .containsExactlyInAnyOrder("cpu", "memory", "disk");
        assertThat(c.calls()).allSatisfy(k -> assertThat(k.status()).isEqualTo("ok"));
        assertThat(c.calls().stream()
                        .filter(k -> k.tool().equals("runbook_execute"))
                        .findFirst()
                        .orElseThrow()
                        .output())
                .contains("cleared");
        // The subagent tree: six workers under the orchestrator's session.
        assertThat(c.subagents().stream().map(IncidentCase.Subagent::worker))
                .containsExactlyInAnyOrder(
                        "cpu-inspector",
                        "memory-inspector",
                        "disk-inspector",
                        "ops-analyst",
                        "ops-alerter",
                        "ops-repairer");
        assertThat(c.subagents().stream().map(IncidentCase.Subagent::parent).distinct())
                .hasSize(1);
        // Findings from the analyst's findings_aggregate, the incident from incident_open.
        assertThat(c.findings()).isNotEmpty();
        assertThat(c.findings().stream().map(f -> f.path("category").asString()))
                .contains("cpu");
        assertThat(c.incident().path("remediation").asString()).isEqualTo("allowed");
        // Proposed side effects and the human's decision on the one that needed approval.
        assertThat(c.actions().stream().map(IncidentCase.Action::tool))
                .containsExactlyInAnyOrder("notify", "runbook_execute");
        assertThat(c.decisions()).singleElement().satisfies(d -> {
            assertThat(d.tool()).isEqualTo("runbook_execute");
            assertThat(d.arguments().get("runbook").asString()).isEqualTo("clear-tmp-cache");
            assertThat(d.decision()).isEqualTo("approved");
        });
        assertThat(c.result()).startsWith("Triage finished (platform host).");
        assertThat(c.expect().rootCause()).isEqualTo(new IncidentCase.FindingRef(null, "cpu", null));
        assertThat(c.expect().ignoreArguments()).isEqualTo(Map.of("host_metrics", List.of("tailLines")));
    }

    @Test
    void theRecordingWithoutExpectationsIsReadableAsJson() {
        // Not a triage: its remediation would make the other test's incident "already done".
        String id = submit("check the platform host for the console");
        awaitStatus(id, "completed");

        var read = api.get("/api/v1/runs/" + id + "/case", Api.ADMIN_KEY);
        assertThat(read.status()).as(read.body()).isEqualTo(200);
        assertThat(read.header("Content-Type")).startsWith("application/json");
        JsonNode json = read.json();
        // Everything the YAML export records, but no expectations: the client judges them.
        IncidentCase exported = files.read(
                "x.yaml",
                api.post("/api/v1/runs/" + id + "/case", Api.ADMIN_KEY, "{}").body());
        assertThat(json.has("expect")).isFalse();
        assertThat(json.get("version").asInt()).isEqualTo(1);
        assertThat(json.get("name").asString()).isEqualTo("run-" + id);
        assertThat(json.get("recordedFrom").asString()).isEqualTo(id);
        assertThat(json.at("/input/agent").asString()).isEqualTo("ops-orchestrator");
        assertThat(json.get("findings").valueStream().map(f -> f.path("id").asString()))
                .containsExactlyElementsOf(exported.findings().stream()
                        .map(f -> f.path("id").asString())
                        .toList());
        assertThat(json.get("findings")
                        .valueStream()
                        .map(f -> f.path("category").asString()))
                .contains("cpu");
        assertThat(json.get("actions").valueStream().map(a -> a.get("tool").asString()))
                .containsExactlyElementsOf(exported.actions().stream()
                        .map(IncidentCase.Action::tool)
                        .toList())
                .containsExactly("notify");
        assertThat(json.at("/actions/0/arguments/title").asString())
                .isEqualTo(
                        exported.actions().getFirst().arguments().path("title").asString())
                .isNotBlank();
        assertThat(json.get("calls").size()).isEqualTo(exported.calls().size());
        assertThat(json.get("calls").valueStream().map(c -> c.get("tool").asString()))
                .contains("host_metrics", "findings_aggregate", "notify");
        assertThat(api.get("/api/v1/runs/no-such-run/case", Api.ADMIN_KEY).status())
                .isEqualTo(404);
    }

    @Test
    void everyToolAgentsGetGoesThroughTheReplaySeam() {
        assertThat(catalog.tools().names()).contains("runbook_execute", "notify", "host_metrics");
        for (String name : catalog.tools().names()) {
            assertThat(catalog.tools().find(name)).as(name).isInstanceOf(ReplayTool.class);
        }
    }

    @Test
    void expectationsNamingAnUnknownToolAreRefusedNamingTheField() {
        String id = submit("check the platform host");
        awaitStatus(id, "completed");
        var r = api.post(
                "/api/v1/runs/" + id + "/case",
                Api.ADMIN_KEY,
                "{\"actions\": [{\"tool\": \"runbook_execute\"}, {\"tool\": \"foo\"}]}");
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("field").asString()).isEqualTo("expect.actions[1].tool");
        assertThat(r.json().get("detail").asString()).isEqualTo("expect.actions[1].tool: unknown tool 'foo'");
        assertThat(api.post("/api/v1/runs/no-such-run/case", Api.ADMIN_KEY, "{}")
                        .status())
                .isEqualTo(404);
    }
}
