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

    static final String NS = "\"namespace\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":63}";
    static final String NAME = "{\"type\":\"string\",\"minLength\":1,\"maxLength\":253}";

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
        k8s.checkNamespace(ns, ctx);
        return ns;
    }

    /** The object of one kind, by name; null when it does not exist. */
    @Nullable
    HasMetadata getOne(String kind, @Nullable String ns, String name) throws ToolException, InterruptedException {
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
