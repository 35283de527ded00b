package dev.cadre.agent.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProseTest {

    @Test
    void aWorkersWrappedAnswer_withJsonQuotedInside_readsAsTheSummaryAndAListOfFields() {
        // The ops team's final answer as it was stored: the repairer's result wrapped by the delegation,
        // with the runbook's JSON result quoted inside its summary.
        String answer = "Triage finished.\nRepair: {\"status\":\"ok\",\"summary\":\"Remediation: "
                + "{\\\"runbook\\\":\\\"clear-tmp-cache\\\",\\\"incident\\\":\\\"inc-8b0f14bd0469\\\","
                + "\\\"status\\\":\\\"ok\\\",\\\"exitCode\\\":0,\\\"durationMillis\\\":152,"
                + "\\\"output\\\":\\\"cleared (minutes=60)\\\\n\\\"}\"}";

        assertThat(Prose.markdown(answer)).isEqualTo("""
                        Triage finished.
                        Repair:
                        Remediation:
                        - **runbook**: clear-tmp-cache
                        - **incident**: inc-8b0f14bd0469
                        - **status**: ok
                        - **exit code**: 0
                        - **duration millis**: 152
                        - **output**: cleared (minutes=60)""");
    }

    @Test
    void findings_readAsAList_withSeverityTargetWhatEvidenceAndSuggestion() {
        String findings =
                "{\"findings\":[{\"id\":\"f1\",\"severity\":\"high\",\"category\":\"cpu\",\"target\":\"web-1\","
                        + "\"description\":\"CPU at 97% for 10 minutes\",\"evidence\":\"load 7.9 on 2 cores\","
                        + "\"suggestion\":\"find the runaway process\",\"confidence\":0.9},"
                        + "{\"severity\":\"low\",\"target\":\"web-1\",\"description\":\"disk 61% full\"}]}";

        assertThat(Prose.markdown(findings)).isEqualTo("""
                        - **HIGH** `web-1` (cpu): CPU at 97% for 10 minutes
                          - Evidence: load 7.9 on 2 cores
                          - Suggestion: find the runaway process
                        - **LOW** `web-1`: disk 61% full""");
    }

    @Test
    void aRefusalReadsAsItsStatusAndReason() {
        assertThat(Prose.markdown("Repair: {\"status\":\"denied\",\"comment\":\"rejected by ana: change freeze\"}"))
                .isEqualTo("Repair: **denied** — rejected by ana: change freeze");
        assertThat(Prose.markdown("Repair: {\"status\":\"ok\",\"summary\":\"Nothing to remediate.\"}"))
                .isEqualTo("Repair: Nothing to remediate.");
    }

    @Test
    void nestedObjectsAndLists_areIndentedUnderTheirField() {
        assertThat(
                        Prose.markdown(
                                "{\"status\":\"applied\",\"pods\":[{\"name\":\"web-1\",\"ready\":true},{\"name\":\"web-2\",\"ready\":false}],"
                                        + "\"images\":[\"shop/web:1\",\"shop/web:2\"],\"observed\":{\"replicas\":2,\"ready\":1}}"))
                .isEqualTo("""
                        - **status**: applied
                        - **pods**:
                          - **name**: web-1 · **ready**: true
                          - **name**: web-2 · **ready**: false
                        - **images**: shop/web:1, shop/web:2
                        - **observed**:
                          - **replicas**: 2
                          - **ready**: 1""");
    }

    @Test
    void textWithoutJson_andBracketsThatAreNotJson_stayAsTheyAre() {
        assertThat(Prose.markdown("Host check finished.\n[WARN] disk {almost} full"))
                .isEqualTo("Host check finished.\n[WARN] disk {almost} full");
        assertThat(Prose.markdown((String) null)).isNull();
    }

    @Test
    void bracketsThatNeverClose_areScannedOnABudget_andLeftAsText() {
        // Without a budget each of these brackets would be scanned to the end of the text: quadratic.
        String unclosed = "{".repeat(100_000) + " {\"status\":\"ok\",\"summary\":\"late\"}";
        assertThat(Prose.markdown(unclosed)).isEqualTo(unclosed);
        assertThat(FindingsText.extract(unclosed)).isEmpty();
    }
}
