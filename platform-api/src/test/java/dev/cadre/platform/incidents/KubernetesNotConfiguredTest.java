package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The embedded default has no cluster (no {@code cadre.tools.kubernetes.*}): an alert about a
 * Kubernetes workload still goes to the Kubernetes team, and its run ends by itself — no exception, no
 * approval waiting for a change that cannot be made — saying that Kubernetes is not configured and
 * which settings configure it; the incident stays open with that note.
 */
class KubernetesNotConfiguredTest extends OpsPlatformTestBase {

    @Test
    void aWorkloadAlert_withoutACluster_endsSayingKubernetesIsNotConfigured() {
        var posted = api.post("/api/v1/integrations/alertmanager", Api.ADMIN_KEY, """
                {"version":"4","status":"firing","receiver":"cadre","groupLabels":{"alertname":"KubePodCrashLooping"},
                 "alerts":[{"status":"firing",
                   "labels":{"alertname":"KubePodCrashLooping","namespace":"shop","pod":"checkout-2222-ccccc",
                             "deployment":"checkout","severity":"critical"},
                   "annotations":{"summary":"Pod shop/checkout-2222-ccccc is crash looping"},
                   "startsAt":"2026-12-05T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"%s"}]}
                """.formatted(
                        "nok8s" + UUID.randomUUID().toString().substring(0, 8)));
        assertThat(posted.status()).as(posted.body()).isEqualTo(200);
        JsonNode accepted = posted.json().get("alerts").get(0);
        assertThat(accepted.get("agent").asString()).isEqualTo("k8s-orchestrator");
        String runId = accepted.get("runId").asString();
        String incident = accepted.get("incident").asString();

        JsonNode done = awaitStatus(runId, "completed|failed|canceled|rejected|input-required");

        assertThat(done.get("status").asString()).as(done.toString()).isEqualTo("completed");
        assertThat(done.get("result").asString())
                .as("the run's answer says what is missing and where to set it")
                .contains("Kubernetes is not configured")
                .contains("cadre.tools.kubernetes.");
        assertThat(api.get("/api/v1/approvals?runId=" + runId, Api.ADMIN_KEY)
                        .json()
                        .get("items"))
                .as("no change was proposed to a human")
                .isEmpty();
        Incident after = incidents.get(incident).orElseThrow();
        assertThat(after.status()).isEqualTo("open");
        assertThat(after.toString()).contains("Kubernetes is not configured");
    }
}
