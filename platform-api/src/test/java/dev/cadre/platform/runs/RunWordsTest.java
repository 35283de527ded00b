package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.incidents.OpsPlatformTestBase;
import dev.cadre.platform.support.Api;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Words for people, structure for machines: a run's answer and its workers' summaries come with a
 * Markdown text beside the form the agents produced (JSON stays JSON for programs), and the run's
 * findings as a structured list.
 */
class RunWordsTest extends OpsPlatformTestBase {

    @Test
    void theTriagesAnswer_readsAsText_besideItsMachineForm_withTheFindingsAsAList() throws Exception {
        String id = submit("Triage: CPU is high on the platform host");
        awaitStatus(id, "input-required");
        String approval = pendingApprovals(id).getFirst().get("id").asString();
        assertThat(api.approve(approval, Api.ADMIN_KEY).status()).isEqualTo(200);
        JsonNode run = awaitPastDecisions(id, List.of(approval));
        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");

        // For programs: the answer as the orchestrator gave it, the repairer's result wrapped as JSON.
        assertThat(run.get("result").asString())
                .contains("Repair: {\"status\":\"ok\",\"summary\":\"Remediation: {\\\"");
        // For people: no JSON, no escaped quotes; the runbook's record as a list of fields.
        String text = run.get("resultText").asString();
        assertThat(text)
                // The host team names the host it looked at and gives its findings before the repair.
                .startsWith("Triage finished (platform host).\nFindings:\n- **CRITICAL** `")
                .contains("\n\nRepair:\nRemediation:\n- **runbook**: clear-tmp-cache\n")
                .contains("\n- **status**: ok\n- **exit code**: 0\n")
                .endsWith("\n- **output**: cleared (minutes=60)")
                .doesNotContain("\\\"")
                .doesNotContain("{");

        JsonNode analyst = run.get("subagents")
                .valueStream()
                .filter(s -> s.get("worker").asString().equals("ops-analyst"))
                .findFirst()
                .orElseThrow();
        assertThat(analyst.get("summaryText").asString())
                .startsWith("- **CRITICAL** `")
                .doesNotContain("{\"");

        JsonNode findings = run.get("findings");
        assertThat(findings).isNotEmpty();
        assertThat(findings.get(0).get("severity").asString()).isEqualTo("critical");
        assertThat(findings.get(0).get("category").asString()).isEqualTo("cpu");
        assertThat(findings.get(0).has("target")).isTrue();
    }
}
