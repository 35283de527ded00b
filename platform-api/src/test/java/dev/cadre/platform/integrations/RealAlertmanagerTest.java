package dev.cadre.platform.integrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.incidents.OpsPlatformTestBase;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.RealAlertmanager;
import dev.cadre.platform.tools.kubernetes.KubernetesMock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * A real Alertmanager (Debian's, fired with {@code amtool}) delivering into the intake with a key of
 * the {@code intake} role, as a deployment wires it: a Kubernetes alert reaches the Kubernetes triage
 * team against fabric8's mock API server and is repaired only after an operator approves; a host alert
 * still reaches the host team; Alertmanager's own repeats and the resolution do not start more runs.
 */
class RealAlertmanagerTest extends OpsPlatformTestBase {

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
        // The emulator has no deployment controller: the test completes the rollout itself once the
        // rollback is written, and the platform's verification sees the new pods ready.
        registry.add("cadre.tools.kubernetes.verify-timeout", () -> "PT30S");
        registry.add("cadre.tools.kubernetes.verify-poll-interval", () -> "PT0.2S");
    }

    @AfterAll
    static void stopMock() {
        MOCK.close();
    }

    private RealAlertmanager alertmanager;

    @BeforeEach
    void wireAlertmanager() throws IOException {
        MOCK.client().apps().deployments().inNamespace("shop").delete();
        MOCK.client().apps().replicaSets().inNamespace("shop").delete();
        MOCK.client().pods().inNamespace("shop").delete();
        MOCK.client().v1().events().inNamespace("shop").delete();
        MOCK.seedCrashLoop();
        var key = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", "alertmanager-" + System.nanoTime(), "role", "intake")));
        assertThat(key.status()).as(key.body()).isEqualTo(201);
        alertmanager = RealAlertmanager.start(
                "http://127.0.0.1:" + port + "/api/v1/integrations/alertmanager",
                key.json().get("secret").asString());
    }

    @AfterEach
    void stopAlertmanager() {
        if (alertmanager != null) {
            alertmanager.close();
        }
    }

    /** A label no other test's alert carries: the runs it started are found by searching for it. */
    private final String token = "amtest" + Long.toHexString(System.nanoTime());

    private List<JsonNode> runsOf(String agent) {
        return api.get("/api/v1/runs?limit=50&agent=" + agent + "&q=" + token, Api.ADMIN_KEY)
                .json()
                .get("items")
                .valueStream()
                .toList();
    }

    private JsonNode onlyRunOf(String agent) {
        List<JsonNode> runs =
                Await.until("a " + agent + " run started by Alertmanager", () -> runsOf(agent), r -> !r.isEmpty());
        assertThat(runs).as("one run per alert, log:\n" + alertmanager.log()).hasSize(1);
        return runs.getFirst();
    }

    private long notifySuccesses() {
        return alertmanager
                .log()
                .lines()
                .filter(l -> l.contains("Notify success"))
                .count();
    }

    private String image() {
        return MOCK.client()
                .apps()
                .deployments()
                .inNamespace("shop")
                .withName("web")
                .get()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst()
                .getImage();
    }

    @Test
    void aCrashLoopFiredWithAmtool_isTriagedByTheKubernetesTeam_andRepairedOnlyAfterApproval() {
        List<String> labels = List.of(
                "alertname=KubePodCrashLooping",
                "cadre_test=" + token,
                "namespace=shop",
                "pod=web-2222-ccccc",
                "container=app",
                "severity=critical");
        alertmanager.amtoolAdd(labels, List.of("summary=Pod shop/web-2222-ccccc is crash looping"), false);
        JsonNode run = onlyRunOf("k8s-orchestrator");
        String runId = run.get("id").asString();
        JsonNode detail = run(runId);
        assertThat(detail.get("input").asString())
                .contains("KubePodCrashLooping")
                .contains("shop");

        JsonNode waiting = awaitStatus(runId, "input-required|completed|failed|canceled|rejected");
        assertThat(waiting.get("status").asString()).as(waiting.toString()).isEqualTo("input-required");
        List<JsonNode> pending = pendingApprovals(runId);
        assertThat(pending).extracting(a -> a.get("tool").asString()).containsExactly("k8s_rollout_undo");
        assertThat(image()).as("nothing changes before the approval").isEqualTo("shop/web:2");

        // Alertmanager sends the same firing alert again (amtool re-adds it): no second run.
        alertmanager.amtoolAdd(labels, List.of("summary=Pod shop/web-2222-ccccc is crash looping"), false);

        String approvalId = pending.getFirst().get("id").asString();
        var approved = api.approve(approvalId, Api.ADMIN_KEY);
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
        Await.until("the rollback to be written", this::image, "shop/web:1"::equals);
        MOCK.completeRollout("web", "web-1111");
        JsonNode done = awaitPastDecisions(runId, List.of(approvalId));
        assertThat(done.get("status").asString()).as(done.toString()).isEqualTo("completed");
        assertThat(image()).isEqualTo("shop/web:1");

        // The alert resolves: Alertmanager sends it resolved (send_resolved), still no new run.
        long delivered = notifySuccesses();
        alertmanager.amtoolAdd(labels, List.of("summary=Pod shop/web-2222-ccccc is crash looping"), true);
        Await.until(
                "Alertmanager to deliver the resolved notification (one more successful notify)",
                this::notifySuccesses,
                n -> n > delivered);
        assertThat(runsOf("k8s-orchestrator")).hasSize(1);
        assertThat(alertmanager.log()).doesNotContain("Notify for alerts failed");
    }

    @Test
    void aHostAlertFiredWithAmtool_stillGoesToTheHostTeam() {
        alertmanager.amtoolAdd(
                List.of("alertname=HostHighCpu", "instance=web-1:9100", "severity=critical", "cadre_test=" + token),
                List.of("summary=CPU above 90 percent for 5 minutes"),
                false);
        JsonNode run = onlyRunOf("ops-orchestrator");
        assertThat(run(run.get("id").asString()).get("input").asString()).contains("HostHighCpu");
        assertThat(runsOf("k8s-orchestrator")).isEmpty();
    }
}
