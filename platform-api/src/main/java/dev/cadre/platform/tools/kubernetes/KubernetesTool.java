package dev.cadre.platform.tools.kubernetes;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * What every Kubernetes tool, read or write, stands on: the {@link KubernetesAccess} (the client, the
 * calling agent's namespace allowlist, failures in the taxonomy), the namespace argument checked
 * against that allowlist before any request, typed reads of one object or a list by kind, the
 * "not found" answer the model can act on, and the schema fragments of a namespace and a name.
 */
abstract class KubernetesTool implements Tool {

    /** A DNS-1123 label: what a namespace, a container and a service are named by (at most 63). */
    static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    /** A DNS-1123 subdomain: what pods, deployments, ReplicaSets, nodes… are named by (at most 253). */
    static final Pattern SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    static final String NS = "\"namespace\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":63,"
            + "\"pattern\":\"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\"}";
    static final String NAME = "{\"type\":\"string\",\"minLength\":1,\"maxLength\":253,"
            + "\"pattern\":\"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$\"}";
    static final String LABEL_NAME = "{\"type\":\"string\",\"minLength\":1,\"maxLength\":63,"
            + "\"pattern\":\"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\"}";

    final KubernetesAccess k8s;
    final JsonMapper json;

    KubernetesTool(KubernetesAccess k8s, JsonMapper json) {
        this.k8s = k8s;
        this.json = json;
    }

    /**
     * The {@code namespace} argument, refused (nothing sent to the API server) when the calling agent
     * may not reach it; {@code whenMissing} is the error when the call has none.
     */
    String namespace(JsonNode args, ToolContext ctx, String whenMissing) throws ToolException {
        if (!args.hasNonNull("namespace")) {
            throw new ToolException(FailureCategory.EXECUTION_ERROR, "invalid_arguments", whenMissing);
        }
        String ns = args.get("namespace").asString();
        checkName("namespace", ns, true);
        k8s.checkNamespace(ns, ctx);
        return ns;
    }

    /**
     * Refuses a name that is not a Kubernetes object name (DNS-1123 label or subdomain) before any
     * request: a name is put into the request's path, where {@code ..}, {@code /} or {@code ?} would
     * reach another object or another endpoint than the one asked and allowed.
     */
    static void checkName(String field, String value, boolean label) throws ToolException {
        Pattern p = label ? LABEL : SUBDOMAIN;
        int max = label ? 63 : 253;
        if (value.length() > max || !p.matcher(value).matches()) {
            String shown = value.length() > 80 ? value.substring(0, 79) + "…" : value;
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "invalid_arguments",
                    field + " '" + shown + "' is not a Kubernetes name ("
                            + (label
                                    ? "DNS-1123 label: a-z, 0-9 and '-', at most 63"
                                    : "DNS-1123 subdomain: a-z, 0-9, '-' and '.', at most 253")
                            + ", starting and ending with a letter or digit; no '/', '..' or '?'); nothing was sent");
        }
    }

    /** The kinds whose names are DNS-1123 labels; every other kind here is named by a subdomain. */
    static boolean labelNamed(String kind) {
        String k = kind.toLowerCase(Locale.ROOT);
        return k.equals("service") || k.equals("services") || k.equals("namespace") || k.equals("namespaces");
    }

    /** The object of one kind, by name; null when it does not exist. */
    @Nullable
    HasMetadata getOne(String kind, @Nullable String ns, String name) throws ToolException, InterruptedException {
        checkName(kind.toLowerCase(Locale.ROOT) + " name", name, labelNamed(kind));
        if (ns != null) {
            checkName("namespace", ns, true);
        }
        String resource = plural(kind);
        return k8s.call("get", resource, ns, c -> switch (resource) {
            case "pods" -> c.pods().inNamespace(ns).withName(name).get();
            case "deployments" ->
                c.apps().deployments().inNamespace(ns).withName(name).get();
            case "replicasets" ->
                c.apps().replicaSets().inNamespace(ns).withName(name).get();
            case "statefulsets" ->
                c.apps().statefulSets().inNamespace(ns).withName(name).get();
            case "daemonsets" ->
                c.apps().daemonSets().inNamespace(ns).withName(name).get();
            case "jobs" -> c.batch().v1().jobs().inNamespace(ns).withName(name).get();
            case "services" -> c.services().inNamespace(ns).withName(name).get();
            case "nodes" -> c.nodes().withName(name).get();
            case "events" -> c.v1().events().inNamespace(ns).withName(name).get();
            default -> throw new IllegalArgumentException("unknown kind " + kind);
        });
    }

    /** The objects of one resource (plural kind) in a namespace, optionally by label selector. */
    List<? extends HasMetadata> list(String resource, @Nullable String ns, @Nullable String selector)
            throws ToolException, InterruptedException {
        var options = new ListOptionsBuilder().withLabelSelector(selector).build();
        List<? extends HasMetadata> items = k8s.call("list", resource, ns, c -> switch (resource) {
            case "pods" -> c.pods().inNamespace(ns).list(options).getItems();
            case "deployments" ->
                c.apps().deployments().inNamespace(ns).list(options).getItems();
            case "replicasets" ->
                c.apps().replicaSets().inNamespace(ns).list(options).getItems();
            case "statefulsets" ->
                c.apps().statefulSets().inNamespace(ns).list(options).getItems();
            case "daemonsets" ->
                c.apps().daemonSets().inNamespace(ns).list(options).getItems();
            case "jobs" -> c.batch().v1().jobs().inNamespace(ns).list(options).getItems();
            case "services" -> c.services().inNamespace(ns).list(options).getItems();
            case "nodes" -> c.nodes().list(options).getItems();
            case "events" -> c.v1().events().inNamespace(ns).list(options).getItems();
            default -> throw new IllegalArgumentException("unknown resource " + resource);
        });
        return items == null ? List.of() : items;
    }

    @SuppressWarnings("unchecked")
    List<Event> events(String ns) throws ToolException, InterruptedException {
        return (List<Event>) list("events", ns, null);
    }

    static String plural(String kind) {
        String k = kind.toLowerCase(Locale.ROOT);
        return k.endsWith("s") ? k : k + "s";
    }

    ObjectNode notFound(String kind, @Nullable String ns, String name) {
        ObjectNode o = json.createObjectNode();
        o.put("found", false);
        o.put("kind", kind);
        if (ns != null) {
            o.put("namespace", ns);
        }
        o.put("name", name);
        o.put(
                "hint",
                "no " + kind + " '" + name + "'" + (ns == null ? "" : " in namespace " + ns)
                        + ": list them with k8s_get (it may have been replaced under another name)");
        return o;
    }
}
