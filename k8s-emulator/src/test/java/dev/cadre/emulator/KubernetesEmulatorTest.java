package dev.cadre.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pieces of "try the Kubernetes team": the emulator starts on loopback with the demo seeded, its
 * kubeconfig reaches it as the platform reads it (context {@code emulator}), the crashed container's log is
 * served, a rollback written to the deployment is rolled out by the stand-in controller, and the command's
 * script is valid shell that starts both with the settings the platform needs.
 */
class KubernetesEmulatorTest {

    @TempDir
    Path dir;

    @Test
    void theDemoIsServedThroughTheWrittenKubeconfig_andAWrittenRollbackRollsOut() throws Exception {
        // No delay: the controller's work is scheduled at once, and the test waits for that very change.
        try (KubernetesEmulator emulator = new KubernetesEmulator(0, Duration.ZERO)) {
            emulator.seedDemo();
            Path kubeconfig = emulator.writeKubeconfig(dir.resolve("kube/config"));
            assertThat(Files.readString(kubeconfig))
                    .contains("not a real API server")
                    .contains("current-context: emulator");

            Config config = Config.fromKubeconfig(KubernetesEmulator.CONTEXT, Files.readString(kubeconfig), null);
            try (KubernetesClient k8s =
                    new KubernetesClientBuilder().withConfig(config).build()) {
                assertThat(k8s.namespaces().withName("shop").get()).isNotNull();
                Deployment web = k8s.apps()
                        .deployments()
                        .inNamespace("shop")
                        .withName("web")
                        .get();
                assertThat(web.getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "2");
                assertThat(k8s.apps().replicaSets().inNamespace("shop").list().getItems())
                        .extracting(rs -> rs.getMetadata().getName())
                        .containsExactlyInAnyOrder("web-1111", "web-2222");
                assertThat(k8s.pods()
                                .inNamespace("shop")
                                .withName("web-2222-ccccc")
                                .get()
                                .getStatus()
                                .getContainerStatuses()
                                .getFirst()
                                .getState()
                                .getWaiting()
                                .getReason())
                        .isEqualTo("CrashLoopBackOff");
                // As the platform's k8s_logs asks for it: the previous container, named or not.
                assertThat(k8s.pods()
                                .inNamespace("shop")
                                .withName("web-2222-ccccc")
                                .terminated()
                                .tailingLines(100)
                                .getLog())
                        .contains("FATAL: FEATURE_X requires DB_URL to be set");
                assertThat(k8s.pods()
                                .inNamespace("shop")
                                .withName("web-2222-ccccc")
                                .inContainer("app")
                                .terminated()
                                .tailingLines(100)
                                .getLog())
                        .contains("FATAL: FEATURE_X requires DB_URL to be set");

                // A rollback as the platform writes it: revision 1's template on the deployment.
                var rs1 = k8s.apps()
                        .replicaSets()
                        .inNamespace("shop")
                        .withName("web-1111")
                        .get();
                web.getSpec().setTemplate(rs1.getSpec().getTemplate());
                web.getSpec().getTemplate().getMetadata().getLabels().remove("pod-template-hash");
                Deployment written = k8s.apps()
                        .deployments()
                        .inNamespace("shop")
                        .resource(web)
                        .update();
                Deployment rolledOut = k8s.apps()
                        .deployments()
                        .inNamespace("shop")
                        .withName("web")
                        .waitUntilCondition(
                                d -> d.getStatus() != null
                                        && written.getMetadata()
                                                .getGeneration()
                                                .equals(d.getStatus().getObservedGeneration()),
                                30,
                                java.util.concurrent.TimeUnit.SECONDS);
                assertThat(rolledOut.getStatus().getReadyReplicas()).isEqualTo(2);
                assertThat(k8s.pods().inNamespace("shop").list().getItems())
                        .extracting(p -> p.getMetadata().getName())
                        .containsExactlyInAnyOrder("web-1111-aaaaa", "web-1111-bbbbb");
            }
        }
    }

    @Test
    void theOneCommandIsValidShell_andPointsThePlatformAtTheEmulator() throws Exception {
        Path script = Path.of("..", "deploy", "try-kubernetes.sh");
        assertThat(Files.isExecutable(script)).as(script + " is executable").isTrue();
        Process p = new ProcessBuilder("bash", "-n", script.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        String text = Files.readString(script);
        for (String piece : List.of(
                "k8s-emulator/target/k8s-emulator-",
                "--cadre.tools.kubernetes.kubeconfig=",
                "--cadre.tools.kubernetes.context=emulator",
                "platform-api/target/platform-api-")) {
            assertThat(text).contains(piece);
        }
    }
}
