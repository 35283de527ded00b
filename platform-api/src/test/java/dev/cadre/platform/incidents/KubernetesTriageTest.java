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
        // The emulator has no deployment controller: a test completes a rollout itself, or never does.
        registry.add("cadre.tools.kubernetes.verify-timeout", () -> "PT15S");
        registry.add("cadre.tools.kubernetes.verify-poll-interval", () -> "PT0.2S");
    }

    /** Plays the deployment controller once the rollback is written: its rollout to revision 1 completes. */
    private void completeRollbackOnceWritten() {
        dev.cadre.platform.support.Await.until("the rollback to be written", () -> image(web()), "shop/web:1"::equals);
        MOCK.completeRollout("web", "web-1111");
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
        assertThat(approval.get("headline").asString())
                .isEqualTo("Roll back deployment shop/web from revision 2 (shop/web:2) to revision 1 (shop/web:1)");
        assertThat(approval.get("details").toString())
                .startsWith("[\"image app: shop/web:2 → shop/web:1\",\"env app: -FEATURE_X\",\"Checked again");
        assertThat(approval.get("what").asString())
                .isEqualTo(approval.get("headline").asString());
        assertThat(approval.toString())
                .contains("\"generation\":" + web().getMetadata().getGeneration());
        assertThat(image(web())).as("nothing changes before the approval").isEqualTo("shop/web:2");
        var approved = api.approve(approval.get("id").asString(), Api.ADMIN_KEY, "{\"comment\":\"roll back\"}");
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
        completeRollbackOnceWritten();

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
        JsonNode verified = incidents
                .get(incident)
                .orElseThrow()
                .value()
                .path("remediations")
                .get(0);
        assertThat(verified.path("verdict").asString()).isEqualTo("succeeded");
        assertThat(verified.path("approver").asString()).isEqualTo("bootstrap");
        // The findings with their evidence, and the outcome, are on the incident's timeline.
        assertThat(incidents.get(incident).orElseThrow().toString())
                .as(done.toString())
                .contains("CrashLoopBackOff")
                .contains("FATAL: FEATURE_X requires DB_URL to be set")
                .contains("Rolled back and verified")
                .contains("image app: shop/web:2 → shop/web:1");
    }

    @Test
    void anEditIsProposedAgain_andCanNeverRetargetTheRollback() {
        JsonNode accepted = alert();
        String runId = accepted.get("runId").asString();
        JsonNode approval = awaitUndoApproval(runId);
        String id = approval.get("id").asString();

        // Retargeting to another namespace or deployment is refused, naming the field; nothing recorded.
        for (String[] retarget : new String[][] {
            {"payments", "web", "editedArguments.namespace"}, {"shop", "ledger", "editedArguments.deployment"}
        }) {
            var r = api.approve(
                    id,
                    Api.ADMIN_KEY,
                    "{\"editedArguments\":{\"namespace\":\"" + retarget[0] + "\",\"deployment\":\"" + retarget[1]
                            + "\",\"toRevision\":1}}");
            assertThat(r.status()).as(r.body()).isEqualTo(400);
            assertThat(r.json().get("field").asString()).isEqualTo(retarget[2]);
            assertThat(r.json().get("detail").asString()).contains("may not change the");
        }
        JsonNode unchanged = api.get("/api/v1/approvals/" + id, Api.ADMIN_KEY).json();
        assertThat(unchanged.get("status").asString()).isEqualTo("pending");
        assertThat(unchanged.get("editedArguments").isNull()).isTrue();

        // An edit carrying stale state and a harmless-looking description: proposed again by the tool.
        var edited = api.approve(
                id,
                Api.ADMIN_KEY,
                "{\"editedArguments\":{\"namespace\":\"shop\",\"deployment\":\"web\",\"toRevision\":1,"
                        + "\"reason\":\"edited\",\"change\":\"a harmless no-op\",\"changes\":[],"
                        + "\"observed\":{\"kind\":\"Deployment\",\"uid\":\"stale\",\"generation\":0,"
                        + "\"resourceVersion\":\"1\",\"spec\":\"0\"}}}");
        assertThat(edited.status()).as(edited.body()).isEqualTo(200);
        JsonNode run = edited.json().get("editedArguments");
        assertThat(run.get("change").asString())
                .isEqualTo("Roll back deployment shop/web from revision 2 (shop/web:2) to revision 1 (shop/web:1)");
        assertThat(run.get("observed").get("uid").asString())
                .isEqualTo(web().getMetadata().getUid());
        assertThat(run.get("observed").get("replicaSet").get("name").asString()).isEqualTo("web-1111");
        assertThat(edited.json().get("headline").asString())
                .isEqualTo(run.get("change").asString());
        completeRollbackOnceWritten();

        JsonNode done = awaitPastDecisions(runId, List.of(id));
        assertThat(done.get("status").asString()).as(done.toString()).isEqualTo("completed");
        assertThat(image(web())).isEqualTo("shop/web:1");
    }

    @Test
    void aRollbackAppliedButNeverVerified_leavesTheIncidentOpenAndEscalated_notResolved() {
        JsonNode accepted = alert();
        String runId = accepted.get("runId").asString();
        String incident = accepted.get("incident").asString();
        JsonNode approval = awaitUndoApproval(runId);

        // Approved and applied, but the new pods never become ready (no controller completes it).
        assertThat(api.approve(approval.get("id").asString(), Api.ADMIN_KEY).status())
                .isEqualTo(200);

        JsonNode done = awaitPastDecisions(runId, List.of(approval.get("id").asString()));
        assertThat(done.get("status").asString()).as(done.toString()).isEqualTo("completed");
        assertThat(image(web())).isEqualTo("shop/web:1");
        var after = incidents.get(incident).orElseThrow();
        assertThat(after.status()).as(after.toString()).isEqualTo("escalated");
        // What was done, by whom, with what outcome: on the incident's remediations, recorded by the platform.
        JsonNode remediation = after.value().path("remediations").get(0);
        assertThat(remediation.path("action").asString()).as(after.toString()).isEqualTo("k8s_rollout_undo");
        assertThat(remediation.path("verdict").asString()).isEqualTo("timed_out");
        assertThat(remediation.path("approver").asString()).isEqualTo("bootstrap");
        assertThat(remediation.path("arguments").path("deployment").asString()).isEqualTo("web");
        assertThat(incidents.timeline(incident, 0, 500).toString()).contains("Rollback applied, not fixed (TIMED_OUT)");
    }

    @Test
    void aDeploymentChangedAfterTheApproval_isNotRolledBack() {
        JsonNode accepted = alert();
        String runId = accepted.get("runId").asString();
        String incident = accepted.get("incident").asString();
        JsonNode approval = awaitUndoApproval(runId);

        // Someone else acts on the deployment while the approval waits.
        MOCK.client().apps().deployments().inNamespace("shop").withName("web").scale(4);
        api.approve(approval.get("id").asString(), Api.ADMIN_KEY);

        JsonNode done = awaitPastDecisions(runId, List.of(approval.get("id").asString()));
        assertThat(done.toString()).contains("STATE_INCONSISTENCY").contains("changed since the approval");
        assertThat(image(web())).isEqualTo("shop/web:2");
        assertThat(incidents.get(incident).orElseThrow().status()).isEqualTo("open");
    }
}
