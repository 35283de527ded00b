package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.support.Api;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The default team end to end through the REST API, and seed 003's 3 a.m. loop replayed with counts. */
class OpsTeamTest extends OpsPlatformTestBase {

    @Autowired
    AgentCatalog catalog;

    @Test
    void theSameTeamAsADeclaredPipeline_inspectsAnalysesRecordsAlertsAndRepairsOnlyAfterApproval() throws Exception {
        var submitted = api.post(
                "/api/v1/runs",
                Api.ADMIN_KEY,
                Api.json(Map.of("workflow", "ops-pipeline", "input", "check the platform's own host")));
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(202);
        String id = submitted.json().get("id").asString();

        // No model chose this route. The repair step waits for a human before its runbook runs.
        JsonNode waiting = awaitStatus(id, "input-required|completed|failed|canceled|rejected");
        assertThat(waiting.get("status").asString()).as(waiting.toString()).isEqualTo("input-required");
        assertThat(executions()).as("nothing runs before a human approves").isZero();
        List<JsonNode> pending = pendingApprovals(id);
        assertThat(pending).hasSize(1);
        assertThat(pending.getFirst().get("tool").asString()).isEqualTo("runbook_execute");
        assertThat(pending.getFirst().get("agent").asString()).isEqualTo("ops-repairer");
        var approved =
                api.approve(pending.getFirst().get("id").asString(), Api.ADMIN_KEY, "{\"comment\":\"go ahead\"}");
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);

        JsonNode done =
                awaitPastDecisions(id, List.of(pending.getFirst().get("id").asString()));
        assertThat(done.get("status").asString()).as(done.toString()).isEqualTo("completed");
        List<String> steps = new java.util.ArrayList<>();
        done.get("subagents").forEach(s -> {
            steps.add(s.get("worker").asString());
            assertThat(s.get("status").asString()).as(s.toString()).isEqualTo("ok");
        });
        // Which host -> inspection (in parallel) -> analysis -> incident record -> alert -> repair, each
        // step with the previous one's baton.
        assertThat(steps.getFirst()).isEqualTo("ops-scoper");
        assertThat(steps.subList(1, 4))
                .containsExactlyInAnyOrder("cpu-inspector", "memory-inspector", "disk-inspector");
        assertThat(steps.subList(4, steps.size()))
                .containsExactly("ops-analyst", "ops-recorder", "ops-alerter", "ops-repairer");
        // The CPU threshold of this context is 0: the analysed findings open an incident keyed by the
        // critical CPU finding, the alerter sends one notification saying so, and the repairer read the
        // incident's remediation field ('allowed') from the record the recorder handed on.
        Incident incident = incidents.forRun(id).orElseThrow();
        assertThat(incident.fingerprint()).containsIgnoringCase("cpu");
        assertThat(deliveries("hook")).isEqualTo(1);
        assertThat(DELIVERIES.getFirst())
                .contains("\\\"severity\\\":\\\"critical\\\"", "\\\"fingerprint\\\":\\\"cpu@")
                .contains("Decisions:\\n- ops-recorder answered with data (below, after Context:)");
        assertThat(executions()).isEqualTo(1);
        assertThat(done.get("result").asString()).contains("cleared (minutes=60)");
    }

    @Test
    void defaultTeam_triage_inspectsAnalysesAlertsAndRemediatesOnlyAfterApproval() throws Exception {
        String id = submit("Triage: CPU is high on the platform host");

        JsonNode waiting = awaitStatus(id, "input-required|completed|failed");
        assertThat(waiting.get("status").asString()).as(waiting.toString()).isEqualTo("input-required");
        assertThat(executions()).as("nothing runs before a human approves").isZero();
        List<JsonNode> pending = pendingApprovals(id);
        assertThat(pending).hasSize(1);
        assertThat(pending.getFirst().get("tool").asString()).isEqualTo("runbook_execute");
        assertThat(pending.getFirst().get("agent").asString()).isEqualTo("ops-repairer");

        var approved =
                api.approve(pending.getFirst().get("id").asString(), Api.ADMIN_KEY, "{\"comment\":\"go ahead\"}");
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);

        JsonNode run =
                awaitPastDecisions(id, List.of(pending.getFirst().get("id").asString()));
        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(run.get("result").asString())
                .contains("Triage finished (platform host)")
                .contains("cleared (minutes=60)");
        assertThat(run.get("subagents").valueStream().map(s -> s.get("worker").asString()))
                .containsExactly(
                        "cpu-inspector",
                        "memory-inspector",
                        "disk-inspector",
                        "ops-analyst",
                        "ops-alerter",
                        "ops-repairer");
        assertThat(run.get("subagents").valueStream().map(s -> s.get("status").asString()))
                .containsOnly("ok");
        assertThat(executions()).isEqualTo(1);
        assertThat(deliveries("hook")).isEqualTo(1);
        String alert = DELIVERIES.stream()
                .filter(d -> d.startsWith("hook "))
                .findFirst()
                .orElseThrow();
        JsonNode alertJson = JsonMapper.builder().build().readTree(alert.substring(5));
        assertThat(alertJson.get("source").asString()).isEqualTo("cadre");
        assertThat(alertJson.get("agent").asString()).isEqualTo("ops-alerter");

        // The incident record in shared memory, readable by anyone through the memory API.
        Incident incident = incidents.forRun(id).orElseThrow();
        var stored = api.get("/api/v1/memory/incidents/" + incident.id(), Api.ADMIN_KEY);
        assertThat(stored.status()).isEqualTo(200);
        JsonNode value = stored.json().get("value");
        assertThat(value.get("fingerprint").asString()).startsWith("cpu@");
        assertThat(value.get("severity").asString()).isEqualTo("critical");
        assertThat(value.get("remediations").get(0).get("status").asString()).isEqualTo("ok");
        assertThat(value.get("remediations").get(0).get("runId").asString()).isEqualTo(id);
    }

    @Test
    void theThreeAmLoop_oneIncident_oneApprovedRemediation_oneAlert_thenAHuman() throws Exception {
        // Seed 003: inspection keeps seeing high CPU after the repair; the trio looped 7 times.
        int rounds = 7;
        int runbookApprovals = 0;
        int questions = 0;
        List<String> runIds = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            String id = submit("Nightly inspection, round " + round + ": triage the platform host");
            runIds.add(id);
            JsonNode r = awaitStatus(id, "input-required|completed|failed|canceled");
            List<String> decided = new ArrayList<>();
            while (r.get("status").asString().equals("input-required")) {
                for (JsonNode approval : pendingApprovals(id)) {
                    decided.add(approval.get("id").asString());
                    String tool = approval.get("tool").asString();
                    String body;
                    if (tool.equals("runbook_execute")) {
                        runbookApprovals++;
                        body = "{\"comment\":\"approved at 03:00\"}";
                    } else {
                        assertThat(tool).isEqualTo("ask_human");
                        assertThat(approval.get("what").asString()).contains("keeps recurring");
                        questions++;
                        body = "{\"comment\":\"Leave it; I am taking over and will scale the service.\"}";
                    }
                    api.approve(approval.get("id").asString(), Api.ADMIN_KEY, body);
                }
                r = awaitPastDecisions(id, decided);
            }
            assertThat(r.get("status").asString())
                    .as("round " + round + ": " + r)
                    .isEqualTo("completed");
        }

        List<Incident> active = incidents.list(false, 100);
        assertThat(active).as("one incident for the whole night").hasSize(1);
        Incident incident = active.getFirst();
        assertThat(incident.occurrences()).isEqualTo(rounds);
        assertThat(incident.status()).isEqualTo(Incident.ESCALATED);
        assertThat(incident.runs()).containsExactlyElementsOf(runIds);
        assertThat(runbookApprovals).as("a human approved the remediation once").isEqualTo(1);
        assertThat(executions()).as("the remediation ran once").isEqualTo(1);
        assertThat(incident.value().get("remediations").size()).isEqualTo(1);
        assertThat(deliveries("hook")).as("one alert, not seven").isEqualTo(1);
        assertThat(deliveries("escalate")).as("one escalation").isEqualTo(1);
        assertThat(questions).as("the human was asked once, at the escalation").isEqualTo(1);
        assertThat(run(runIds.get(2)).get("result").asString()).contains("I am taking over");
        assertThat(run(runIds.get(1)).get("result").asString()).contains("Not repeating");
        assertThat(run(runIds.get(6)).get("result").asString()).contains("A human owns this incident");

        // Even an approved runbook call that reaches the tool again runs nothing: the guard is the
        // platform's, not the model's.
        Tool runbook = catalog.tools().find("runbook_execute");
        String again = runbook.execute(
                JsonMapper.builder()
                        .build()
                        .readTree("{\"runbook\":\"clear-tmp-cache\",\"incident\":\"" + incident.id() + "\"}"),
                new ToolContext("run_manual", "run_manual", "ops-repairer", "call-x"));
        assertThat(again).contains("\"status\":\"skipped\"");
        assertThat(executions()).isEqualTo(1);
        assertThat(Map.of("executions", executions())).containsEntry("executions", 1L);
    }
}
