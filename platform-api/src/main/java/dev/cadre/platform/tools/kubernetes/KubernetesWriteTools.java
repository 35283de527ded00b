package dev.cadre.platform.tools.kubernetes;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.ProposingTool;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The write tools (risk {@code APPROVE}): {@code k8s_rollout_restart}, {@code k8s_rollout_undo},
 * {@code k8s_scale}, {@code k8s_delete_pod}. Each completes its proposal before a human sees it
 * ({@link ProposingTool}): the exact object, the change in words, and the object's state then
 * ({@code observed}: uid, resourceVersion, generation and a hash of its spec). At execution the object
 * must still be in that state — same uid, generation and spec — or the tool refuses with
 * {@code STATE_INCONSISTENCY} (someone else acted since the approval); the write itself is a replace
 * locked to the resourceVersion just read, so a change in between is a 409, also a refusal. The loop
 * journals the call, so a crash after it started never applies it again.
 */
final class KubernetesWriteTools {

    private KubernetesWriteTools() {}

    /** The write tools without the rollout watch (what a rollout did is not checked or recorded). */
    static List<Tool> all(KubernetesAccess k8s, JsonMapper json, Clock clock) {
        return List.of(
                new Restart(k8s, json, clock), new Undo(k8s, json), new Scale(k8s, json), new DeletePod(k8s, json));
    }

    /**
     * The write tools; a rollout they start (undo, restart) and a scale are verified with {@code pause}
     * between checks and their outcome given to {@code outcomes}.
     */
    static List<Tool> all(
            KubernetesAccess k8s,
            JsonMapper json,
            Clock clock,
            RemediationOutcomes outcomes,
            RolloutVerifier.Pause pause) {
        Restart restart = new Restart(k8s, json, clock);
        Undo undo = new Undo(k8s, json);
        Scale scale = new Scale(k8s, json);
        for (WriteTool t : List.of(restart, undo, scale)) {
            t.verification(outcomes, pause);
        }
        return List.of(restart, undo, scale, new DeletePod(k8s, json));
    }

    /**
     * What a write would do to the object read now: one sentence ({@code change}), every difference it
     * makes ({@code details}), the edit (null: delete the object), and what else the approval binds
     * beside the object's own state ({@code bound}, e.g. the ReplicaSet whose template a rollback
     * applies; null: nothing).
     */
    record Plan(
            String change,
            List<String> details,
            @Nullable UnaryOperator<HasMetadata> edit,
            @Nullable ObjectNode bound) {
        Plan(String change, @Nullable UnaryOperator<HasMetadata> edit) {
            this(change, List.of(), edit, null);
        }
    }

    /** At most this many detail lines go into a proposal (the rest are counted). */
    static final int MAX_DETAILS = 40;
    /** The arguments the platform fills in when the call is proposed; whatever a caller put there is replaced. */
    static final List<String> PROPOSED_FIELDS = List.of("change", "changes", "observed");

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private abstract static class WriteTool extends KubernetesTool implements ProposingTool {
        private @Nullable RemediationOutcomes outcomes;
        private RolloutVerifier.@Nullable Pause pause;

        WriteTool(KubernetesAccess k8s, JsonMapper json) {
            super(k8s, json);
        }

        /** This tool changes a deployment's pods: watch them after the write, and record the outcome. */
        void verification(RemediationOutcomes outcomes, RolloutVerifier.Pause pause) {
            this.outcomes = outcomes;
            this.pause = pause;
        }

        /** {@code deployment} or {@code pod}. */
        abstract String kind();

        /** The argument naming the object. */
        abstract String nameField();

        /** The tool's own argument properties (JSON, without braces), or empty. */
        abstract String ownProperties();

        abstract Plan plan(HasMetadata current, JsonNode args) throws ToolException, InterruptedException;

        /** What a verification of this call checks, as its summary names it. */
        String verifying(String ns, String name, JsonNode args) {
            return "Rollout of deployment " + ns + "/" + name;
        }

        @Override
        public Risk risk() {
            return Risk.APPROVE;
        }

        @Override
        public JsonNode parametersSchema() {
            String own = ownProperties();
            return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                    + NS + ","
                    + "\"" + nameField() + "\":" + NAME + ","
                    + (own.isEmpty() ? "" : own + ",")
                    + "\"reason\":{\"type\":\"string\",\"maxLength\":1000},"
                    + "\"confidence\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1},"
                    + "\"incident\":{\"type\":\"string\",\"maxLength\":100},"
                    + "\"change\":{\"type\":\"string\",\"maxLength\":1000,"
                    + "\"description\":\"filled in by the platform when the call is proposed\"},"
                    + "\"changes\":{\"type\":\"array\",\"maxItems\":" + (MAX_DETAILS + 1) + ","
                    + "\"items\":{\"type\":\"string\",\"maxLength\":400},"
                    + "\"description\":\"filled in by the platform: every difference the call makes\"},"
                    + "\"observed\":{\"type\":\"object\",\"description\":\"filled in by the platform: the object's"
                    + " state when the call was proposed\",\"properties\":{"
                    + "\"kind\":{\"type\":\"string\"},\"uid\":{\"type\":\"string\"},"
                    + "\"resourceVersion\":{\"type\":\"string\"},\"generation\":{\"type\":\"integer\"},"
                    + "\"spec\":{\"type\":\"string\"},"
                    + "\"replicaSet\":{\"type\":\"object\",\"properties\":{"
                    + "\"name\":{\"type\":\"string\"},\"uid\":{\"type\":\"string\"},"
                    + "\"resourceVersion\":{\"type\":\"string\"},\"revision\":{\"type\":\"integer\"},"
                    + "\"templateHash\":{\"type\":\"string\"}},\"additionalProperties\":false}},"
                    + "\"additionalProperties\":false}},"
                    + "\"required\":[\"namespace\",\"" + nameField() + "\"],\"additionalProperties\":false}");
        }

        private HasMetadata read(JsonNode args, ToolContext ctx) throws ToolException, InterruptedException {
            String ns = namespace(args, ctx, "namespace is required");
            String name = args.get(nameField()).asString();
            HasMetadata o = getOne(kind(), ns, name);
            if (o == null) {
                throw new ToolException(
                        FailureCategory.EXECUTION_ERROR,
                        "k8s_not_found",
                        "no " + kind() + " '" + name + "' in namespace " + ns + ": nothing to change; find it with"
                                + " k8s_get");
            }
            return o;
        }

        /** The namespace and the object's name: an approver's edit may not point the call elsewhere. */
        @Override
        public java.util.Set<String> targetArguments() {
            return java.util.Set.of("namespace", nameField());
        }

        /**
         * Proposes the call from the caller's own arguments: the change, its details and the observed
         * state are always read now, whatever a model or an approver's edit carried in those fields.
         */
        @Override
        public JsonNode propose(JsonNode args, ToolContext ctx) throws Exception {
            ObjectNode asked = (ObjectNode) args.deepCopy();
            PROPOSED_FIELDS.forEach(asked::remove);
            HasMetadata current = read(asked, ctx);
            Plan plan = plan(current, asked);
            ObjectNode out = asked.deepCopy();
            out.put("change", Views.clip(plan.change(), 1000));
            var details = out.putArray("changes");
            plan.details().stream().limit(MAX_DETAILS).forEach(d -> details.add(Views.clip(d, 400)));
            if (plan.details().size() > MAX_DETAILS) {
                details.add("… and " + (plan.details().size() - MAX_DETAILS) + " more difference(s)");
            }
            ObjectNode observed = observed(current);
            if (plan.bound() != null) {
                observed.set("replicaSet", plan.bound());
            }
            out.set("observed", observed);
            return out;
        }

        @Override
        public ProposingTool.Words words(JsonNode proposed) {
            String change = proposed.path("change").asString("");
            List<String> details = new java.util.ArrayList<>();
            proposed.path("changes").forEach(d -> details.add(d.asString()));
            JsonNode o = proposed.path("observed");
            if (o.isObject()) {
                details.add("Checked again before it is applied: "
                        + o.path("kind").asString() + " uid "
                        + o.path("uid").asString() + ", generation "
                        + o.path("generation").asString()
                        + ", resourceVersion " + o.path("resourceVersion").asString()
                        + (o.has("replicaSet")
                                ? "; ReplicaSet "
                                        + o.path("replicaSet").path("name").asString() + " (revision "
                                        + o.path("replicaSet").path("revision").asString() + ", uid "
                                        + o.path("replicaSet").path("uid").asString() + ", template "
                                        + o.path("replicaSet")
                                                .path("templateHash")
                                                .asString() + ")"
                                : ""));
            }
            return new ProposingTool.Words(
                    change.isBlank()
                            ? name() + " " + proposed.path("namespace").asString() + "/"
                                    + proposed.path(nameField()).asString()
                            : change,
                    details);
        }

        @Override
        public String execute(JsonNode args, ToolContext ctx) throws Exception {
            HasMetadata current = read(args, ctx);
            String where = current.getKind() + " " + args.get("namespace").asString() + "/"
                    + current.getMetadata().getName();
            JsonNode approved = args.path("observed");
            if (!approved.isObject()) {
                // Every approved call was proposed (the platform fills observed in); one that was not
                // carries no state to check, so nothing an approver saw binds it.
                throw new ToolException(
                        FailureCategory.STATE_INCONSISTENCY,
                        "k8s_not_proposed",
                        where + ": the call carries no observed state (it was not proposed by the platform);"
                                + " nothing applied");
            }
            {
                ObjectNode now = observed(current);
                for (String field : new String[] {"uid", "generation", "spec"}) {
                    if (approved.has(field)
                            && !approved.get(field)
                                    .asString()
                                    .equals(now.path(field).asString())) {
                        throw new ToolException(
                                FailureCategory.STATE_INCONSISTENCY,
                                "k8s_changed_since_approval",
                                Views.clip(
                                        where + " changed since the approval (" + field + " "
                                                + approved.get(field).asString() + " → "
                                                + now.path(field).asString()
                                                + ", resourceVersion "
                                                + approved.path("resourceVersion")
                                                        .asString()
                                                + " → "
                                                + now.path("resourceVersion").asString()
                                                + "): someone else acted; nothing applied. Read it again.",
                                        200));
                    }
                }
            }
            Plan plan = plan(current, args);
            checkBound(where, approved.path("replicaSet"), plan.bound());
            String ns = args.get("namespace").asString();
            String rv = current.getMetadata().getResourceVersion();
            String resource = plural(kind());
            ObjectNode out = json.createObjectNode();
            out.put("status", "applied");
            out.put("kind", current.getKind());
            out.put("namespace", ns);
            out.put("name", current.getMetadata().getName());
            out.put("change", plan.change());
            var details = out.putArray("changes");
            plan.details().stream().limit(MAX_DETAILS).forEach(d -> details.add(Views.clip(d, 400)));
            if (plan.edit() == null) {
                // No resourceVersion lock: a crash-looping pod's status changes every restart; the uid was checked.
                String name = current.getMetadata().getName();
                k8s.call(
                        "delete",
                        resource,
                        ns,
                        c -> c.pods().inNamespace(ns).withName(name).delete());
                return out.toString();
            }
            HasMetadata edited = plan.edit().apply(current);
            HasMetadata written = k8s.call(
                    "update",
                    resource,
                    ns,
                    c -> c.resource(edited)
                            .inNamespace(ns)
                            .lockResourceVersion(rv)
                            .update());
            if (written == null) {
                throw new ToolException(
                        FailureCategory.STATE_INCONSISTENCY,
                        "k8s_object_gone",
                        where + " disappeared while the change was being applied; nothing applied");
            }
            out.put("resourceVersion", Objects.toString(written.getMetadata().getResourceVersion(), ""));
            if (written.getMetadata().getGeneration() != null) {
                out.put("generation", written.getMetadata().getGeneration());
            }
            if (outcomes != null && pause != null) {
                // Judged after the change had time to take effect, by the platform: only a verified
                // rollout lets the incident be resolved.
                long generation = written.getMetadata().getGeneration() == null
                        ? 0
                        : written.getMetadata().getGeneration();
                RolloutVerifier.Outcome outcome = new RolloutVerifier(
                                this,
                                json,
                                k8s.config().verifyTimeout(),
                                k8s.config().verifyPollInterval(),
                                pause)
                        .verify(
                                ns,
                                current.getMetadata().getName(),
                                generation,
                                verifying(ns, current.getMetadata().getName(), args));
                out.set("verification", outcome.toJson(json));
                outcomes.record(ctx, name(), args, outcome.verdict().name(), outcome.summary(), outcome.evidence());
            }
            return out.toString();
        }

        /**
         * The ReplicaSet a rollback applies must be the one approved: same uid and the same template
         * (by hash). Its resourceVersion is bound and reported, but a change of it alone — its status
         * counting pods — is no change of what would be applied.
         */
        private void checkBound(String where, JsonNode approved, @Nullable ObjectNode now) throws ToolException {
            if (now == null) {
                return;
            }
            if (!approved.isObject()) {
                throw new ToolException(
                        FailureCategory.STATE_INCONSISTENCY,
                        "k8s_changed_since_approval",
                        Views.clip(
                                where + ": the approval did not bind ReplicaSet "
                                        + now.path("name").asString()
                                        + " whose template this would apply; nothing applied. Propose it again.",
                                200));
            }
            for (String field : new String[] {"uid", "templateHash"}) {
                String was = approved.path(field).asString("");
                String is = now.path(field).asString("");
                if (!was.equals(is)) {
                    throw new ToolException(
                            FailureCategory.STATE_INCONSISTENCY,
                            "k8s_changed_since_approval",
                            Views.clip(
                                    "ReplicaSet " + now.path("name").asString() + " (revision "
                                            + now.path("revision").asString() + ") changed since the approval ("
                                            + field + " " + was + " → " + is + ", resourceVersion "
                                            + approved.path("resourceVersion").asString() + " → "
                                            + now.path("resourceVersion").asString()
                                            + "): its template is not the one approved; nothing applied.",
                                    200));
                }
            }
        }

        ObjectNode observed(HasMetadata o) {
            ObjectNode n = json.createObjectNode();
            n.put("kind", o.getKind());
            n.put("uid", Objects.toString(o.getMetadata().getUid(), ""));
            n.put("resourceVersion", Objects.toString(o.getMetadata().getResourceVersion(), ""));
            n.put(
                    "generation",
                    o.getMetadata().getGeneration() == null
                            ? 0
                            : o.getMetadata().getGeneration());
            n.put("spec", specHash(o));
            return n;
        }
    }

    /**
     * A short hash of the object's spec: what a human's approval was about. Status changes all the time
     * (a crash-looping pod's restart count), so it is not part of it; a spec change by anyone is.
     */
    static String specHash(HasMetadata o) {
        Object spec = switch (o) {
            case Deployment d -> d.getSpec();
            case Pod p -> p.getSpec();
            default -> null;
        };
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(SERIALIZATION.asJson(spec).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, 16);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Deployment copy(HasMetadata d) {
        return SERIALIZATION.clone((Deployment) d);
    }

    /** {@code k8s_rollout_restart}: a new rollout of the same template (kubectl's restartedAt annotation). */
    static final class Restart extends WriteTool {
        private final Clock clock;

        Restart(KubernetesAccess k8s, JsonMapper json, Clock clock) {
            super(k8s, json);
            this.clock = clock;
        }

        @Override
        public String name() {
            return "k8s_rollout_restart";
        }

        @Override
        public String description() {
            return "Restart a deployment's pods by a rolling update of the same pod template (like kubectl rollout"
                    + " restart). Needs a human's approval, which shows the deployment and its generation; refused"
                    + " when the deployment changed since.";
        }

        @Override
        String kind() {
            return "deployment";
        }

        @Override
        String nameField() {
            return "deployment";
        }

        @Override
        String ownProperties() {
            return "";
        }

        @Override
        Plan plan(HasMetadata current, JsonNode args) {
            Deployment d = (Deployment) current;
            int replicas = d.getSpec() == null ? 0 : Views.orZero(d.getSpec().getReplicas());
            return new Plan(
                    "Restart deployment " + args.get("namespace").asString() + "/"
                            + d.getMetadata().getName()
                            + ": a rolling replacement of its " + replicas + " pod(s) with the same template (revision "
                            + Views.annotation(d, Views.REVISION) + ", "
                            + Views.imageList(d.getSpec().getTemplate())
                            + ")",
                    o -> {
                        Deployment c = copy(o);
                        PodTemplateSpec t = c.getSpec().getTemplate();
                        Map<String, String> a = t.getMetadata().getAnnotations() == null
                                ? new HashMap<>()
                                : new HashMap<>(t.getMetadata().getAnnotations());
                        a.put(
                                "kubectl.kubernetes.io/restartedAt",
                                clock.instant().toString());
                        t.getMetadata().setAnnotations(a);
                        return c;
                    });
        }
    }

    /** {@code k8s_rollout_undo}: the pod template of an earlier revision (default: the previous one). */
    static final class Undo extends WriteTool {
        Undo(KubernetesAccess k8s, JsonMapper json) {
            super(k8s, json);
        }

        @Override
        public String name() {
            return "k8s_rollout_undo";
        }

        @Override
        public String description() {
            return "Roll a deployment back to an earlier revision's pod template (toRevision; default the previous"
                    + " revision), like kubectl rollout undo. Needs a human's approval, which shows the deployment,"
                    + " what changes (images, env, resources) and its generation; refused when the deployment changed"
                    + " since. Find revisions with k8s_rollout_history.";
        }

        @Override
        String kind() {
            return "deployment";
        }

        @Override
        String nameField() {
            return "deployment";
        }

        @Override
        String ownProperties() {
            return "\"toRevision\":{\"type\":\"integer\",\"minimum\":1}";
        }

        @Override
        @SuppressWarnings("unchecked")
        Plan plan(HasMetadata current, JsonNode args) throws ToolException, InterruptedException {
            Deployment d = (Deployment) current;
            String ns = args.get("namespace").asString();
            List<Rollouts.Revision> revisions = Rollouts.revisions(d, (List<ReplicaSet>) list("replicasets", ns, null));
            int currentRevision = Rollouts.current(d, revisions);
            Rollouts.Revision target = null;
            if (args.hasNonNull("toRevision")) {
                target = Rollouts.byNumber(revisions).get(args.get("toRevision").asInt());
            } else {
                for (Rollouts.Revision r : revisions.reversed()) {
                    if (r.number() < currentRevision) {
                        target = r;
                        break;
                    }
                }
            }
            String where = "Deployment " + ns + "/" + d.getMetadata().getName();
            if (target == null) {
                throw new ToolException(
                        FailureCategory.EXECUTION_ERROR,
                        "k8s_no_such_revision",
                        Views.clip(
                                where + " has no revision "
                                        + (args.hasNonNull("toRevision")
                                                ? args.get("toRevision").asInt()
                                                : "before " + currentRevision)
                                        + " (revisions: "
                                        + revisions.stream()
                                                .map(Rollouts.Revision::number)
                                                .toList()
                                        + "); see k8s_rollout_history",
                                200));
            }
            if (target.number() == currentRevision) {
                throw new ToolException(
                        FailureCategory.EXECUTION_ERROR,
                        "k8s_already_at_revision",
                        where + " already runs revision " + currentRevision + "; nothing to undo");
            }
            List<String> changes = TemplateDiff.changes(d.getSpec().getTemplate(), target.template());
            ReplicaSet rs = target.replicaSet();
            ObjectNode bound = json.createObjectNode();
            bound.put("name", rs.getMetadata().getName());
            bound.put("uid", Objects.toString(rs.getMetadata().getUid(), ""));
            bound.put("resourceVersion", Objects.toString(rs.getMetadata().getResourceVersion(), ""));
            bound.put("revision", target.number());
            bound.put("templateHash", TemplateDiff.hash(target.template()));
            Rollouts.Revision from = Rollouts.byNumber(revisions).get(currentRevision);
            String fromImages =
                    Views.imageList(from != null ? from.template() : d.getSpec().getTemplate());
            PodTemplateSpec template = SERIALIZATION.clone(target.template());
            if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
                Map<String, String> labels =
                        new HashMap<>(template.getMetadata().getLabels());
                labels.remove("pod-template-hash"); // the ReplicaSet's own label, never the deployment's
                template.getMetadata().setLabels(labels);
            }
            int to = target.number();
            return new Plan(
                    "Roll back deployment " + ns + "/" + d.getMetadata().getName() + " from revision "
                            + currentRevision + " (" + fromImages + ") to revision " + to + " ("
                            + Views.imageList(target.template()) + ")",
                    changes.isEmpty() ? List.of("no difference in the pod template") : changes,
                    o -> {
                        Deployment c = copy(o);
                        c.getSpec().setTemplate(template);
                        Map<String, String> a = c.getMetadata().getAnnotations() == null
                                ? new HashMap<>()
                                : new HashMap<>(c.getMetadata().getAnnotations());
                        a.put(Views.CHANGE_CAUSE, "cadre: rollout undo to revision " + to);
                        c.getMetadata().setAnnotations(a);
                        return c;
                    },
                    bound);
        }
    }

    /** {@code k8s_scale}: a deployment's replica count. */
    static final class Scale extends WriteTool {
        Scale(KubernetesAccess k8s, JsonMapper json) {
            super(k8s, json);
        }

        @Override
        public String name() {
            return "k8s_scale";
        }

        @Override
        public String description() {
            return "Set a deployment's replica count. Needs a human's approval, which shows the deployment, the"
                    + " change (from → to) and its generation; refused when the deployment changed since.";
        }

        @Override
        String kind() {
            return "deployment";
        }

        @Override
        String nameField() {
            return "deployment";
        }

        @Override
        String ownProperties() {
            return "\"replicas\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000}";
        }

        @Override
        public JsonNode parametersSchema() {
            ObjectNode s = (ObjectNode) super.parametersSchema();
            s.withArray("required").add("replicas");
            return s;
        }

        @Override
        Plan plan(HasMetadata current, JsonNode args) {
            Deployment d = (Deployment) current;
            int from = d.getSpec() == null ? 0 : Views.orZero(d.getSpec().getReplicas());
            int to = args.get("replicas").asInt();
            return new Plan(
                    "Scale deployment " + args.get("namespace").asString() + "/"
                            + d.getMetadata().getName() + " from " + from + " to " + to + " replica(s)",
                    o -> {
                        Deployment c = copy(o);
                        c.getSpec().setReplicas(to);
                        return c;
                    });
        }

        /** Verified like a rollout: the deployment's ReplicaSet at the new count, every pod ready and stable. */
        @Override
        String verifying(String ns, String name, JsonNode args) {
            return "Scale of deployment " + ns + "/" + name + " to "
                    + args.path("replicas").asInt() + " replica(s)";
        }
    }

    /** {@code k8s_delete_pod}: one pod (its controller, if any, creates a replacement). */
    static final class DeletePod extends WriteTool {
        DeletePod(KubernetesAccess k8s, JsonMapper json) {
            super(k8s, json);
        }

        @Override
        public String name() {
            return "k8s_delete_pod";
        }

        @Override
        public String description() {
            return "Delete one pod; its controller (ReplicaSet, StatefulSet…) creates a replacement, a bare pod is"
                    + " gone. Needs a human's approval, which shows the pod and its uid; refused when the pod was"
                    + " replaced or changed since.";
        }

        @Override
        String kind() {
            return "pod";
        }

        @Override
        String nameField() {
            return "pod";
        }

        @Override
        String ownProperties() {
            return "";
        }

        @Override
        Plan plan(HasMetadata current, JsonNode args) {
            String owner = Views.owners(current);
            return new Plan(
                    "Delete pod " + args.get("namespace").asString() + "/"
                            + current.getMetadata().getName() + " ("
                            + Views.podStatus((Pod) current) + "; "
                            + (owner.isEmpty()
                                    ? "no controller: it is not recreated"
                                    : "owned by " + owner + ", which recreates it")
                            + ")",
                    null);
        }
    }
}
