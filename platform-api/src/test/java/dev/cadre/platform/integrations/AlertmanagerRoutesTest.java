package dev.cadre.platform.integrations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.agents.AgentConfigException;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code cadre.integrations.alertmanager.routes}: an alertname can start a declared workflow. */
@PlatformTest
class AlertmanagerRoutesTest {

    @LocalServerPort
    int port;

    @Autowired
    IncidentService incidents;

    @Autowired
    RunService runs;

    @Autowired
    AgentCatalog catalog;

    @Autowired
    JsonMapper json;

    @Test
    void aRoutedAlert_startsItsWorkflow_andOtherAlertsTheDefaultAgent() {
        AlertmanagerIntake intake = new AlertmanagerIntake(
                incidents,
                runs,
                json,
                "echoer",
                AlertmanagerController.routes(List.of("WfReview = wf-review", ""), catalog));
        String fp = UUID.randomUUID().toString();
        JsonNode routed = intake.accept(
                        json.readTree(alert("WfReview", fp)),
                        dev.cadre.platform.security.Actor.platform("alertmanager"))
                .get("alerts")
                .get(0);
        assertThat(routed.get("agent").asString()).isEqualTo("wf-review");
        JsonNode other = intake.accept(
                        json.readTree(alert("SomethingElse", fp + "-2")),
                        dev.cadre.platform.security.Actor.platform("alertmanager"))
                .get("alerts")
                .get(0);
        assertThat(other.get("agent").asString()).isEqualTo("echoer");

        JsonNode run = new Api(port).awaitRunEnd(routed.get("runId").asString());
        assertThat(run.get("agent").asString()).isEqualTo("wf-review");
        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(run.get("subagents")).hasSize(2);
    }

    @Test
    void aRouteToAnUnknownAgentOrWorkflow_stopsStartUpNamingTheEntry() {
        assertThatThrownBy(() -> AlertmanagerController.routes(List.of("DiskFull=ghost", "nonsense"), catalog))
                .isInstanceOfSatisfying(
                        AgentConfigException.class,
                        e -> assertThat(e.problems())
                                .hasSize(2)
                                .anySatisfy(p -> assertThat(p)
                                        .contains("'DiskFull=ghost'")
                                        .contains("unknown agent or workflow"))
                                .anySatisfy(p -> assertThat(p).contains("'nonsense' is not alertname=agent")));
    }

    private static String alert(String name, String fingerprint) {
        return """
                {"version":"4","status":"firing","alerts":[{"status":"firing",
                  "labels":{"alertname":"%s","instance":"db-1"},"annotations":{"summary":"x"},
                  "startsAt":"2026-05-08T03:00:00Z","fingerprint":"%s"}]}
                """.formatted(name, fingerprint);
    }
}
