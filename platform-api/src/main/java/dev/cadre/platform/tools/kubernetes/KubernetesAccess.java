package dev.cadre.platform.tools.kubernetes;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * The one way the Kubernetes tools reach the API server: the configured client, the calling agent's
 * namespace allowlist (checked before any request), and every client failure turned into one failure
 * category — unreachable or TLS is {@code COMMUNICATION_ERROR}, a 403 is {@code EXECUTION_ERROR} naming
 * verb, resource and namespace, a time-out is {@code TIMEOUT_ERROR}, a 409 {@code STATE_INCONSISTENCY};
 * a 404 is no failure but {@code null}, which each tool answers as "not found".
 */
public final class KubernetesAccess implements AutoCloseable {

    /** An agent's allowed namespaces (its YAML {@code kubernetes.namespaces}). */
    @FunctionalInterface
    public interface Reach {
        List<String> namespacesOf(String agent);
    }

    private final KubernetesProperties config;
    private final @Nullable KubernetesClient client;
    private final Reach reach;

    /** Builds the client from the configuration (no request is sent); a bad kubeconfig fails here. */
    public KubernetesAccess(KubernetesProperties config, Reach reach) {
        this.config = config;
        this.reach = reach;
        this.client = config.configured() ? build(config) : null;
    }

    private static KubernetesClient build(KubernetesProperties config) {
        Config base;
        if (config.kubeconfig() != null) {
            if (!Files.isReadable(config.kubeconfig())) {
                throw new IllegalArgumentException(
                        "cadre.tools.kubernetes.kubeconfig: no readable file at " + config.kubeconfig());
            }
            base = Config.fromKubeconfig(config.context(), config.kubeconfig().toFile());
            if (config.context() != null
                    && (base.getCurrentContext() == null
                            || !config.context().equals(base.getCurrentContext().getName()))) {
                throw new IllegalArgumentException("cadre.tools.kubernetes.context: no context '" + config.context()
                        + "' in " + config.kubeconfig());
            }
        } else {
            base = Config.autoConfigure(null);
        }
        Config tuned = new ConfigBuilder(base)
                .withRequestTimeout((int) config.requestTimeout().toMillis())
                .withConnectionTimeout((int) config.connectTimeout().toMillis())
                // A tool call answers now; the agent's loop decides whether to try again.
                .withRequestRetryBackoffLimit(0)
                .build();
        return new KubernetesClientBuilder()
                .withConfig(tuned)
                .withHttpClientFactory(new JdkHttpClientFactory())
                .build();
    }

    /** The settings in force. */
    public KubernetesProperties config() {
        return config;
    }

    /** The client, or a tool error saying Kubernetes is not configured. */
    KubernetesClient client() throws ToolException {
        if (client == null) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "kubernetes_not_configured",
                    "Kubernetes is not configured: set cadre.tools.kubernetes.kubeconfig (and context) or"
                            + " cadre.tools.kubernetes.in-cluster=true (see docs/kubernetes.md)");
        }
        return client;
    }

    /** Refuses a namespace the calling agent's YAML does not list; nothing is sent to the API server. */
    void checkNamespace(String namespace, ToolContext ctx) throws ToolException {
        client(); // "not configured" first: it is the more useful answer
        List<String> allowed = reach.namespacesOf(ctx.agent());
        if (!allowed(allowed, namespace)) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "namespace_not_allowed",
                    "agent " + ctx.agent() + " may not reach Kubernetes namespace '" + namespace + "' (allowed: "
                            + allowed + "; the agent's YAML field kubernetes.namespaces lists them)");
        }
    }

    /** Cluster-scoped reads (nodes) are open to an agent with any namespace reach at all. */
    void checkClusterRead(ToolContext ctx) throws ToolException {
        client();
        if (reach.namespacesOf(ctx.agent()).isEmpty()) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "namespace_not_allowed",
                    "agent " + ctx.agent() + " has no Kubernetes reach (the agent's YAML field"
                            + " kubernetes.namespaces is empty)");
        }
    }

    static boolean allowed(List<String> allowed, String namespace) {
        return allowed.stream()
                .anyMatch(a ->
                        a.endsWith("*") ? namespace.startsWith(a.substring(0, a.length() - 1)) : a.equals(namespace));
    }

    /**
     * Runs one request; a 404 answers {@code null}, every other failure a {@link ToolException} of its
     * category. {@code verb}, {@code resource} and {@code namespace} name the request in messages (so a
     * 403 says which Role to grant).
     */
    <T> @Nullable T call(
            String verb, String resource, @Nullable String namespace, Function<KubernetesClient, T> request)
            throws ToolException, InterruptedException {
        KubernetesClient c = client();
        try {
            return request.apply(c);
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return null;
            }
            throw failure(e, verb, resource, namespace);
        }
    }

    /** As {@link #call} for requests that answer nothing. */
    void run(String verb, String resource, @Nullable String namespace, Supplier<?> request)
            throws ToolException, InterruptedException {
        call(verb, resource, namespace, c -> request.get());
    }

    static ToolException failure(KubernetesClientException e, String verb, String resource, @Nullable String namespace)
            throws InterruptedException {
        String where = verb + " " + resource + (namespace == null ? " (cluster scope)" : " in namespace " + namespace);
        String server = e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage()
                : firstLine(e.getMessage());
        int code = e.getCode();
        if (code == 403) {
            return new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "k8s_forbidden",
                    clip("RBAC forbids " + where + " for Cadre's account: grant verb '" + verb + "' on '" + resource
                            + "' (docs/kubernetes.md). Server: " + server));
        }
        if (code == 401) {
            return new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "k8s_unauthorized",
                    clip("the API server did not accept Cadre's credentials for " + where + ": " + server));
        }
        if (code == 409) {
            return new ToolException(
                    FailureCategory.STATE_INCONSISTENCY,
                    "k8s_conflict",
                    clip("the object changed while " + where + " ran (HTTP 409); read it again: " + server));
        }
        if (code == 504 || code == 408) {
            return new ToolException(
                    FailureCategory.TIMEOUT_ERROR, "k8s_timeout", clip("the API server timed out on " + where));
        }
        if (code >= 400) {
            return new ToolException(
                    code >= 500 ? FailureCategory.COMMUNICATION_ERROR : FailureCategory.EXECUTION_ERROR,
                    "k8s_http_" + code,
                    clip("the API server answered HTTP " + code + " to " + where + ": " + server));
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                throw new InterruptedException("interrupted during " + where);
            }
            if (t instanceof HttpTimeoutException
                    || t instanceof TimeoutException
                    || t instanceof InterruptedIOException) {
                return new ToolException(
                        FailureCategory.TIMEOUT_ERROR,
                        "k8s_timeout",
                        clip("no answer from the Kubernetes API server within the request timeout for " + where));
            }
            if (t instanceof SSLException) {
                return new ToolException(
                        FailureCategory.COMMUNICATION_ERROR,
                        "k8s_tls",
                        clip("TLS with the Kubernetes API server failed for " + where + ": "
                                + firstLine(t.getMessage())));
            }
            if (t instanceof ConnectException || t instanceof UnknownHostException) {
                return new ToolException(
                        FailureCategory.COMMUNICATION_ERROR,
                        "k8s_unreachable",
                        clip("the Kubernetes API server is unreachable ("
                                + t.getClass().getSimpleName() + ") for " + where));
            }
        }
        boolean io = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            io |= t instanceof IOException;
        }
        return new ToolException(
                io ? FailureCategory.COMMUNICATION_ERROR : FailureCategory.EXECUTION_ERROR,
                io ? "k8s_unreachable" : "k8s_error",
                clip((io ? "the Kubernetes API server could not be reached for " : "the request failed: ") + where
                        + ": " + firstLine(e.getMessage())));
    }

    private static String firstLine(@Nullable String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** A failure message stays within the 200 characters a result's error carries. */
    private static String clip(String s) {
        return s.length() <= 200 ? s : s.substring(0, 199) + "…";
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
    }
}
