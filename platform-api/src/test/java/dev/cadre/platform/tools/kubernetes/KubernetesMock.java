package dev.cadre.platform.tools.kubernetes;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * fabric8's Kubernetes API server emulator in CRUD mode (objects are stored and served as a real API
 * server would), with expectations for what CRUD mode does not serve (pod logs, a 403), on loopback;
 * and a kubeconfig file pointing at it. {@link #seedCrashLoop} stores the scenario of issue 24: the
 * deployment {@code shop/web} whose revision 2 crash-loops while revision 1's pods still serve. Every
 * request is recorded ({@link #requests()}), and a test may change the answer to some ({@link #answer}),
 * e.g. hold a response back (a body delay, on the server's timer: no thread of the server waits).
 */
public final class KubernetesMock implements AutoCloseable {

    public static final String NS = "shop";

    /** One request as the mock received it: {@code GET /apis/apps/v1/namespaces/shop/deployments/web}. */
    public record Request(String method, String path) {}

    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final KubernetesMixedDispatcher crud;
    private volatile Consumer<RecordedRequest> before = request -> {};
    private volatile BiFunction<RecordedRequest, MockResponse, MockResponse> answer = (request, response) -> response;
    private volatile boolean controller;
    private static final java.util.regex.Pattern DEPLOYMENT_PUT =
            java.util.regex.Pattern.compile("/apis/apps/v1/namespaces/" + NS + "/deployments/([a-z0-9.-]+)");

    public KubernetesMock() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        crud = new KubernetesMixedDispatcher(responses);
        Dispatcher recording = new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                requests.add(new Request(request.getMethod(), request.getPath()));
                before.accept(request);
                MockResponse response = answer.apply(request, crud.dispatch(request));
                var written = DEPLOYMENT_PUT.matcher(request.getPath() == null ? "" : request.getPath());
                if (controller && request.getMethod().equals("PUT") && written.matches() && response.code() == 200) {
                    rolledOut(written.group(1));
                }
                return response;
            }

            @Override
            public void shutdown() {
                crud.shutdown();
            }
        };
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses, recording, false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();
    }

    /**
     * From now on, {@code before} sees every request before the emulator handles it, on the server's own
     * thread: a change it makes ({@link #editDeploymentDirectly}) is what that request reads.
     */
    public void before(Consumer<RecordedRequest> before) {
        this.before = before;
    }

    /**
     * Replaces deployment {@code shop/<name>} with {@code edit} of it straight through the emulator, without
     * HTTP and unrecorded: "someone else" acting, from inside a {@link #before} hook (an HTTP request from
     * there could wait for the very thread it runs on).
     */
    public void editDeploymentDirectly(String name, UnaryOperator<Deployment> edit) {
        String path = "/apis/apps/v1/namespaces/" + NS + "/deployments/" + name;
        MockResponse read = crud.dispatch(new RecordedRequest(
                "HTTP/1.1", HttpMethod.GET, path, Headers.builder().build(), new Buffer()));
        KubernetesSerialization serialization = new KubernetesSerialization();
        Deployment edited = edit.apply(serialization.unmarshal(read.getBody().readUtf8(), Deployment.class));
        MockResponse written = crud.dispatch(new RecordedRequest(
                "HTTP/1.1",
                HttpMethod.PUT,
                path,
                Headers.builder().add("Content-Type", "application/json").build(),
                new Buffer(serialization.asJson(edited).getBytes(StandardCharsets.UTF_8))));
        if (written.code() != 200) {
            throw new IllegalStateException("the emulator refused the edit of " + path + ": " + written.code());
        }
    }

    /**
     * From now on the emulator plays a quick deployment controller: every deployment written in
     * {@link #NS} is at once reported rolled out (its generation observed, all replicas updated, ready
     * and available), so a rollback to a revision whose pods are ready verifies as it would on a cluster.
     */
    public void controlRollouts() {
        controller = true;
    }

    private void rolledOut(String deployment) {
        editDeploymentDirectly(deployment, d -> {
            int replicas = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
            if (d.getStatus() == null) {
                d.setStatus(new io.fabric8.kubernetes.api.model.apps.DeploymentStatus());
            }
            d.getStatus().setObservedGeneration(d.getMetadata().getGeneration());
            d.getStatus().setReplicas(replicas);
            d.getStatus().setUpdatedReplicas(replicas);
            d.getStatus().setReadyReplicas(replicas);
            d.getStatus().setAvailableReplicas(replicas);
            d.getStatus()
                    .setConditions(List.of(new io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder()
                            .withType("Progressing")
                            .withStatus("True")
                            .withReason("NewReplicaSetAvailable")
                            .build()));
            return d;
        });
    }

    /** Every request received so far, in order (the test's own client's included). */
    public List<Request> requests() {
        return List.copyOf(requests);
    }

    /**
     * From now on, every answer goes through {@code answer} (request, the emulator's response) before it
     * is sent; the emulator has already applied the request (a PUT is stored whatever the answer).
     */
    public void answer(BiFunction<RecordedRequest, MockResponse, MockResponse> answer) {
        this.answer = answer;
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
        return template("web", image, featureFlag, hash);
    }

    static PodTemplateSpec template(String app, String image, boolean featureFlag, String hash) {
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
                .addToLabels("app", app)
                .addToLabels("pod-template-hash", hash)
                .endMetadata()
                .withNewSpec()
                .withContainers(container.build())
                .endSpec()
                .build();
    }

    /** The deployment's template without the ReplicaSet's hash label (as a Deployment stores it). */
    public static PodTemplateSpec deploymentTemplate(String image, boolean featureFlag) {
        return deploymentTemplate("web", image, featureFlag);
    }

    /** As {@link #deploymentTemplate(String, boolean)} for the deployment (and app label) {@code app}. */
    public static PodTemplateSpec deploymentTemplate(String app, String image, boolean featureFlag) {
        PodTemplateSpec t = template(app, image, featureFlag, "x");
        t.getMetadata().getLabels().remove("pod-template-hash");
        return t;
    }

    /** {@link #seedCrashLoop(String)} of {@code shop/web}. */
    public void seedCrashLoop() {
        seedCrashLoop("web");
    }

    /**
     * {@code shop/<app>}: revision 1 ({@code shop/<app>:1}, 2 ready pods still serving) and revision 2
     * ({@code shop/<app>:2} with {@code FEATURE_X}; its pod {@code <app>-2222-ccccc} crash-loops, 7
     * restarts, last termination Error with exit code 1), the deployment at revision 2; events about
     * the crashing pod; its previous container's log as an expectation (CRUD mode serves no logs).
     */
    public void seedCrashLoop(String app) {
        String crashing = app + "-2222-ccccc";
        client.apps()
                .deployments()
                .inNamespace(NS)
                .resource(new DeploymentBuilder()
                        .withNewMetadata()
                        .withName(app)
                        .withNamespace(NS)
                        .addToAnnotations("deployment.kubernetes.io/revision", "2")
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(2)
                        .withNewSelector()
                        .addToMatchLabels("app", app)
                        .endSelector()
                        .withTemplate(deploymentTemplate(app, "shop/" + app + ":2", true))
                        .endSpec()
                        .withNewStatus()
                        .withReplicas(3)
                        .withReadyReplicas(2)
                        .withUpdatedReplicas(1)
                        .withAvailableReplicas(2)
                        .endStatus()
                        .build())
                .create();
        replicaSet(app, app + "-1111", 1, "shop/" + app + ":1", false, 2, "deploy shop/" + app + ":1");
        replicaSet(app, app + "-2222", 2, "shop/" + app + ":2", true, 0, "deploy shop/" + app + ":2 with FEATURE_X");
        pod(app, app + "-1111-aaaaa", app + "-1111", "shop/" + app + ":1", true);
        pod(app, app + "-1111-bbbbb", app + "-1111", "shop/" + app + ":1", true);
        pod(app, crashing, app + "-2222", "shop/" + app + ":2", false);
        event(
                crashing,
                crashing + ".1",
                "Normal",
                "Pulled",
                "Successfully pulled image \"shop/" + app + ":2\"",
                "2026-12-05T10:00:00Z",
                1);
        event(
                crashing,
                crashing + ".2",
                "Warning",
                "BackOff",
                "Back-off restarting failed container app in pod " + crashing,
                "2026-12-05T10:05:00Z",
                7);
        server.expect()
                .get()
                .withPath("/api/v1/namespaces/shop/pods/" + crashing + "/log?pretty=false&previous=true&tailLines=100")
                .andReturn(200, "starting " + app + " 2\nloading config\nFATAL: FEATURE_X requires DB_URL to be set\n")
                .always();
    }

    private void replicaSet(
            String app, String name, int revision, String image, boolean flag, int ready, String cause) {
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
                        .withName(app)
                        .withController(true)
                        .endOwnerReference()
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(ready == 0 ? 1 : ready)
                        .withNewSelector()
                        .addToMatchLabels("app", app)
                        .endSelector()
                        .withTemplate(template(app, image, flag, name.substring(app.length() + 1)))
                        .endSpec()
                        .withNewStatus()
                        .withReplicas(ready == 0 ? 1 : ready)
                        .withReadyReplicas(ready)
                        .endStatus()
                        .build())
                .create();
    }

    private void pod(String app, String name, String owner, String image, boolean healthy) {
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
        storePod(name, app, owner, image, healthy, status.build());
    }

    /** Stores pod {@code name} of ReplicaSet {@code owner} on node-1, Running, with one container status. */
    public void storePod(String name, String app, String owner, String image, boolean ready, ContainerStatus status) {
        client.pods()
                .inNamespace(NS)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .addToLabels("app", app)
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
                        .withStatus(ready ? "True" : "False")
                        .endCondition()
                        .withContainerStatuses(status)
                        .endStatus()
                        .build())
                .create();
    }

    private void event(String pod, String name, String type, String reason, String message, String last, int count) {
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
                        .withName(pod)
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

    /**
     * What the deployment controller does when a rollout to ReplicaSet {@code replicaSet} completes (the
     * emulator has no controller): the pods of the deployment's other ReplicaSets are gone, and the
     * deployment's status says it has seen its generation and all replicas are updated and available.
     */
    public void completeRollout(String app, String replicaSet) {
        for (var p : client.pods().inNamespace(NS).withLabel("app", app).list().getItems()) {
            boolean ofTarget =
                    p.getMetadata().getOwnerReferences().stream().anyMatch(o -> replicaSet.equals(o.getName()));
            if (!ofTarget) {
                client.pods()
                        .inNamespace(NS)
                        .withName(p.getMetadata().getName())
                        .delete();
            }
        }
        Deployment d = client.apps().deployments().inNamespace(NS).withName(app).get();
        int replicas = d.getSpec().getReplicas();
        d.getStatus().setObservedGeneration(d.getMetadata().getGeneration());
        d.getStatus().setReplicas(replicas);
        d.getStatus().setUpdatedReplicas(replicas);
        d.getStatus().setReadyReplicas(replicas);
        d.getStatus().setAvailableReplicas(replicas);
        client.apps().deployments().inNamespace(NS).resource(d).updateStatus();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
