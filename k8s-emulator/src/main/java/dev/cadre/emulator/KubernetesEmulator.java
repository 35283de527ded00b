package dev.cadre.emulator;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * fabric8's Kubernetes API server emulator (CRUD mode: it stores what it is sent and serves it back; it is
 * not a real API server — no scheduler, no kubelet, no admission) on loopback, seeded with a demo: namespace
 * {@code shop}, deployment {@code web} whose revision 2 crash-loops (FEATURE_X without DB_URL) while revision
 * 1's two pods still serve, the events and the crashed container's log. A stand-in deployment controller
 * completes a rollout a moment after a deployment is written (the pods of its other ReplicaSets go, the
 * ReplicaSet of its template gets its ready pods), so an approved rollback verifies as on a cluster. Writes a
 * kubeconfig (context {@code emulator}) for the platform.
 */
public final class KubernetesEmulator implements AutoCloseable {

    /** The demo's namespace. */
    public static final String NAMESPACE = "shop";

    /** The kubeconfig's context. */
    public static final String CONTEXT = "emulator";

    /** Held so the level set on it stays (java.util.logging keeps loggers weakly). */
    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.fabric8");

    private static final Pattern DEPLOYMENT_WRITE =
            Pattern.compile("/apis/apps/v1/namespaces/([a-z0-9-]+)/deployments/([a-z0-9.-]+)(\\?.*)?");

    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final ScheduledExecutorService controller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "emulator-controller");
        t.setDaemon(true);
        return t;
    });
    private final Duration rolloutDelay;

    /** Starts on {@code port} (0: any free one) of 127.0.0.1; a written deployment rolls out {@code rolloutDelay} later. */
    public KubernetesEmulator(int port, Duration rolloutDelay) {
        this.rolloutDelay = rolloutDelay;
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMixedDispatcher crud = new KubernetesMixedDispatcher(responses);
        Dispatcher withController = new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                MockResponse response = crud.dispatch(request);
                Matcher written = DEPLOYMENT_WRITE.matcher(Objects.toString(request.getPath(), ""));
                String method = request.getMethod();
                if (("PUT".equals(method) || "PATCH".equals(method)) && written.matches() && response.code() == 200) {
                    // Later and on another thread: the controller reads and writes over HTTP like any client.
                    String ns = written.group(1);
                    String name = written.group(2);
                    controller.schedule(() -> rollOut(ns, name), rolloutDelay.toMillis(), TimeUnit.MILLISECONDS);
                }
                return response;
            }

            @Override
            public void shutdown() {
                crud.shutdown();
            }
        };
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses, withController, false);
        server.init(InetAddress.getLoopbackAddress(), port);
        client = server.createClient();
    }

    /** The emulator's URL. */
    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    /** A client of the emulator (for tests and the seed). */
    public KubernetesClient client() {
        return client;
    }

    /** Writes a kubeconfig whose context {@value #CONTEXT} points at the emulator; returns {@code file}. */
    public Path writeKubeconfig(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, """
                # Written by Cadre's Kubernetes emulator (fabric8, CRUD mode): not a real API server.
                apiVersion: v1
                kind: Config
                clusters:
                - name: emulator
                  cluster:
                    server: "%s"
                users:
                - name: cadre
                  user:
                    token: emulator-token
                contexts:
                - name: %s
                  context:
                    cluster: emulator
                    user: cadre
                    namespace: %s
                current-context: %s
                """.formatted(url(), CONTEXT, NAMESPACE, CONTEXT));
        // Whole or not at all: a script waiting for the file never reads half of it.
        Files.move(
                tmp,
                file,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return file;
    }

    /**
     * The demo: namespace {@code shop}; deployment {@code web} at revision 2 ({@code shop/web:2} with
     * FEATURE_X), whose pod {@code web-2222-ccccc} crash-loops (7 restarts, exit code 1) while revision 1's
     * pods {@code web-1111-aaaaa} and {@code -bbbbb} still serve; the events about the crashing pod and its
     * previous container's log.
     */
    public void seedDemo() {
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NAMESPACE)
                        .endMetadata()
                        .build())
                .create();
        client.apps()
                .deployments()
                .inNamespace(NAMESPACE)
                .resource(new DeploymentBuilder()
                        .withNewMetadata()
                        .withName("web")
                        .withNamespace(NAMESPACE)
                        .addToAnnotations("deployment.kubernetes.io/revision", "2")
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(2)
                        .withNewSelector()
                        .addToMatchLabels("app", "web")
                        .endSelector()
                        .withTemplate(template("shop/web:2", true, null))
                        .endSpec()
                        .withNewStatus()
                        .withObservedGeneration(1L)
                        .withReplicas(3)
                        .withReadyReplicas(2)
                        .withUpdatedReplicas(1)
                        .withAvailableReplicas(2)
                        .endStatus()
                        .build())
                .create();
        replicaSet("web-1111", 1, "shop/web:1", false, 2, "deploy shop/web:1");
        replicaSet("web-2222", 2, "shop/web:2", true, 1, "deploy shop/web:2 with FEATURE_X");
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
        // CRUD mode serves no logs: the crashed container's is an expectation (what the team asks for).
        for (String query : List.of("pretty=false&previous=true", "pretty=false&container=app&previous=true")) {
            for (String tail : List.of("50", "100", "200")) {
                server.expect()
                        .get()
                        .withPath("/api/v1/namespaces/shop/pods/web-2222-ccccc/log?" + query + "&tailLines=" + tail)
                        .andReturn(200, "starting web 2\nloading config\nFATAL: FEATURE_X requires DB_URL to be set\n")
                        .always();
            }
        }
    }

    /**
     * The stand-in controller: the deployment's template is rolled out — pods of its other ReplicaSets are
     * deleted, the ReplicaSet with its template (if any) has as many ready pods as the deployment asks for,
     * and the deployment's status says so.
     */
    void rollOut(String ns, String name) {
        try {
            Deployment d =
                    client.apps().deployments().inNamespace(ns).withName(name).get();
            if (d == null || d.getSpec() == null) {
                return;
            }
            int replicas = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
            String image = image(d.getSpec().getTemplate());
            ReplicaSet target = null;
            for (ReplicaSet rs :
                    client.apps().replicaSets().inNamespace(ns).list().getItems()) {
                if (ownedBy(rs.getMetadata().getOwnerReferences(), name)
                        && image != null
                        && image.equals(image(rs.getSpec().getTemplate()))
                        && Objects.equals(
                                env(d.getSpec().getTemplate()), env(rs.getSpec().getTemplate()))) {
                    target = rs;
                }
            }
            String targetName = target == null ? null : target.getMetadata().getName();
            int ready = 0;
            for (var p : client.pods().inNamespace(ns).list().getItems()) {
                var owners = p.getMetadata().getOwnerReferences();
                boolean ofDeployment = owners != null
                        && owners.stream()
                                .anyMatch(
                                        o -> o.getName() != null && o.getName().startsWith(name + "-"));
                if (!ofDeployment) {
                    continue;
                }
                boolean ofTarget = targetName != null && owners.stream().anyMatch(o -> targetName.equals(o.getName()));
                if (!ofTarget || ready >= replicas) {
                    client.pods()
                            .inNamespace(ns)
                            .withName(p.getMetadata().getName())
                            .delete();
                } else {
                    ready++;
                }
            }
            for (int i = 0; targetName != null && ready < replicas; i++) {
                String pod = targetName + "-new" + i;
                if (client.pods().inNamespace(ns).withName(pod).get() == null) {
                    pod(pod, targetName, image, true);
                    ready++;
                }
            }
            Deployment now =
                    client.apps().deployments().inNamespace(ns).withName(name).get();
            DeploymentStatus s = now.getStatus() == null ? new DeploymentStatus() : now.getStatus();
            s.setObservedGeneration(now.getMetadata().getGeneration());
            s.setReplicas(ready);
            s.setUpdatedReplicas(ready);
            s.setReadyReplicas(ready);
            s.setAvailableReplicas(ready);
            s.setConditions(List.of(new DeploymentConditionBuilder()
                    .withType("Progressing")
                    .withStatus("True")
                    .withReason("NewReplicaSetAvailable")
                    .build()));
            now.setStatus(s);
            client.apps().deployments().inNamespace(ns).resource(now).updateStatus();
            System.out.println("emulator: deployment " + ns + "/" + name + " rolled out to "
                    + (targetName == null ? "a template no ReplicaSet has" : targetName) + " (" + ready + " ready)");
        } catch (RuntimeException e) {
            System.err.println("emulator: the stand-in controller could not roll out " + ns + "/" + name + ": " + e);
        }
    }

    private static boolean ownedBy(List<io.fabric8.kubernetes.api.model.OwnerReference> owners, String name) {
        return owners != null && owners.stream().anyMatch(o -> name.equals(o.getName()));
    }

    private static String image(PodTemplateSpec t) {
        return t == null || t.getSpec() == null || t.getSpec().getContainers().isEmpty()
                ? null
                : t.getSpec().getContainers().getFirst().getImage();
    }

    private static Object env(PodTemplateSpec t) {
        return t == null || t.getSpec() == null || t.getSpec().getContainers().isEmpty()
                ? null
                : t.getSpec().getContainers().getFirst().getEnv();
    }

    private static PodTemplateSpec template(String image, boolean featureFlag, String hash) {
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
        var meta = new PodTemplateSpecBuilder().withNewMetadata().addToLabels("app", "web");
        if (hash != null) {
            meta.addToLabels("pod-template-hash", hash);
        }
        return meta.endMetadata()
                .withNewSpec()
                .withContainers(container.build())
                .endSpec()
                .build();
    }

    private void replicaSet(String name, int revision, String image, boolean flag, int replicas, String cause) {
        client.apps()
                .replicaSets()
                .inNamespace(NAMESPACE)
                .resource(new ReplicaSetBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NAMESPACE)
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
                        .withReplicas(replicas)
                        .withNewSelector()
                        .addToMatchLabels("app", "web")
                        .endSelector()
                        .withTemplate(template(image, flag, name.substring("web-".length())))
                        .endSpec()
                        .withNewStatus()
                        .withReplicas(replicas)
                        .withReadyReplicas(flag ? 0 : replicas)
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
                .inNamespace(NAMESPACE)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NAMESPACE)
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
                .inNamespace(NAMESPACE)
                .resource(new EventBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NAMESPACE)
                        .endMetadata()
                        .withNewInvolvedObject()
                        .withKind("Pod")
                        .withName("web-2222-ccccc")
                        .withNamespace(NAMESPACE)
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
        controller.shutdownNow();
        client.close();
        server.destroy();
    }

    /**
     * {@code java -jar k8s-emulator.jar [--port N] [--kubeconfig FILE] [--rollout-delay-ms N]}: starts, seeds
     * the demo, writes the kubeconfig and runs until stopped (Ctrl-C).
     */
    public static void main(String[] args) throws Exception {
        // The emulator logs every request through java.util.logging; a person wants its summary only.
        QUIET.setLevel(java.util.logging.Level.WARNING);
        int port = 0;
        Path kubeconfig = Path.of("target", "try-kubernetes", "kubeconfig");
        long delay = 2000;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                usage("missing value after " + a);
            }
            switch (a) {
                case "--port" -> port = number(a, args[++i]);
                case "--kubeconfig" -> kubeconfig = Path.of(args[++i]);
                case "--rollout-delay-ms" -> delay = number(a, args[++i]);
                default -> usage("unknown option " + a);
            }
        }
        KubernetesEmulator emulator = new KubernetesEmulator(port, Duration.ofMillis(delay));
        emulator.seedDemo();
        Path written = emulator.writeKubeconfig(kubeconfig);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            emulator.close();
            stopped.countDown();
        }));
        System.out.println("Kubernetes API server EMULATOR (fabric8, CRUD mode; not a real API server) on "
                + emulator.url() + "\n  kubeconfig: " + written.toAbsolutePath() + " (context " + CONTEXT + ")"
                + "\n  demo: namespace shop, deployment web at revision 2 crash-looping (pod web-2222-ccccc),"
                + " revision 1 still serving\n  a written deployment rolls out " + delay
                + " ms later. Ctrl-C stops it.");
        stopped.await();
    }

    private static int number(String option, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            usage(option + " needs a number, got '" + value + "'");
            return 0;
        }
    }

    private static void usage(String problem) {
        System.err.println("k8s-emulator: " + problem
                + "\nusage: java -jar k8s-emulator.jar [--port N] [--kubeconfig FILE] [--rollout-delay-ms N]");
        System.exit(2);
    }
}
