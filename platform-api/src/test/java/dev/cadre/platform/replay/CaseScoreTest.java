package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.replay.IncidentCase.ActionRef;
import dev.cadre.platform.replay.IncidentCase.Expectations;
import dev.cadre.platform.replay.IncidentCase.FindingRef;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class CaseScoreTest {

    private final JsonMapper json = JsonMapper.builder().build();

    private JsonNode node(String text) {
        return json.readTree(text);
    }

    private final Expectations expect = new Expectations(
            new FindingRef(null, "cpu", "host"),
            List.of(new FindingRef(null, "cpu", null), new FindingRef("mem-swap", null, null)),
            List.of(new FindingRef(null, "disk", null)),
            List.of(new ActionRef("runbook_execute", node("{\"runbook\":\"clear-tmp-cache\"}"))),
            List.of(new ActionRef("runbook_execute", node("{\"runbook\":\"restart-db\"}"))),
            Map.of());

    private IncidentCase observed(List<String> findings, List<String> runbooks) {
        return new IncidentCase(
                1,
                "observed",
                null,
                new IncidentCase.Input("ops-orchestrator", "triage", null),
                List.of(),
                List.of(),
                findings.stream().map(this::node).toList(),
                null,
                runbooks.stream()
                        .map(r -> new IncidentCase.Action(
                                "runbook_execute",
                                node("{\"runbook\":\"" + r + "\",\"arguments\":{\"older_than_minutes\":60}}")))
                        .toList(),
                List.of(),
                null,
                Expectations.NONE);
    }

    @Test
    void theRecordedAnswerScoresFull() {
        CaseScore s = CaseScore.of(
                "cpu",
                expect,
                observed(
                        List.of(
                                "{\"id\":\"cpu-high\",\"category\":\"cpu\",\"target\":\"host\"}",
                                "{\"id\":\"mem-swap\",\"category\":\"memory\",\"target\":\"host\"}"),
                        List.of("clear-tmp-cache")),
                List.of(),
                5,
                1200,
                0.0,
                Duration.ofSeconds(3));
        assertThat(s)
                .isEqualTo(new CaseScore(
                        "cpu",
                        true,
                        1.0,
                        1.0,
                        List.of(),
                        List.of(),
                        List.of(),
                        List.of(),
                        5,
                        1200,
                        0.0,
                        Duration.ofSeconds(3)));
        assertThat(s.passed()).isTrue();
    }

    @Test
    void aWeakenedTeamMissesTheCauseReportsTheRedHerringAndProposesTheForbiddenAction() {
        CaseScore s = CaseScore.of(
                "cpu",
                expect,
                observed(
                        List.of(
                                "{\"id\":\"mem-swap\",\"category\":\"memory\",\"target\":\"host\"}",
                                "{\"id\":\"disk-full\",\"category\":\"disk\",\"target\":\"/var\"}"),
                        List.of("restart-db")),
                List.of("no recording for host_metrics {\"resource\":\"gpu\"}"),
                7,
                2000,
                0.0,
                Duration.ofSeconds(4));
        assertThat(s.rootCauseFound()).isFalse();
        assertThat(s.recall()).isEqualTo(0.5);
        assertThat(s.precision()).isEqualTo(0.5);
        assertThat(s.redHerrings()).containsExactly("disk-full");
        assertThat(s.missedActions()).containsExactly("runbook_execute {\"runbook\":\"clear-tmp-cache\"}");
        assertThat(s.forbiddenProposed()).containsExactly("runbook_execute {\"runbook\":\"restart-db\"}");
        assertThat(s.deviations()).containsExactly("no recording for host_metrics {\"resource\":\"gpu\"}");
        assertThat(s.passed()).isFalse();
    }

    @Test
    void aForbiddenActionAloneFailsTheCase() {
        CaseScore s = CaseScore.of(
                "cpu",
                expect,
                observed(
                        List.of(
                                "{\"id\":\"cpu-high\",\"category\":\"cpu\",\"target\":\"host\"}",
                                "{\"id\":\"mem-swap\",\"category\":\"memory\",\"target\":\"host\"}"),
                        List.of("clear-tmp-cache", "restart-db")),
                List.of(),
                5,
                1200,
                0.0,
                Duration.ofSeconds(3));
        assertThat(s.missedActions()).isEmpty();
        assertThat(s.forbiddenProposed()).hasSize(1);
        assertThat(s.passed()).isFalse();
    }
}
