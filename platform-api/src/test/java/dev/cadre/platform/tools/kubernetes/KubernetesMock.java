package dev.cadre.platform.tools.kubernetes;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * fabric8's Kubernetes API server emulator in CRUD mode (objects are stored and served as a real API
 * server would), with expectations for what CRUD mode does not serve (pod logs, a 403), on loopback;
 * and a kubeconfig file pointing at it. {@link #seedCrashLoop} stores the scenario of issue 24: the
 * deployment {@code shop/web} whose revision 2 crash-loops while revision 1's pods still serve.
 */
public final class KubernetesMock implements AutoCloseable {

    public static final String NS = "shop";

    private final KubernetesMockServer server;
    private final KubernetesClient client;

    public KubernetesMock() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(
                new Context(), new MockWebServer(), responses, new KubernetesMixedDispatcher(responses), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();
    }

    public KubernetesMockServer server() {
        return server;
    }

    /** A client of the mock for seeding and checking (the tools use their own, from the kubeconfig). */
    public KubernetesClient client() {
        return client;
    }

    public int port() {
        return server.getPort();
    }

    /** A kubeconfig whose context {@code mock} points at this server. */
    public Path writeKubeconfig(Path dir) throws IOException {
        return writeKubeconfig(dir, "http://127.0.0.1:" + port());
    }

    public static Path writeKubeconfig(Path dir, String serverUrl) throws IOException {
        Path file = dir.resolve("kubeconfig");
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster:
                    server: "%s"
                users:
                - name: cadre
                  user:
                    token: test-token
                contexts:
                - name: mock
                  context:
                    cluster: mock
                    user: cadre
                    namespace: shop
                current-context: mock
                """.formatted(serverUrl));
        return file;
    }

    static PodTemplateSpec template(String image, boolean featureFlag, String hash) {
        var container = new ContainerBuilder()
                .withName("app")
                .withImage(image)
                .addNewEnv()
                .withName("PORT")
                .withValue("8080")
                .endEnv();
        if (featureFlag) {
            container.addNewEnv().withName("FEATURE_X").withValue("on").endEnv();
        }
        return new PodTemplateSpecBuilder()
                .withNewMetadata()
                .addToLabels("app", "web")
                .addToLabels("pod-template-hash", hash)
                .endMetadata()
                .withNewSpec()
                .withContainers(container.build())
                .endSpec()
                .build();
    }

    /** The deployment's template without the ReplicaSet's hash label (as a Deployment stores it). */
    static PodTemplateSpec deploymentTemplate(String image, boolean featureFlag) {
        PodTemplateSpec t = template(image, featureFlag, "x");
        t.getMetadata().getLabels().remove("pod-template-hash");
        return t;
    }

    /**
     * {@code shop/web}: revision 1 ({@code shop/web:1}, 2 ready pods still serving) and revision 2
     * ({@code shop/web:2} with {@code FEATURE_X}; its pod crash-loops, exit code 1), the deployment at
     * revision 2; events about the crashing pod; its previous container's log as an expectation.
     */
    public void seedCrashLoop() {
        client.apps()
                .deployments()
                .inNamespace(NS)
                .resource(new DeploymentBuilder()
                        .withNewMetadata()
                        .withName("web")
                        .withNamespace(NS)
                        .addToAnnotations("deployment.kubernetes.io/revision", "2")
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(2)
                        .withNewSelector()
                        .addToMatchLabels("app", "web")
                        .endSelector()
                        .withTemplate(deploymentTemplate("shop/web:2", true))
                        .endSpec()
                        .withNewStatus()
                        .withReplicas(3)
                        .withReadyReplicas(2)
                        .withUpdatedReplicas(1)
                        .withAvailableReplicas(2)
                        .endStatus()
                        .build())
                .create();
        replicaSet("web-1111", 1, "shop/web:1", false, 2, "deploy shop/web:1");
        replicaSet("web-2222", 2, "shop/web:2", true, 0, "deploy shop/web:2 with FEATURE_X");
        pod("web-1111-aaaaa", "web-1111", "shop/web:1", true);
        pod("web-1111-bbbbb", "web-1111", "shop/web:1", true);
        pod("web-2222-ccccc", "web-2222", "shop/web:2", false);
        event(
                "web-2222-ccccc.1",
                "Normal",
                "Pulled",
                "Successfully pulled image \"shop/web:2\"",
                "2026-12-05T10:00:00Z",
                1);
        event(
                "web-2222-ccccc.2",
                "Warning",
                "BackOff",
                "Back-off restarting failed container app in pod web-2222-ccccc",
                "2026-12-05T10:05:00Z",
                7);
        server.expect()
                .get()
                .withPath("/api/v1/namespaces/shop/pods/web-2222-ccccc/log?pretty=false&previous=true&tailLines=100")
                .andReturn(200, "starting web 2\nloading config\nFATAL: FEATURE_X requires DB_URL to be set\n")
                .always();
    }

    private void replicaSet(String name, int revision, String image, boolean flag, int ready, String cause) {
        client.apps()
                .replicaSets()
                .inNamespace(NS)
                .resource(new ReplicaSetBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .addToAnnotations("deployment.kubernetes.io/revision", Integer.toString(revision))
                        .addToAnnotations("kubernetes.io/change-cause", cause)
                        .addNewOwnerReference()
                        .withApiVersion("apps/v1")
                        .withKind("Deployment")
                        .withName("web")
                        .withController(true)
                        .endOwnerReference()
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(ready == 0 ? 1 : ready)
                        .withNewSelector()
                        .addToMatchLabels("app", "web")
                        .endSelector()
                        .withTemplate(template(image, flag, name.substring(4)))
                        .endSpec()
                        .withNewStatus()
                        .withReplicas(ready == 0 ? 1 : ready)
                        .withReadyReplicas(ready)
                        .endStatus()
                        .build())
                .create();
    }

    private void pod(String name, String owner, String image, boolean healthy) {
        var status = new ContainerStatusBuilder()
                .withName("app")
                .withImage(image)
                .withReady(healthy)
                .withRestartCount(healthy ? 0 : 7);
        if (healthy) {
            status.withNewState()
                    .withNewRunning()
                    .withStartedAt("2026-12-05T09:00:00Z")
                    .endRunning()
                    .endState();
        } else {
            status.withNewState()
                    .withNewWaiting()
                    .withReason("CrashLoopBackOff")
                    .withMessage("back-off 5m0s restarting failed container=app")
                    .endWaiting()
                    .endState()
                    .withNewLastState()
                    .withNewTerminated()
                    .withReason("Error")
                    .withExitCode(1)
                    .withFinishedAt("2026-12-05T10:04:50Z")
                    .endTerminated()
                    .endLastState();
        }
        client.pods()
                .inNamespace(NS)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .addToLabels("app", "web")
                        .addNewOwnerReference()
                        .withApiVersion("apps/v1")
                        .withKind("ReplicaSet")
                        .withName(owner)
                        .withController(true)
                        .endOwnerReference()
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("node-1")
                        .withContainers(new ContainerBuilder()
                                .withName("app")
                                .withImage(image)
                                .build())
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Running")
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus(healthy ? "True" : "False")
                        .endCondition()
                        .withContainerStatuses(status.build())
                        .endStatus()
                        .build())
                .create();
    }

    private void event(String name, String type, String reason, String message, String last, int count) {
        client.v1()
                .events()
                .inNamespace(NS)
                .resource(new EventBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .endMetadata()
                        .withNewInvolvedObject()
                        .withKind("Pod")
                        .withName("web-2222-ccccc")
                        .withNamespace(NS)
                        .endInvolvedObject()
                        .withType(type)
                        .withReason(reason)
                        .withMessage(message)
                        .withLastTimestamp(last)
                        .withCount(count)
                        .build())
                .create();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
