package dev.cadre.platform.tools.kubernetes;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.dsl.ContainerResource;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.TailPrettyLoggable;
import io.fabric8.kubernetes.client.dsl.TimeTailPrettyLoggable;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The read tools (risk {@code AUTO}): {@code k8s_get}, {@code k8s_describe}, {@code k8s_logs}, {@code k8s_rollout_history}. */
final class KubernetesReadTools {

    static final List<String> GET_KINDS = List.of(
            "pods", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs", "services", "nodes", "events");
    static final List<String> DESCRIBE_KINDS =
            List.of("pod", "deployment", "replicaset", "statefulset", "daemonset", "job", "service", "node");

    private KubernetesReadTools() {}

    static List<Tool> all(KubernetesAccess k8s, JsonMapper json, Clock clock) {
        return List.of(
                new Get(k8s, json, clock),
                new Describe(k8s, json, clock),
                new Logs(k8s, json),
                new RolloutHistory(k8s, json));
    }

    /** {@code k8s_get}: compact rows of one kind, by name or label selector. */
    static final class Get extends KubernetesTool {
        private final Clock clock;

        Get(KubernetesAccess k8s, JsonMapper json, Clock clock) {
            super(k8s, json);
            this.clock = clock;
        }

        @Override
        public String name() {
            return "k8s_get";
        }

        @Override
        public String description() {
            return "List Kubernetes objects of one kind in a namespace as compact rows (pods: ready, status,"
                    + " restarts; deployments: ready, revision, images; events: reason and message…). By name or"
                    + " label selector (e.g. app=web). Nodes are cluster-wide (no namespace). Read-only.";
        }

        @Override
        public JsonNode parametersSchema() {
            return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                    + "\"kind\":{\"type\":\"string\",\"enum\":" + jsonList(GET_KINDS) + "},"
                    + NS + ",\"name\":" + NAME + ","
                    + "\"selector\":{\"type\":\"string\",\"maxLength\":500,\"description\":\"label selector, e.g. app=web\"}},"
                    + "\"required\":[\"kind\"],\"additionalProperties\":false}");
        }

        @Override
        public Risk risk() {
            return Risk.AUTO;
        }

        @Override
        public String execute(JsonNode args, ToolContext ctx) throws Exception {
            String kind = args.get("kind").asString();
            String ns = kind.equals("nodes") ? null : namespace(args, ctx, "namespace is required for this kind");
            if (ns == null) {
                k8s.checkClusterRead(ctx);
            }
            ObjectNode out = json.createObjectNode();
            out.put("kind", kind);
            if (ns != null) {
                out.put("namespace", ns);
            }
            ArrayNode rows = out.putArray("rows");
            if (args.hasNonNull("name")) {
                String name = args.get("name").asString();
                HasMetadata o = getOne(kind, ns, name);
                if (o == null) {
                    return notFound(kind, ns, name).toString();
                }
                rows.add(Views.row(o, json, clock.instant()));
                out.put("count", 1);
                return out.toString();
            }
            List<? extends HasMetadata> items = new ArrayList<>(list(
                    kind, ns, args.hasNonNull("selector") ? args.get("selector").asString() : null));
            if (kind.equals("events")) {
                items.sort((a, b) -> Views.eventTime((Event) b).compareTo(Views.eventTime((Event) a)));
            }
            int max = k8s.config().maxRows();
            for (int i = 0; i < items.size() && i < max; i++) {
                rows.add(Views.row(items.get(i), json, clock.instant()));
            }
            out.put("count", items.size());
            if (items.size() > max) {
                out.put("truncated", "only " + max + " of " + items.size() + " rows shown; narrow with a selector");
            }
            return out.toString();
        }
    }

    /** {@code k8s_describe}: one object's status, conditions, containers, owner chain and events. */
    static final class Describe extends KubernetesTool {
        private final Clock clock;

        Describe(KubernetesAccess k8s, JsonMapper json, Clock clock) {
            super(k8s, json);
            this.clock = clock;
        }

        @Override
        public String name() {
            return "k8s_describe";
        }

        @Override
        public String description() {
            return "Describe one Kubernetes object compactly: status, conditions, containers (state, restart count,"
                    + " last termination reason and exit code), owner chain (Pod → ReplicaSet → Deployment), the"
                    + " events about it newest first, and its resourceVersion/generation. A deployment also lists"
                    + " its pods. Read-only.";
        }

        @Override
        public JsonNode parametersSchema() {
            return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                    + "\"kind\":{\"type\":\"string\",\"enum\":" + jsonList(DESCRIBE_KINDS) + "},"
                    + NS + ",\"name\":" + NAME + "},"
                    + "\"required\":[\"kind\",\"name\"],\"additionalProperties\":false}");
        }

        @Override
        public Risk risk() {
            return Risk.AUTO;
        }

        @Override
        public String execute(JsonNode args, ToolContext ctx) throws Exception {
            String kind = args.get("kind").asString();
            String name = args.get("name").asString();
            String ns = null;
            if (kind.equals("node")) {
                k8s.checkClusterRead(ctx);
            } else {
                ns = namespace(args, ctx, "namespace is required for a " + kind);
            }
            HasMetadata o = getOne(kind, ns, name);
            if (o == null) {
                return notFound(kind, ns, name).toString();
            }
            ObjectNode out = json.createObjectNode();
            out.put("kind", o.getKind());
            if (ns != null) {
                out.put("namespace", ns);
            }
            out.put("name", name);
            out.put("resourceVersion", Objects.toString(o.getMetadata().getResourceVersion(), ""));
            if (o.getMetadata().getGeneration() != null) {
                out.put("generation", o.getMetadata().getGeneration());
            }
            out.put("age", Views.age(o.getMetadata().getCreationTimestamp(), clock.instant()));
            out.setAll(Views.row(o, json, clock.instant()));
            out.put("name", name);
            switch (o) {
                case Pod p -> describePod(p, ns, out);
                case Deployment d -> describeDeployment(d, ns, out);
                default -> {}
            }
            if (!(o instanceof Pod)) {
                out.put("owners", Views.owners(o));
            }
            if (ns != null) {
                out.set(
                        "events",
                        Views.events(events(ns), o.getKind(), name, k8s.config().maxEvents(), json));
            }
            return out.toString();
        }

        private void describePod(Pod p, String ns, ObjectNode out) throws ToolException, InterruptedException {
            var s = p.getStatus();
            out.put("phase", s == null ? "" : Objects.toString(s.getPhase(), ""));
            ArrayNode conditions = out.putArray("conditions");
            if (s != null && s.getConditions() != null) {
                for (PodCondition c : s.getConditions()) {
                    ObjectNode co = conditions.addObject();
                    co.put("type", c.getType());
                    co.put("status", c.getStatus());
                    if (c.getReason() != null) {
                        co.put("reason", c.getReason());
                    }
                }
            }
            ArrayNode containers = out.putArray("containers");
            if (s != null && s.getContainerStatuses() != null) {
                s.getContainerStatuses().forEach(c -> containers.add(Views.container(c, json)));
            }
            // Owner chain: the pod's owner, and that one's owner (a ReplicaSet's Deployment).
            List<String> chain = new ArrayList<>();
            HasMetadata current = p;
            for (int depth = 0; depth < 3; depth++) {
                List<OwnerReference> refs = current.getMetadata().getOwnerReferences();
                if (refs == null || refs.isEmpty()) {
                    break;
                }
                OwnerReference ref = refs.getFirst();
                chain.add(ref.getKind() + "/" + ref.getName());
                if (!DESCRIBE_KINDS.contains(ref.getKind().toLowerCase(Locale.ROOT))) {
                    break;
                }
                HasMetadata owner = getOne(ref.getKind(), ns, ref.getName());
                if (owner == null) {
                    chain.add("(" + ref.getKind() + "/" + ref.getName() + " not found)");
                    break;
                }
                current = owner;
            }
            out.put("owners", String.join(" → ", chain));
        }

        @SuppressWarnings("unchecked")
        private void describeDeployment(Deployment d, String ns, ObjectNode out)
                throws ToolException, InterruptedException {
            out.put("revision", Views.annotation(d, Views.REVISION));
            if (d.getStatus() != null && d.getStatus().getObservedGeneration() != null) {
                out.put("observedGeneration", d.getStatus().getObservedGeneration());
            }
            ArrayNode conditions = out.putArray("conditions");
            if (d.getStatus() != null && d.getStatus().getConditions() != null) {
                for (DeploymentCondition c : d.getStatus().getConditions()) {
                    ObjectNode co = conditions.addObject();
                    co.put("type", c.getType());
                    co.put("status", c.getStatus());
                    co.put("reason", Objects.toString(c.getReason(), ""));
                    co.put("message", Views.clip(c.getMessage(), 200));
                }
            }
            Map<String, String> match = d.getSpec() == null || d.getSpec().getSelector() == null
                    ? null
                    : d.getSpec().getSelector().getMatchLabels();
            if (match != null && !match.isEmpty()) {
                String selector = String.join(
                        ",",
                        match.entrySet().stream()
                                .map(e -> e.getKey() + "=" + e.getValue())
                                .toList());
                out.put("selector", selector);
                List<Pod> pods = (List<Pod>) list("pods", ns, selector);
                ArrayNode rows = out.putArray("pods");
                pods.stream().limit(k8s.config().maxRows()).forEach(p -> rows.add(Views.row(p, json, clock.instant())));
                out.put("podCount", pods.size());
            }
        }
    }

    /** {@code k8s_logs}: the tail of one container's log, the previous (crashed) one on request, filtered. */
    static final class Logs extends KubernetesTool {

        Logs(KubernetesAccess k8s, JsonMapper json) {
            super(k8s, json);
        }

        @Override
        public String name() {
            return "k8s_logs";
        }

        @Override
        public String description() {
            return "Read a pod's container log: the last tailLines lines (default 100, at most 2000), optionally"
                    + " only the last sinceSeconds, of the previous (crashed) container with previous=true, and"
                    + " only the lines matching grep (a regular expression, case-insensitive). Read-only.";
        }

        @Override
        public JsonNode parametersSchema() {
            return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                    + NS + ",\"pod\":" + NAME + ",\"container\":" + LABEL_NAME + ","
                    + "\"previous\":{\"type\":\"boolean\"},"
                    + "\"sinceSeconds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":604800},"
                    + "\"tailLines\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2000},"
                    + "\"grep\":{\"type\":\"string\",\"maxLength\":200}},"
                    + "\"required\":[\"namespace\",\"pod\"],\"additionalProperties\":false}");
        }

        @Override
        public Risk risk() {
            return Risk.AUTO;
        }

        @Override
        public String execute(JsonNode args, ToolContext ctx) throws Exception {
            String ns = namespace(args, ctx, "namespace is required");
            String pod = args.get("pod").asString();
            Pattern grep = null;
            if (args.hasNonNull("grep")) {
                try {
                    // RE2/J: matching is linear in the line's length, whatever the pattern (no
                    // backtracking: a model-written '((.+)+)+QQQ' cannot pin a core).
                    grep = Pattern.compile(args.get("grep").asString(), Pattern.CASE_INSENSITIVE);
                } catch (PatternSyntaxException e) {
                    throw new ToolException(
                            FailureCategory.EXECUTION_ERROR,
                            "invalid_arguments",
                            "grep is not a valid regular expression: " + e.getDescription());
                }
            }
            boolean previous = args.path("previous").asBoolean(false);
            int tail = args.path("tailLines").asInt(100);
            String container =
                    args.hasNonNull("container") ? args.get("container").asString() : null;
            if (container != null) {
                checkName("container", container, true);
            }
            Integer since =
                    args.hasNonNull("sinceSeconds") ? args.get("sinceSeconds").asInt() : null;
            // The pod first: a missing pod or container is an answer the model can act on, not an error.
            Pod target = (Pod) getOne("pod", ns, pod);
            if (target == null) {
                return notFound("pod", ns, pod).toString();
            }
            List<String> names = target.getSpec() == null
                    ? List.of()
                    : target.getSpec().getContainers().stream()
                            .map(c -> c.getName())
                            .toList();
            if (container != null && !names.isEmpty() && !names.contains(container)) {
                ObjectNode o = notFound("container", ns, container);
                o.put("hint", "pod " + pod + " has no container '" + container + "'; its containers: " + names);
                return o.toString();
            }
            String log = k8s.call("get", "pods/log", ns, c -> {
                PodResource p = c.pods().inNamespace(ns).withName(pod);
                ContainerResource cr = container == null ? p : p.inContainer(container);
                TimeTailPrettyLoggable l = previous ? cr.terminated() : cr;
                TailPrettyLoggable t = since == null ? l : l.sinceSeconds(since);
                return t.tailingLines(tail).getLog();
            });
            if (log == null) {
                ObjectNode o = notFound("pod", ns, pod);
                o.put(
                        "hint",
                        "no log for pod '" + pod + "'" + (container == null ? "" : " container '" + container + "'")
                                + (previous ? ": it has no previous (terminated) container" : ""));
                return o.toString();
            }
            if (Views.isApiObject(log, json)) {
                // A log endpoint answers text; an object here (a pod with its env values) never reaches the model.
                throw new ToolException(
                        FailureCategory.STATE_INCONSISTENCY,
                        "k8s_unexpected_answer",
                        "the API server answered the log request for pod " + ns + "/" + pod
                                + " with an API object instead of log text; it is not shown");
            }
            return render(log, grep, pod, ns, container, previous).toString();
        }

        private ObjectNode render(
                String log,
                @Nullable Pattern grep,
                String pod,
                String ns,
                @Nullable String container,
                boolean previous) {
            String[] lines = log.split("\n", -1);
            List<String> kept = new ArrayList<>();
            for (String line : lines) {
                if (line.isEmpty()) {
                    continue;
                }
                if (grep == null || grep.matcher(line).find()) {
                    kept.add(line);
                }
            }
            // The newest lines matter most: keep the end when the result is too long.
            int max = k8s.config().maxLogChars();
            StringBuilder b = new StringBuilder();
            int shown = 0;
            for (int i = kept.size() - 1; i >= 0; i--) {
                String line = Views.clip(kept.get(i), 1000);
                if (b.length() + line.length() + 1 > max) {
                    break;
                }
                b.insert(0, b.isEmpty() ? line : line + "\n");
                shown++;
            }
            ObjectNode out = json.createObjectNode();
            out.put("namespace", ns);
            out.put("pod", pod);
            if (container != null) {
                out.put("container", container);
            }
            out.put("previous", previous);
            out.put("lines", kept.size());
            if (grep != null) {
                out.put("grep", grep.pattern());
                out.put("linesRead", (int)
                        java.util.Arrays.stream(lines).filter(l -> !l.isEmpty()).count());
            }
            if (shown < kept.size()) {
                out.put(
                        "cut",
                        (kept.size() - shown) + " older line(s) left out; narrow with grep, tailLines or sinceSeconds");
            }
            out.put("log", b.toString());
            return out;
        }
    }

    /** {@code k8s_rollout_history}: a deployment's revisions and what each changed. */
    static final class RolloutHistory extends KubernetesTool {

        RolloutHistory(KubernetesAccess k8s, JsonMapper json) {
            super(k8s, json);
        }

        @Override
        public String name() {
            return "k8s_rollout_history";
        }

        @Override
        public String description() {
            return "A deployment's rollout history from its ReplicaSets: each revision with its change-cause, images,"
                    + " ready pods and what changed from the revision before (images, env names, resources); the"
                    + " current revision, the last revision whose pods were healthy (lastHealthyRevision, with the"
                    + " evidence; 0 when there is no earlier revision) and the deployment's resourceVersion/generation."
                    + " Read-only.";
        }

        @Override
        public JsonNode parametersSchema() {
            return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{" + NS + ",\"deployment\":" + NAME + "},"
                    + "\"required\":[\"namespace\",\"deployment\"],\"additionalProperties\":false}");
        }

        @Override
        public Risk risk() {
            return Risk.AUTO;
        }

        @Override
        @SuppressWarnings("unchecked")
        public String execute(JsonNode args, ToolContext ctx) throws Exception {
            String ns = namespace(args, ctx, "namespace is required");
            String name = args.get("deployment").asString();
            Deployment d = (Deployment) getOne("deployment", ns, name);
            if (d == null) {
                return notFound("deployment", ns, name).toString();
            }
            List<Rollouts.Revision> revisions = Rollouts.revisions(d, (List<ReplicaSet>) list("replicasets", ns, null));
            int current = Rollouts.current(d, revisions);
            ObjectNode out = json.createObjectNode();
            out.put("namespace", ns);
            out.put("deployment", name);
            out.put("resourceVersion", Objects.toString(d.getMetadata().getResourceVersion(), ""));
            out.put(
                    "generation",
                    d.getMetadata().getGeneration() == null
                            ? 0
                            : d.getMetadata().getGeneration());
            out.put("currentRevision", current);
            ArrayNode list = out.putArray("revisions");
            Rollouts.Revision before = null;
            for (Rollouts.Revision r : revisions) {
                ObjectNode o = list.addObject();
                o.put("revision", r.number());
                o.put("replicaSet", r.replicaSet().getMetadata().getName());
                o.put("changeCause", Views.annotation(r.replicaSet(), Views.CHANGE_CAUSE));
                o.put("images", Views.images(r.template()));
                o.put("ready", r.ready());
                o.put("created", Objects.toString(r.replicaSet().getMetadata().getCreationTimestamp(), ""));
                ArrayNode changes = o.putArray("changes");
                if (before != null) {
                    TemplateDiff.changes(before.template(), r.template()).forEach(changes::add);
                }
                before = r;
            }
            Rollouts.Healthy healthy = Rollouts.lastHealthy(current, revisions);
            if (healthy != null) {
                out.put("lastHealthyRevision", healthy.revision());
                out.put("lastHealthyEvidence", healthy.evidence());
                Rollouts.Revision cur = Rollouts.byNumber(revisions).get(current);
                Rollouts.Revision good = Rollouts.byNumber(revisions).get(healthy.revision());
                if (cur != null && good != null) {
                    ArrayNode since = out.putArray("changedSinceLastHealthy");
                    TemplateDiff.changes(good.template(), cur.template()).forEach(since::add);
                }
            } else {
                // Said, not left out: a model or a script reading the field meets "none" as a value (0).
                out.put("lastHealthyRevision", 0);
                out.put("lastHealthyEvidence", "no revision before the current one: nothing to roll back to");
                out.putArray("changedSinceLastHealthy");
            }
            if (revisions.isEmpty()) {
                out.put("note", "no ReplicaSets of this deployment were found: nothing to roll back to");
            }
            return out.toString();
        }
    }

    static String jsonList(List<String> values) {
        return values.stream()
                .map(v -> "\"" + v + "\"")
                .reduce((a, b) -> a + "," + b)
                .map(s -> "[" + s + "]")
                .orElse("[]");
    }
}
