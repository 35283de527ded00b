package dev.cadre.platform.tools.kubernetes;

import static dev.cadre.platform.tools.kubernetes.KubernetesToolsTest.CLOCK;
import static dev.cadre.platform.tools.kubernetes.KubernetesToolsTest.CTX;
import static dev.cadre.platform.tools.kubernetes.KubernetesToolsTest.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.tool.ProposingTool;
import dev.cadre.agent.tool.Tool;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * An approved rollback is verified after it had time to take effect, against fabric8's API server
 * emulator (CRUD mode; its missing deployment controller is played by the test between two checks):
 * a rollout fine at once, one that becomes ready after a few checks, one whose pods crash-loop and one
 * that never becomes ready — SUCCEEDED, SUCCEEDED, FAILED, TIMED_OUT, each with its evidence, and each
 * handed to the platform's recorder. A scale is verified the same way: up to a new pod that becomes
 * ready, up to one that never does, down to zero. The checks' pause is the test's: it advances the emulator instead
 * of sleeping, so nothing here depends on timing.
 */
class RolloutVerificationTest {

    record Recorded(String action, String verdict, String summary, JsonNode evidence) {}

    @TempDir
    Path dir;

    KubernetesMock mock;
    KubernetesAccess access;
    final List<Recorded> recorded = new CopyOnWriteArrayList<>();
    final AtomicInteger pauses = new AtomicInteger();
    volatile IntConsumer onPause = n -> {};

    @BeforeEach
    void start() throws Exception {
        mock = new KubernetesMock();
        mock.seedCrashLoop();
        access = new KubernetesAccess(
                new KubernetesProperties(
                        mock.writeKubeconfig(dir),
                        "mock",
                        null,
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(2),
                        0,
                        0,
                        0,
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(1)),
                agent -> List.of("shop"));
    }

    @AfterEach
    void stop() {
        access.close();
        mock.close();
    }

    /** Proposes and runs the rollback to revision 1, with the test playing the controller at each pause. */
    private JsonNode rollBack() throws Exception {
        List<Tool> tools = KubernetesWriteTools.all(
                access,
                JSON,
                CLOCK,
                (ctx, action, arguments, verdict, summary, evidence) ->
                        recorded.add(new Recorded(action, verdict, summary, evidence)),
                d -> onPause.accept(pauses.incrementAndGet()));
        ProposingTool undo = (ProposingTool) tools.stream()
                .filter(t -> t.name().equals("k8s_rollout_undo"))
                .findFirst()
                .orElseThrow();
        JsonNode proposed =
                undo.propose(JSON.readTree("{\"namespace\":\"shop\",\"deployment\":\"web\",\"toRevision\":1}"), CTX);
        return JSON.readTree(undo.execute(proposed, CTX));
    }

    /** Runs {@code tool} with {@code arguments} as proposed, the test playing the controller at each pause. */
    private JsonNode run(String tool, String arguments) throws Exception {
        List<Tool> tools = KubernetesWriteTools.all(
                access,
                JSON,
                CLOCK,
                (ctx, action, args, verdict, summary, evidence) ->
                        recorded.add(new Recorded(action, verdict, summary, evidence)),
                d -> onPause.accept(pauses.incrementAndGet()));
        ProposingTool t = (ProposingTool)
                tools.stream().filter(x -> x.name().equals(tool)).findFirst().orElseThrow();
        return JSON.readTree(t.execute(t.propose(JSON.readTree(arguments), CTX), CTX));
    }

    /**
     * shop/web healthy at revision 1: its template is revision 1's again and only revision 1's two
     * ready pods are left (as after a verified rollback).
     */
    private void healthyAtRevisionOne() {
        mock.client().apps().deployments().inNamespace("shop").withName("web").edit(d -> {
            d.getSpec().setTemplate(KubernetesMock.deploymentTemplate("web", "shop/web:1", false));
            return d;
        });
        mock.completeRollout("web", "web-1111");
    }

    /** A new pod of ReplicaSet web-1111, ready or still starting. */
    private void addRevisionOnePod(String name, boolean ready) {
        var status = new ContainerStatusBuilder()
                .withName("app")
                .withImage("shop/web:1")
                .withReady(ready)
                .withRestartCount(0);
        if (ready) {
            status.withNewState()
                    .withNewRunning()
                    .withStartedAt("2026-12-05T11:00:00Z")
                    .endRunning()
                    .endState();
        } else {
            status.withNewState()
                    .withNewWaiting()
                    .withReason("ContainerCreating")
                    .endWaiting()
                    .endState();
        }
        mock.storePod(name, "web", "web-1111", "shop/web:1", ready, status.build());
    }

    @Test
    void aScaleUp_isVerifiedSucceeded_onceTheNewPodIsReady_andRecordedAsTheScalesOutcome() throws Exception {
        healthyAtRevisionOne();
        onPause = n -> {
            if (n == 2) {
                addRevisionOnePod("web-1111-ccccc", true);
                mock.completeRollout("web", "web-1111");
            }
        };

        JsonNode out = run("k8s_scale", "{\"namespace\":\"shop\",\"deployment\":\"web\",\"replicas\":3}");

        assertThat(out.path("status").asString()).isEqualTo("applied");
        JsonNode v = out.path("verification");
        assertThat(v.path("verdict").asString()).as(v.toString()).isEqualTo("SUCCEEDED");
        assertThat(v.path("summary").asString())
                .isEqualTo("Scale of deployment shop/web to 3 replica(s) verified: web-1111 3/3 pod(s) ready,"
                        + " restarts stopped (4 checks)");
        assertThat(v.path("evidence").path("readyPods").asInt()).isEqualTo(3);
        assertThat(recorded).singleElement().satisfies(r -> {
            assertThat(r.action()).isEqualTo("k8s_scale");
            assertThat(r.verdict()).isEqualTo("SUCCEEDED");
            assertThat(r.summary()).isEqualTo(v.path("summary").asString());
        });
    }

    @Test
    void aScaleUpWhoseNewPodNeverStarts_isVerifiedTimedOut_notSucceeded() throws Exception {
        healthyAtRevisionOne();
        onPause = n -> {
            if (n == 1) {
                // The controller counts the new replica, but its pod never becomes ready.
                addRevisionOnePod("web-1111-ccccc", false);
            }
        };

        JsonNode v = run("k8s_scale", "{\"namespace\":\"shop\",\"deployment\":\"web\",\"replicas\":3}")
                .path("verification");

        assertThat(v.path("verdict").asString()).as(v.toString()).isEqualTo("TIMED_OUT");
        assertThat(v.path("summary").asString())
                .startsWith("Scale of deployment shop/web to 3 replica(s) not complete within PT10S: web-1111 2/3");
        assertThat(recorded)
                .extracting(Recorded::action, Recorded::verdict)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("k8s_scale", "TIMED_OUT"));
    }

    @Test
    void aScaleToZero_isVerifiedSucceeded_onceNoPodIsLeft() throws Exception {
        healthyAtRevisionOne();
        onPause = n -> {
            if (n == 1) {
                for (String pod : List.of("web-1111-aaaaa", "web-1111-bbbbb")) {
                    mock.client().pods().inNamespace("shop").withName(pod).delete();
                }
                mock.completeRollout("web", "web-1111");
            }
        };

        JsonNode v = run("k8s_scale", "{\"namespace\":\"shop\",\"deployment\":\"web\",\"replicas\":0}")
                .path("verification");

        assertThat(v.path("verdict").asString()).as(v.toString()).isEqualTo("SUCCEEDED");
        assertThat(v.path("summary").asString())
                .startsWith("Scale of deployment shop/web to 0 replica(s) verified: web-1111 0/0");
    }

    private void crashRevisionOnePods(int restarts) {
        for (String pod : List.of("web-1111-aaaaa", "web-1111-bbbbb")) {
            var p = mock.client().pods().inNamespace("shop").withName(pod).get();
            p.getStatus()
                    .setContainerStatuses(List.of(new ContainerStatusBuilder()
                            .withName("app")
                            .withImage("shop/web:1")
                            .withReady(false)
                            .withRestartCount(restarts)
                            .withNewState()
                            .withNewWaiting()
                            .withReason("CrashLoopBackOff")
                            .endWaiting()
                            .endState()
                            .build()));
            mock.client().pods().inNamespace("shop").resource(p).updateStatus();
        }
    }

    @Test
    void aRolloutFineAtOnce_isVerifiedSucceeded() throws Exception {
        // A quick controller: the rollout is complete as soon as the write is stored, before any check.
        mock.answer((request, response) -> {
            if (request.getMethod().equals("PUT") && request.getPath().endsWith("/deployments/web")) {
                completeFromServerThread();
            }
            return response;
        });

        JsonNode v = rollBack().path("verification");

        assertThat(v.path("verdict").asString()).as(v.toString()).isEqualTo("SUCCEEDED");
        assertThat(v.path("summary").asString())
                .isEqualTo("Rollout of deployment shop/web verified: web-1111 2/2 pod(s) ready, restarts stopped"
                        + " (2 checks)");
        assertThat(v.path("evidence").path("pods")).hasSize(2);
        assertThat(pauses.get())
                .as("one pause: the second check confirms the restarts stood still")
                .isEqualTo(1);
        assertThat(recorded).singleElement().satisfies(r -> {
            assertThat(r.action()).isEqualTo("k8s_rollout_undo");
            assertThat(r.verdict()).isEqualTo("SUCCEEDED");
            assertThat(r.summary()).isEqualTo(v.path("summary").asString());
        });
    }

    /** On the emulator's own thread: the controller's work, without an HTTP request from inside a request. */
    private void completeFromServerThread() {
        mock.editDeploymentDirectly("web", d -> {
            int replicas = d.getSpec().getReplicas();
            d.getStatus().setObservedGeneration(d.getMetadata().getGeneration());
            d.getStatus().setReplicas(replicas);
            d.getStatus().setUpdatedReplicas(replicas);
            d.getStatus().setReadyReplicas(replicas);
            d.getStatus().setAvailableReplicas(replicas);
            return d;
        });
    }

    @Test
    void aRolloutReadyAfterADelay_isVerifiedSucceeded_onceItsPodsAreReadyAndStable() throws Exception {
        onPause = n -> {
            if (n == 3) {
                mock.completeRollout("web", "web-1111");
            }
        };

        JsonNode v = rollBack().path("verification");

        assertThat(v.path("verdict").asString()).as(v.toString()).isEqualTo("SUCCEEDED");
        // Checks 1-3 saw it rolling out; 4 complete; 5 complete with the same restarts.
        assertThat(v.path("evidence").path("check").asInt()).isEqualTo(5);
        assertThat(v.path("evidence").path("rolledOut").asBoolean()).isTrue();
        assertThat(v.path("evidence").path("readyPods").asInt()).isEqualTo(2);
        assertThat(recorded).extracting(Recorded::verdict).containsExactly("SUCCEEDED");
    }

    @Test
    void aRolloutWhosePodsCrashLoop_isVerifiedFailed_andTheIncidentIsNotToldItWorked() throws Exception {
        onPause = n -> {
            if (n == 1) {
                mock.completeRollout("web", "web-1111");
            }
            crashRevisionOnePods(n);
        };

        JsonNode out = rollBack();

        assertThat(out.path("status").asString()).isEqualTo("applied");
        JsonNode v = out.path("verification");
        assertThat(v.path("verdict").asString()).as(v.toString()).isEqualTo("FAILED");
        assertThat(v.path("summary").asString())
                .startsWith("Rollout of deployment shop/web failed: pod web-1111-")
                .contains("CrashLoopBackOff");
        assertThat(v.path("evidence").path("checks").asInt()).isEqualTo(11);
        assertThat(recorded).extracting(Recorded::verdict).containsExactly("FAILED");
    }

    @Test
    void aRolloutThatNeverCompletes_isVerifiedTimedOut_atTheConfiguredDeadline() throws Exception {
        // No controller at all: the deployment never reports the new generation as rolled out.
        JsonNode v = rollBack().path("verification");

        assertThat(v.path("verdict").asString()).as(v.toString()).isEqualTo("TIMED_OUT");
        assertThat(v.path("summary").asString()).startsWith("Rollout of deployment shop/web not complete within PT10S");
        assertThat(v.path("evidence").path("rolledOut").asBoolean()).isFalse();
        assertThat(pauses.get()).as("10 s at 1 s between checks").isEqualTo(10);
        assertThat(recorded).extracting(Recorded::verdict).containsExactly("TIMED_OUT");
    }
}
