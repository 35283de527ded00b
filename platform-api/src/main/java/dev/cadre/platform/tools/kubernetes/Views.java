package dev.cadre.platform.tools.kubernetes;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Compact, model-sized views of Kubernetes objects: the fields an operator reads, never the raw object. */
final class Views {

    static final String REVISION = "deployment.kubernetes.io/revision";
    static final String CHANGE_CAUSE = "kubernetes.io/change-cause";

    private Views() {}

    static String age(@Nullable String timestamp, Instant now) {
        if (timestamp == null || timestamp.isBlank()) {
            return "";
        }
        try {
            Duration d = Duration.between(Instant.parse(timestamp), now);
            if (d.isNegative()) {
                return "0s";
            }
            if (d.toDays() > 0) {
                return d.toDays() + "d";
            }
            if (d.toHours() > 0) {
                return d.toHours() + "h";
            }
            if (d.toMinutes() > 0) {
                return d.toMinutes() + "m";
            }
            return d.toSeconds() + "s";
        } catch (RuntimeException e) {
            return "";
        }
    }

    static int orZero(@Nullable Integer i) {
        return i == null ? 0 : i;
    }

    static String clip(@Nullable String s, int max) {
        if (s == null) {
            return "";
        }
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    /** One row of {@code k8s_get}. */
    static ObjectNode row(HasMetadata o, JsonMapper json, Instant now) {
        ObjectNode r = json.createObjectNode();
        r.put("name", o.getMetadata().getName());
        switch (o) {
            case Pod p -> {
                List<ContainerStatus> cs =
                        p.getStatus() == null || p.getStatus().getContainerStatuses() == null
                                ? List.of()
                                : p.getStatus().getContainerStatuses();
                long ready = cs.stream()
                        .filter(c -> Boolean.TRUE.equals(c.getReady()))
                        .count();
                int total = p.getSpec() == null
                        ? cs.size()
                        : p.getSpec().getContainers().size();
                r.put("ready", ready + "/" + total);
                r.put("status", podStatus(p));
                r.put(
                        "restarts",
                        cs.stream().mapToInt(c -> orZero(c.getRestartCount())).sum());
                r.put(
                        "node",
                        p.getSpec() == null ? "" : Objects.toString(p.getSpec().getNodeName(), ""));
            }
            case Deployment d -> {
                int desired = d.getSpec() == null ? 0 : orZero(d.getSpec().getReplicas());
                var s = d.getStatus();
                r.put("ready", (s == null ? 0 : orZero(s.getReadyReplicas())) + "/" + desired);
                r.put("upToDate", s == null ? 0 : orZero(s.getUpdatedReplicas()));
                r.put("available", s == null ? 0 : orZero(s.getAvailableReplicas()));
                r.put("revision", annotation(d, REVISION));
                r.put("images", images(d.getSpec() == null ? null : d.getSpec().getTemplate()));
            }
            case ReplicaSet rs -> {
                r.put("desired", rs.getSpec() == null ? 0 : orZero(rs.getSpec().getReplicas()));
                r.put(
                        "ready",
                        rs.getStatus() == null ? 0 : orZero(rs.getStatus().getReadyReplicas()));
                r.put("revision", annotation(rs, REVISION));
                r.put("owner", owners(rs));
                r.put(
                        "images",
                        images(rs.getSpec() == null ? null : rs.getSpec().getTemplate()));
            }
            case StatefulSet ss -> {
                int desired = ss.getSpec() == null ? 0 : orZero(ss.getSpec().getReplicas());
                r.put(
                        "ready",
                        (ss.getStatus() == null ? 0 : orZero(ss.getStatus().getReadyReplicas())) + "/" + desired);
                r.put(
                        "images",
                        images(ss.getSpec() == null ? null : ss.getSpec().getTemplate()));
            }
            case DaemonSet ds -> {
                r.put(
                        "desired",
                        ds.getStatus() == null ? 0 : orZero(ds.getStatus().getDesiredNumberScheduled()));
                r.put(
                        "ready",
                        ds.getStatus() == null ? 0 : orZero(ds.getStatus().getNumberReady()));
                r.put(
                        "images",
                        images(ds.getSpec() == null ? null : ds.getSpec().getTemplate()));
            }
            case Job j -> {
                var s = j.getStatus();
                r.put(
                        "completions",
                        (s == null ? 0 : orZero(s.getSucceeded())) + "/"
                                + (j.getSpec() == null || j.getSpec().getCompletions() == null
                                        ? 1
                                        : j.getSpec().getCompletions()));
                r.put("active", s == null ? 0 : orZero(s.getActive()));
                r.put("failed", s == null ? 0 : orZero(s.getFailed()));
            }
            case Service svc -> {
                r.put(
                        "type",
                        svc.getSpec() == null
                                ? ""
                                : Objects.toString(svc.getSpec().getType(), "ClusterIP"));
                r.put(
                        "clusterIP",
                        svc.getSpec() == null
                                ? ""
                                : Objects.toString(svc.getSpec().getClusterIP(), ""));
                List<String> ports = new ArrayList<>();
                if (svc.getSpec() != null && svc.getSpec().getPorts() != null) {
                    for (ServicePort p : svc.getSpec().getPorts()) {
                        ports.add(p.getPort() + "/" + Objects.toString(p.getProtocol(), "TCP"));
                    }
                }
                r.put("ports", String.join(",", ports));
            }
            case Node n -> {
                List<NodeCondition> cs = n.getStatus() == null || n.getStatus().getConditions() == null
                        ? List.of()
                        : n.getStatus().getConditions();
                r.put(
                        "ready",
                        cs.stream()
                                .filter(c -> "Ready".equals(c.getType()))
                                .map(NodeCondition::getStatus)
                                .findFirst()
                                .orElse("Unknown"));
                List<String> pressure = cs.stream()
                        .filter(c -> !"Ready".equals(c.getType()) && "True".equals(c.getStatus()))
                        .map(NodeCondition::getType)
                        .toList();
                r.put("problems", String.join(",", pressure));
                r.put(
                        "version",
                        n.getStatus() == null || n.getStatus().getNodeInfo() == null
                                ? ""
                                : Objects.toString(n.getStatus().getNodeInfo().getKubeletVersion(), ""));
                r.put(
                        "unschedulable",
                        n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable()));
            }
            case Event e -> {
                r.remove("name");
                r.put("last", eventTime(e));
                r.put("type", Objects.toString(e.getType(), ""));
                r.put("reason", Objects.toString(e.getReason(), ""));
                r.put(
                        "object",
                        e.getInvolvedObject() == null
                                ? ""
                                : e.getInvolvedObject().getKind() + "/"
                                        + e.getInvolvedObject().getName());
                r.put("count", orZero(e.getCount()));
                r.put("message", clip(e.getMessage(), 240));
                return r;
            }
            default -> {}
        }
        r.put("age", age(o.getMetadata().getCreationTimestamp(), now));
        return r;
    }

    /** What kubectl shows in STATUS: a waiting or terminated container's reason, else the phase. */
    static String podStatus(Pod p) {
        if (p.getMetadata().getDeletionTimestamp() != null) {
            return "Terminating";
        }
        if (p.getStatus() == null) {
            return "Unknown";
        }
        if (p.getStatus().getContainerStatuses() != null) {
            for (ContainerStatus c : p.getStatus().getContainerStatuses()) {
                if (c.getState() != null
                        && c.getState().getWaiting() != null
                        && c.getState().getWaiting().getReason() != null) {
                    return c.getState().getWaiting().getReason();
                }
                if (c.getState() != null
                        && c.getState().getTerminated() != null
                        && c.getState().getTerminated().getReason() != null) {
                    return c.getState().getTerminated().getReason();
                }
            }
        }
        return Objects.toString(p.getStatus().getPhase(), "Unknown");
    }

    static String annotation(HasMetadata o, String key) {
        Map<String, String> a = o.getMetadata().getAnnotations();
        return a == null ? "" : Objects.toString(a.get(key), "");
    }

    static int revision(HasMetadata o) {
        try {
            return Integer.parseInt(annotation(o, REVISION));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static String owners(HasMetadata o) {
        List<OwnerReference> refs = o.getMetadata().getOwnerReferences();
        if (refs == null || refs.isEmpty()) {
            return "";
        }
        return refs.stream()
                .map(r -> r.getKind() + "/" + r.getName())
                .reduce((a, b) -> a + "," + b)
                .orElse("");
    }

    static String images(@Nullable PodTemplateSpec template) {
        if (template == null || template.getSpec() == null) {
            return "";
        }
        return template.getSpec().getContainers().stream()
                .map(c -> c.getName() + "=" + c.getImage())
                .reduce((a, b) -> a + "," + b)
                .orElse("");
    }

    /** The images of a template's containers, for a sentence: {@code shop/web:2} or {@code a:1, b:2}. */
    static String imageList(@Nullable PodTemplateSpec template) {
        if (template == null || template.getSpec() == null) {
            return "no containers";
        }
        return template.getSpec().getContainers().stream()
                .map(c -> Objects.toString(c.getImage(), "?"))
                .reduce((a, b) -> a + ", " + b)
                .orElse("no containers");
    }

    static String eventTime(Event e) {
        if (e.getLastTimestamp() != null) {
            return e.getLastTimestamp();
        }
        if (e.getEventTime() != null && e.getEventTime().getTime() != null) {
            return e.getEventTime().getTime();
        }
        return Objects.toString(
                e.getFirstTimestamp(), Objects.toString(e.getMetadata().getCreationTimestamp(), ""));
    }

    /** Events about one object, newest first, at most {@code max}. */
    static ArrayNode events(List<Event> all, String kind, String name, int max, JsonMapper json) {
        ArrayNode out = json.createArrayNode();
        all.stream()
                .filter(e -> e.getInvolvedObject() != null
                        && kind.equals(e.getInvolvedObject().getKind())
                        && name.equals(e.getInvolvedObject().getName()))
                .sorted(Comparator.comparing(Views::eventTime).reversed())
                .limit(max)
                .forEach(e -> {
                    ObjectNode o = out.addObject();
                    o.put("last", eventTime(e));
                    o.put("type", Objects.toString(e.getType(), ""));
                    o.put("reason", Objects.toString(e.getReason(), ""));
                    o.put("count", orZero(e.getCount()));
                    o.put("message", clip(e.getMessage(), 240));
                });
        return out;
    }

    /** A container's state, restart count and last termination (reason, exit code) — what explains a crash loop. */
    static ObjectNode container(ContainerStatus c, JsonMapper json) {
        ObjectNode o = json.createObjectNode();
        o.put("name", c.getName());
        o.put("image", c.getImage());
        o.put("ready", Boolean.TRUE.equals(c.getReady()));
        o.put("restarts", orZero(c.getRestartCount()));
        var s = c.getState();
        if (s != null && s.getWaiting() != null) {
            o.put(
                    "state",
                    "waiting: " + Objects.toString(s.getWaiting().getReason(), "")
                            + (s.getWaiting().getMessage() == null
                                    ? ""
                                    : " (" + clip(s.getWaiting().getMessage(), 160) + ")"));
        } else if (s != null && s.getRunning() != null) {
            o.put("state", "running since " + Objects.toString(s.getRunning().getStartedAt(), "?"));
        } else if (s != null && s.getTerminated() != null) {
            o.put("state", "terminated: " + termination(s.getTerminated()));
        }
        if (c.getLastState() != null && c.getLastState().getTerminated() != null) {
            ContainerStateTerminated t = c.getLastState().getTerminated();
            ObjectNode last = o.putObject("lastTermination");
            last.put("reason", Objects.toString(t.getReason(), ""));
            last.put("exitCode", orZero(t.getExitCode()));
            last.put("finishedAt", Objects.toString(t.getFinishedAt(), ""));
            if (t.getMessage() != null) {
                last.put("message", clip(t.getMessage(), 200));
            }
        }
        return o;
    }

    private static String termination(ContainerStateTerminated t) {
        return Objects.toString(t.getReason(), "") + " (exit code " + orZero(t.getExitCode()) + ")";
    }

    /**
     * Whether a body meant to be log text is a Kubernetes API object (a JSON object with apiVersion,
     * kind and metadata): what a request that reached the wrong endpoint answers.
     */
    static boolean isApiObject(String body, JsonMapper json) {
        String t = body.strip();
        if (!t.startsWith("{") || !t.endsWith("}") || !t.contains("\"apiVersion\"")) {
            return false;
        }
        try {
            var n = json.readTree(t);
            return n.isObject() && n.has("apiVersion") && n.has("kind") && n.has("metadata");
        } catch (RuntimeException notOneObject) {
            return false;
        }
    }
}
