package dev.cadre.platform.tools.kubernetes;

import dev.cadre.agent.tool.ToolException;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Whether a rollout a human approved took effect, judged after it had time to: polls the deployment
 * (every {@code cadre.tools.kubernetes.verify-poll-interval}, at most
 * {@code cadre.tools.kubernetes.verify-timeout}) until the controller has seen the change and the
 * rollout completed the way {@code kubectl rollout status} says (all replicas updated and available, no
 * old replica left), the new ReplicaSet's pods are all ready and their restart counts stood still
 * between two checks. {@code SUCCEEDED} then; {@code FAILED} when the rollout's progress deadline was
 * exceeded, or the deadline passed with the new pods failing (crash loop, image pull error, restarts
 * still rising); {@code TIMED_OUT} when it passed without either. The evidence says what was seen.
 */
final class RolloutVerifier {

    /** What a verification concluded. */
    enum Verdict {
        SUCCEEDED,
        FAILED,
        TIMED_OUT
    }

    /** The verdict, one sentence for people and the evidence (the last check) for machines. */
    record Outcome(Verdict verdict, String summary, ObjectNode evidence) {
        ObjectNode toJson(JsonMapper json) {
            ObjectNode o = json.createObjectNode();
            o.put("verdict", verdict.name());
            o.put("summary", summary);
            o.set("evidence", evidence);
            return o;
        }
    }

    /** Waiting reasons of a container that mean the new revision does not start. */
    private static final Set<String> FAILING = Set.of(
            "CrashLoopBackOff",
            "ImagePullBackOff",
            "ErrImagePull",
            "InvalidImageName",
            "CreateContainerConfigError",
            "CreateContainerError",
            "RunContainerError");

    /** Sleeps between checks; a test's clock, or the thread's. */
    @FunctionalInterface
    interface Pause {
        void sleep(Duration d) throws InterruptedException;
    }

    private final KubernetesTool reads;
    private final JsonMapper json;
    private final Duration timeout;
    private final Duration interval;
    private final Pause pause;

    RolloutVerifier(KubernetesTool reads, JsonMapper json, Duration timeout, Duration interval, Pause pause) {
        this.reads = reads;
        this.json = json;
        this.timeout = timeout;
        this.interval = interval;
        this.pause = pause;
    }

    /** One check of the rollout: what it saw, and whether it is done, failed, or still going. */
    private record Check(boolean complete, @Nullable String failure, Map<String, Integer> restarts, ObjectNode seen) {}

    /**
     * Verifies the rollout of {@code ns/name} that the write at {@code generation} started. Polls at most
     * {@code timeout / interval + 1} times; never throws for what it reads (a read failure is evidence).
     */
    Outcome verify(String ns, String name, long generation) throws InterruptedException {
        return verify(ns, name, generation, "Rollout of deployment " + ns + "/" + name);
    }

    /** As {@link #verify(String, String, long)}, the summary naming the change as {@code what} ("Scale of …"). */
    Outcome verify(String ns, String name, long generation, String what) throws InterruptedException {
        long polls = Math.max(1, timeout.toMillis() / Math.max(1, interval.toMillis()));
        Check previous = null;
        Check last = null;
        long rising = 0;
        for (long i = 0; i <= polls; i++) {
            if (i > 0) {
                pause.sleep(interval);
            }
            Check now;
            try {
                now = check(ns, name, generation);
            } catch (ToolException e) {
                now = new Check(false, null, Map.of(), json.createObjectNode().put("error", e.getMessage()));
            }
            now.seen().put("check", i + 1);
            boolean restartsStill = previous != null && previous.restarts().equals(now.restarts());
            if (previous != null && rose(previous.restarts(), now.restarts())) {
                rising++;
            }
            if (now.failure() != null && now.failure().startsWith("ProgressDeadlineExceeded")) {
                return outcome(Verdict.FAILED, what, "its progress deadline was exceeded: " + now.failure(), now, i);
            }
            if (now.complete() && previous != null && previous.complete() && restartsStill) {
                return outcome(Verdict.SUCCEEDED, what, null, now, i);
            }
            previous = now;
            last = now;
        }
        Check seen = Objects.requireNonNull(last);
        if (seen.failure() != null || rising > 0) {
            return outcome(
                    Verdict.FAILED,
                    what,
                    seen.failure() != null ? seen.failure() : "restarts still rose during the check",
                    seen,
                    polls);
        }
        return outcome(Verdict.TIMED_OUT, what, null, seen, polls);
    }

    private Outcome outcome(Verdict v, String what, @Nullable String why, Check at, long polls) {
        ObjectNode e = at.seen();
        e.put("checks", polls + 1);
        e.put("timeout", timeout.toString());
        e.put("pollInterval", interval.toString());
        String pods = e.path("newReplicaSet").asString("?") + " "
                + e.path("readyPods").asInt() + "/" + e.path("desired").asInt() + " pod(s) ready";
        String summary = switch (v) {
            case SUCCEEDED -> what + " verified: " + pods + ", restarts stopped (" + (polls + 1) + " checks)";
            case FAILED -> what + " failed: " + why + " (" + pods + ")";
            case TIMED_OUT ->
                what + " not complete within " + timeout + ": " + pods + ", "
                        + e.path("updated").asInt() + " updated, "
                        + e.path("available").asInt() + " available";
        };
        return new Outcome(v, summary, e);
    }

    private static boolean rose(Map<String, Integer> before, Map<String, Integer> after) {
        return after.entrySet().stream()
                .anyMatch(x -> before.containsKey(x.getKey()) && x.getValue() > before.get(x.getKey()));
    }

    @SuppressWarnings("unchecked")
    private Check check(String ns, String name, long generation) throws ToolException, InterruptedException {
        ObjectNode seen = json.createObjectNode();
        Deployment d = (Deployment) reads.getOne("deployment", ns, name);
        if (d == null) {
            return new Check(false, "the deployment is gone", Map.of(), seen.put("deployment", "not found"));
        }
        int desired = d.getSpec() == null ? 0 : Views.orZero(d.getSpec().getReplicas());
        var s = d.getStatus();
        long observed = s == null || s.getObservedGeneration() == null ? 0 : s.getObservedGeneration();
        int updated = s == null ? 0 : Views.orZero(s.getUpdatedReplicas());
        int available = s == null ? 0 : Views.orZero(s.getAvailableReplicas());
        int total = s == null ? 0 : Views.orZero(s.getReplicas());
        seen.put("generation", generation);
        seen.put("observedGeneration", observed);
        seen.put("desired", desired);
        seen.put("updated", updated);
        seen.put("available", available);
        seen.put("replicas", total);
        String failure = null;
        // A condition describes the generation the controller observed: before it has seen this change,
        // a ProgressDeadlineExceeded is the old rollout's, the very one this change repairs.
        if (s != null && s.getConditions() != null && observed >= generation) {
            for (DeploymentCondition c : s.getConditions()) {
                if ("Progressing".equals(c.getType()) && "ProgressDeadlineExceeded".equals(c.getReason())) {
                    failure = "ProgressDeadlineExceeded: " + Views.clip(c.getMessage(), 160);
                }
            }
        }
        // The controller has seen this change, and the rollout completed as kubectl rollout status says.
        boolean rolledOut = observed >= generation && updated >= desired && total <= updated && available >= updated;
        ReplicaSet current = newReplicaSet(d, (List<ReplicaSet>) reads.list("replicasets", ns, null));
        Map<String, Integer> restarts = new HashMap<>();
        int ready = 0;
        ArrayNode podsSeen = seen.putArray("pods");
        if (current != null) {
            seen.put("newReplicaSet", current.getMetadata().getName());
            seen.put("revision", Views.annotation(current, Views.REVISION));
            String selector = selector(d);
            for (Pod p : (List<Pod>) reads.list("pods", ns, selector)) {
                boolean ownedByNew = p.getMetadata().getOwnerReferences() != null
                        && p.getMetadata().getOwnerReferences().stream()
                                .anyMatch(o -> current.getMetadata().getName().equals(o.getName()));
                if (!ownedByNew) {
                    continue;
                }
                List<ContainerStatus> cs =
                        p.getStatus() == null || p.getStatus().getContainerStatuses() == null
                                ? List.of()
                                : p.getStatus().getContainerStatuses();
                boolean podReady = !cs.isEmpty() && cs.stream().allMatch(c -> Boolean.TRUE.equals(c.getReady()));
                int podRestarts = cs.stream()
                        .mapToInt(c -> Views.orZero(c.getRestartCount()))
                        .sum();
                String status = Views.podStatus(p);
                if (FAILING.contains(status) && failure == null) {
                    failure = "pod " + p.getMetadata().getName() + " " + status;
                }
                ready += podReady ? 1 : 0;
                restarts.put(p.getMetadata().getName(), podRestarts);
                podsSeen.addObject()
                        .put("name", p.getMetadata().getName())
                        .put("ready", podReady)
                        .put("status", status)
                        .put("restarts", podRestarts);
            }
        }
        seen.put("readyPods", ready);
        // The counts are the controller's (as kubectl rollout status reads them); the pods say more: every
        // pod of the new ReplicaSet ready, none failing.
        // Scaled to zero, done means no pod of it left; otherwise as many ready pods as desired.
        boolean complete = rolledOut
                && current != null
                && failure == null
                && (desired == 0
                        ? restarts.isEmpty()
                        : !restarts.isEmpty() && ready == restarts.size() && ready >= desired);
        seen.put("rolledOut", rolledOut);
        return new Check(complete, failure, restarts, seen);
    }

    /** The ReplicaSet of the deployment whose template is the deployment's (the revision now rolling out). */
    static @Nullable ReplicaSet newReplicaSet(Deployment d, List<ReplicaSet> inNamespace) {
        List<Rollouts.Revision> revisions = Rollouts.revisions(d, inNamespace);
        List<ReplicaSet> same = new ArrayList<>();
        for (Rollouts.Revision r : revisions) {
            if (TemplateDiff.changes(d.getSpec().getTemplate(), r.template()).isEmpty()) {
                same.add(r.replicaSet());
            }
        }
        return same.isEmpty() ? null : same.getLast();
    }

    private static @Nullable String selector(Deployment d) {
        var match = d.getSpec() == null || d.getSpec().getSelector() == null
                ? null
                : d.getSpec().getSelector().getMatchLabels();
        if (match == null || match.isEmpty()) {
            return null;
        }
        return String.join(
                ",",
                match.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .toList());
    }
}
