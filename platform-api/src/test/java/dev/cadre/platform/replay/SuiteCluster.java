package dev.cadre.platform.replay;

import dev.cadre.platform.tools.kubernetes.KubernetesMock;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The workloads of the shipped suite's Kubernetes scenarios, stored in fabric8's mock API server
 * (CRUD mode) the way a cluster holds them: a deployment, a ReplicaSet per revision, pods, events
 * about the pods, and a crashed container's previous log (served by an expectation).
 */
final class SuiteCluster {

    static final String NS = KubernetesMock.NS;

    private final KubernetesMock mock;

    SuiteCluster(KubernetesMock mock) {
        this.mock = mock;
    }

    /** The crash loop of issue 24 ({@code shop/web} revision 2), as the Kubernetes team's own test stores it. */
    void seedCrashLoop() {
        mock.seedCrashLoop();
    }

    /** Empties the namespace of what the scenarios store. */
    void clear() {
        mock.client().apps().deployments().inNamespace(NS).delete();
        mock.client().apps().replicaSets().inNamespace(NS).delete();
        mock.client().pods().inNamespace(NS).delete();
        mock.client().v1().events().inNamespace(NS).delete();
    }

    /** One container's spec: image, env names (value "on"/"8080"), and a memory limit when not null. */
    record Spec(String image, List<String> env, @Nullable String memoryLimit) {}

    /** One revision: its ReplicaSet's hash, spec, change-cause and pods (desired and ready). */
    record Revision(String hash, Spec spec, String cause, int desired, int ready) {}

    /**
     * Deployment {@code name} at the last of {@code revisions} (1, 2, ... in order) with {@code desired}
     * replicas; {@code rolloutComplete} sets the Progressing condition's reason as the controller does
     * (NewReplicaSetAvailable, else ProgressDeadlineExceeded).
     */
    void deployment(String name, int desired, int ready, boolean rolloutComplete, List<Revision> revisions) {
        Revision current = revisions.getLast();
        PodTemplateSpec template = template(name, current.spec(), null);
        mock.client()
                .apps()
                .deployments()
                .inNamespace(NS)
                .resource(new DeploymentBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .addToAnnotations("deployment.kubernetes.io/revision", Integer.toString(revisions.size()))
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(desired)
                        .withNewSelector()
                        .addToMatchLabels("app", name)
                        .endSelector()
                        .withTemplate(template)
                        .endSpec()
                        .withNewStatus()
                        .withReplicas(
                                revisions.stream().mapToInt(Revision::desired).sum())
                        .withReadyReplicas(ready)
                        .withUpdatedReplicas(current.desired())
                        .withAvailableReplicas(ready)
                        .withConditions(
                                new DeploymentConditionBuilder()
                                        .withType("Available")
                                        .withStatus(ready >= desired ? "True" : "False")
                                        .withReason(
                                                ready >= desired
                                                        ? "MinimumReplicasAvailable"
                                                        : "MinimumReplicasUnavailable")
                                        .withMessage(
                                                ready >= desired
                                                        ? "Deployment has minimum availability."
                                                        : "Deployment does not have minimum availability.")
                                        .build(),
                                new DeploymentConditionBuilder()
                                        .withType("Progressing")
                                        .withStatus(rolloutComplete ? "True" : "False")
                                        .withReason(
                                                rolloutComplete ? "NewReplicaSetAvailable" : "ProgressDeadlineExceeded")
                                        .withMessage(
                                                rolloutComplete
                                                        ? "ReplicaSet \"" + name + "-" + current.hash()
                                                                + "\" has successfully progressed."
                                                        : "ReplicaSet \"" + name + "-" + current.hash()
                                                                + "\" has timed out progressing.")
                                        .build())
                        .endStatus()
                        .build())
                .create();
        for (int i = 0; i < revisions.size(); i++) {
            Revision r = revisions.get(i);
            String rs = name + "-" + r.hash();
            mock.client()
                    .apps()
                    .replicaSets()
                    .inNamespace(NS)
                    .resource(new ReplicaSetBuilder()
                            .withNewMetadata()
                            .withName(rs)
                            .withNamespace(NS)
                            .addToAnnotations("deployment.kubernetes.io/revision", Integer.toString(i + 1))
                            .addToAnnotations("kubernetes.io/change-cause", r.cause())
                            .addNewOwnerReference()
                            .withApiVersion("apps/v1")
                            .withKind("Deployment")
                            .withName(name)
                            .withController(true)
                            .endOwnerReference()
                            .endMetadata()
                            .withNewSpec()
                            .withReplicas(r.desired())
                            .withNewSelector()
                            .addToMatchLabels("app", name)
                            .endSelector()
                            .withTemplate(template(name, r.spec(), r.hash()))
                            .endSpec()
                            .withNewStatus()
                            .withReplicas(r.desired())
                            .withReadyReplicas(r.ready())
                            .endStatus()
                            .build())
                    .create();
        }
    }

    /** How a pod's one container is doing. */
    sealed interface State {
        /** Running and ready since {@code since}, after {@code restarts} restarts. */
        record Running(String since, int restarts) implements State {}

        /** Crash-looping: waiting in CrashLoopBackOff after exiting with {@code reason}/{@code exitCode}. */
        record CrashLoop(int restarts, String reason, int exitCode, String finishedAt) implements State {}
    }

    /** Pod {@code name} of ReplicaSet {@code owner} (a deployment's {@code <name>-<hash>}) running {@code image}. */
    void pod(String name, String app, String owner, String image, State state) {
        var status = new ContainerStatusBuilder().withName("app").withImage(image);
        boolean ready;
        switch (state) {
            case State.Running r -> {
                ready = true;
                status.withReady(true)
                        .withRestartCount(r.restarts())
                        .withNewState()
                        .withNewRunning()
                        .withStartedAt(r.since())
                        .endRunning()
                        .endState();
            }
            case State.CrashLoop c -> {
                ready = false;
                status.withReady(false)
                        .withRestartCount(c.restarts())
                        .withNewState()
                        .withNewWaiting()
                        .withReason("CrashLoopBackOff")
                        .withMessage("back-off 5m0s restarting failed container=app")
                        .endWaiting()
                        .endState()
                        .withNewLastState()
                        .withNewTerminated()
                        .withReason(c.reason())
                        .withExitCode(c.exitCode())
                        .withFinishedAt(c.finishedAt())
                        .endTerminated()
                        .endLastState();
            }
        }
        mock.storePod(name, app, owner, image, ready, status.build());
    }

    /** An event about pod {@code pod}. */
    void event(String pod, String id, String type, String reason, String message, String last, int count) {
        mock.client()
                .v1()
                .events()
                .inNamespace(NS)
                .resource(new EventBuilder()
                        .withNewMetadata()
                        .withName(pod + "." + id)
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

    /** What {@code k8s_logs previous=true tailLines=100} of {@code pod} answers (CRUD mode serves no logs). */
    void previousLog(String pod, String log) {
        mock.server()
                .expect()
                .get()
                .withPath("/api/v1/namespaces/" + NS + "/pods/" + pod + "/log?pretty=false&previous=true&tailLines=100")
                .andReturn(200, log)
                .always();
    }

    private static PodTemplateSpec template(String app, Spec spec, @Nullable String hash) {
        var container = new ContainerBuilder().withName("app").withImage(spec.image());
        for (String env : spec.env()) {
            container
                    .addNewEnv()
                    .withName(env)
                    .withValue(env.equals("PORT") ? "8080" : "on")
                    .endEnv();
        }
        if (spec.memoryLimit() != null) {
            container
                    .withNewResources()
                    .withLimits(Map.of("memory", new Quantity(spec.memoryLimit())))
                    .endResources();
        }
        var builder = new PodTemplateSpecBuilder()
                .withNewMetadata()
                .addToLabels("app", app)
                .endMetadata()
                .withNewSpec()
                .withContainers(container.build())
                .endSpec();
        PodTemplateSpec t = builder.build();
        if (hash != null) {
            t.getMetadata().getLabels().put("pod-template-hash", hash);
        }
        return t;
    }
}
