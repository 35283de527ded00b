package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.tools.kubernetes.KubernetesMock;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The shipped Kubernetes triage team end to end over REST, against fabric8's mock API server: an
 * Alertmanager KubePodCrashLooping alert → parallel pod and rollout inspectors → findings on the
 * incident → the repairer's k8s_rollout_undo waits for a human, showing the exact change and the
 * deployment's generation → approved, the pod template is revision 1's → the incident is resolved. And
 * a deployment changed by someone else after the approval → refused as STATE_INCONSISTENCY, nothing applied.
 */
class KubernetesTriageTest extends OpsPlatformTestBase {

    static final KubernetesMock MOCK = new KubernetesMock();
    static final Path KUBECONFIG;

    static {
        try {
            KUBECONFIG = MOCK.writeKubeconfig(Files.createTempDirectory("cadre-kubeconfig"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @DynamicPropertySource
    static void kubernetes(DynamicPropertyRegistry registry) {
        registry.add("cadre.tools.kubernetes.kubeconfig", KUBECONFIG::toString);
        registry.add("cadre.tools.kubernetes.context", () -> "mock");
    }

    @AfterAll
    static void stopMock() {
        MOCK.close();
    }

    @BeforeEach
    void freshCluster() {
        MOCK.client().apps().deployments().inNamespace("shop").delete();
        MOCK.client().apps().replicaSets().inNamespace("shop").delete();
        MOCK.client().pods().inNamespace("shop").delete();
        MOCK.client().v1().events().inNamespace("shop").delete();
        MOCK.seedCrashLoop();
    }

    private static String crashLooping(String fingerprint) {
        return """
                {"version":"4","status":"firing","receiver":"cadre","groupLabels":{"alertname":"KubePodCrashLooping"},
                 "alerts":[{"status":"firing",
                   "labels":{"alertname":"KubePodCrashLooping","namespace":"shop","pod":"web-2222-ccccc",
                             "container":"app","severity":"critical"},
                   "annotations":{"summary":"Pod shop/web-2222-ccccc is crash looping"},
                   "startsAt":"2026-12-05T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"%s"}]}
                """.formatted(fingerprint);
    }

    private Deployment web() {
        return MOCK.client()
                .apps()
                .deployments()
                .inNamespace("shop")
                .withName("web")
                .get();
    }

    private static String image(Deployment d) {
        return d.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage();
    }

    private JsonNode alert() {
        var r = api.post(
                "/api/v1/integrations/alertmanager",
                Api.ADMIN_KEY,
                crashLooping("k8s" + UUID.randomUUID().toString().substring(0, 8)));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("alerts").get(0);
    }

    private JsonNode awaitUndoApproval(String runId) {
        JsonNode waiting = awaitStatus(runId, "input-required|completed|failed|canceled|rejected");
        assertThat(waiting.get("status").asString()).as(waiting.toString()).isEqualTo("input-required");
        List<JsonNode> pending = pendingApprovals(runId);
        assertThat(pending).hasSize(1);
        return pending.getFirst();
    }

    @Test
    void aCrashLoopingRevision_isRolledBackAfterApproval_andTheIncidentResolved() {
        JsonNode accepted = alert();
        assertThat(accepted.get("agent").asString()).isEqualTo("k8s-orchestrator");
        String runId = accepted.get("runId").asString();
        String incident = accepted.get("incident").asString();

        JsonNode approval = awaitUndoApproval(runId);
        assertThat(approval.get("tool").asString()).isEqualTo("k8s_rollout_undo");
        assertThat(approval.get("agent").asString()).isEqualTo("k8s-repairer");
        assertThat(approval.toString())
                .contains("roll back Deployment shop/web from revision 2 to revision 1:"
                        + " image app: shop/web:2 → shop/web:1; env app: -FEATURE_X")
                .contains("\"generation\":" + web().getMetadata().getGeneration());
        assertThat(image(web())).as("nothing changes before the approval").isEqualTo("shop/web:2");
        var approved = api.post(
                "/api/v1/approvals/" + approval.get("id").asString() + "/approve",
                Api.ADMIN_KEY,
                "{\"comment\":\"roll back\"}");
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);

        // What the approval causes: the run ends (input-required is the state before it took effect).
        JsonNode done = awaitPastDecisions(runId, List.of(approval.get("id").asString()));
        assertThat(done.get("status").asString()).as(done.toString()).isEqualTo("completed");
        List<JsonNode> subagents = done.get("subagents").valueStream().toList();
        assertThat(subagents.stream().map(a -> a.get("worker").asString()))
                .as(done.get("subagents").toString())
                .containsExactly("k8s-pod-inspector", "k8s-rollout-inspector", "k8s-repairer", "k8s-recorder");
        assertThat(image(web())).isEqualTo("shop/web:1");
        assertThat(web().getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getEnv())
                .extracting(e -> e.getName())
                .containsExactly("PORT");
        assertThat(incidents.get(incident).orElseThrow().status()).isEqualTo("resolved");
        // The findings with their evidence, and the outcome, are on the incident's timeline.
        assertThat(incidents.get(incident).orElseThrow().toString())
                .as(done.toString())
                .contains("CrashLoopBackOff")
                .contains("FATAL: FEATURE_X requires DB_URL to be set")
                .contains("Rolled back")
                .contains("image app: shop/web:2 → shop/web:1");
    }

    @Test
    void aDeploymentChangedAfterTheApproval_isNotRolledBack() {
        JsonNode accepted = alert();
        String runId = accepted.get("runId").asString();
        String incident = accepted.get("incident").asString();
        JsonNode approval = awaitUndoApproval(runId);

        // Someone else acts on the deployment while the approval waits.
        MOCK.client().apps().deployments().inNamespace("shop").withName("web").scale(4);
        api.post("/api/v1/approvals/" + approval.get("id").asString() + "/approve", Api.ADMIN_KEY, "{}");

        JsonNode done = awaitPastDecisions(runId, List.of(approval.get("id").asString()));
        assertThat(done.toString()).contains("STATE_INCONSISTENCY").contains("changed since the approval");
        assertThat(image(web())).isEqualTo("shop/web:2");
        assertThat(incidents.get(incident).orElseThrow().status()).isEqualTo("open");
    }
}
