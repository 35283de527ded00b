package dev.cadre.platform.tools.kubernetes;

import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;

/**
 * {@code cadre.tools.kubernetes.*}: which cluster the Kubernetes tools reach. {@code kubeconfig} (a file)
 * with an optional {@code context} (default: the file's current context), or {@code in-cluster: true}
 * (the pod's service account). Neither: the tools answer that Kubernetes is not configured.
 *
 * @param requestTimeout how long one API request may take (then {@code TIMEOUT_ERROR})
 * @param maxRows the most rows {@code k8s_get} shows (it says how many were left out)
 * @param maxLogChars the most characters of log {@code k8s_logs} returns (the newest are kept)
 * @param maxEvents the most events {@code k8s_describe} shows, newest first
 * @param verifyTimeout how long an approved rollout (undo, restart) is watched for its new pods to be
 *     ready and their restarts to stop before it is called failed or timed out (default 5 minutes)
 * @param verifyPollInterval how often that watch reads the deployment and its pods (default 5 seconds)
 */
@ConfigurationProperties("cadre.tools.kubernetes")
public record KubernetesProperties(
        @Nullable Path kubeconfig,
        @Nullable String context,
        @Nullable Boolean inCluster,
        @Nullable Duration requestTimeout,
        @Nullable Duration connectTimeout,
        int maxRows,
        int maxLogChars,
        int maxEvents,
        @Nullable Duration verifyTimeout,
        @Nullable Duration verifyPollInterval) {

    /** Without the rollout watch's settings (their defaults). */
    public KubernetesProperties(
            @Nullable Path kubeconfig,
            @Nullable String context,
            @Nullable Boolean inCluster,
            @Nullable Duration requestTimeout,
            @Nullable Duration connectTimeout,
            int maxRows,
            int maxLogChars,
            int maxEvents) {
        this(
                kubeconfig,
                context,
                inCluster,
                requestTimeout,
                connectTimeout,
                maxRows,
                maxLogChars,
                maxEvents,
                null,
                null);
    }

    @ConstructorBinding
    public KubernetesProperties {
        context = context == null || context.isBlank() ? null : context.trim();
        inCluster = inCluster != null && inCluster;
        requestTimeout = requestTimeout == null ? Duration.ofSeconds(15) : requestTimeout;
        connectTimeout = connectTimeout == null ? Duration.ofSeconds(5) : connectTimeout;
        if (requestTimeout.isNegative()
                || requestTimeout.isZero()
                || connectTimeout.isNegative()
                || connectTimeout.isZero()) {
            throw new IllegalArgumentException(
                    "cadre.tools.kubernetes.request-timeout and connect-timeout must be positive");
        }
        if (kubeconfig != null && inCluster) {
            throw new IllegalArgumentException(
                    "cadre.tools.kubernetes: set either kubeconfig (with context) or in-cluster=true, not both");
        }
        maxRows = maxRows <= 0 ? 50 : maxRows;
        maxLogChars = maxLogChars <= 0 ? 12_000 : maxLogChars;
        maxEvents = maxEvents <= 0 ? 15 : maxEvents;
        verifyTimeout = verifyTimeout == null ? Duration.ofMinutes(5) : verifyTimeout;
        verifyPollInterval = verifyPollInterval == null ? Duration.ofSeconds(5) : verifyPollInterval;
        if (verifyTimeout.isNegative()
                || verifyPollInterval.isNegative()
                || verifyPollInterval.isZero()
                || verifyPollInterval.compareTo(verifyTimeout) > 0) {
            throw new IllegalArgumentException("cadre.tools.kubernetes.verify-poll-interval must be positive and at"
                    + " most cadre.tools.kubernetes.verify-timeout (" + verifyTimeout + ")");
        }
    }

    /** Whether a cluster is configured at all. */
    public boolean configured() {
        return kubeconfig != null || Boolean.TRUE.equals(inCluster);
    }

    /** Where the tools point, for messages and the start-up log (never a credential). */
    public String describe() {
        if (kubeconfig != null) {
            return "kubeconfig " + kubeconfig + (context == null ? "" : " context " + context);
        }
        return Boolean.TRUE.equals(inCluster) ? "the in-cluster service account" : "nothing";
    }
}
