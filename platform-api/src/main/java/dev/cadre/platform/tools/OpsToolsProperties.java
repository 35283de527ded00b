package dev.cadre.platform.tools;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Name;

/**
 * Configuration of the ops tools ({@code cadre.tools.*}, {@code cadre.runbooks.*}); every field has a
 * default that works in the embedded run without network. See docs/ops-team.md.
 */
@ConfigurationProperties("cadre.tools")
public record OpsToolsProperties(
        @Nullable Prometheus prometheus,
        @Nullable Probe probe,
        @Nullable HostMetrics hostMetrics,
        @Name("notify") @Nullable Notify notification,
        @Nullable HostInspect hostInspect) {

    public OpsToolsProperties {
        prometheus = prometheus == null ? new Prometheus(null, null, 0) : prometheus;
        probe = probe == null ? new Probe(null, null, null) : probe;
        hostMetrics = hostMetrics == null ? new HostMetrics(null, null, null, null, null, null, null) : hostMetrics;
        notification = notification == null ? new Notify(null, null, null, null) : notification;
        hostInspect = hostInspect == null ? new HostInspect(null, null, null) : hostInspect;
    }

    /**
     * {@code cadre.tools.host-inspect.*}: how host_inspect reads a host's node_exporter series in
     * Prometheus — {@code window} around the alert's start (default 10m; the last {@code window} for a
     * request without an alert) compared with the {@code baseline} before it (default 3h); {@code settle}:
     * how long after a repair host_verify waits before it re-queries (default 2m: several scrapes). Severity
     * thresholds are those of {@code cadre.tools.host-metrics}.
     */
    public record HostInspect(
            @Nullable Duration window,
            @Nullable Duration baseline,
            @Nullable Duration settle) {
        public HostInspect {
            settle = settle == null ? Duration.ofMinutes(2) : settle;
            window = window == null ? Duration.ofMinutes(10) : window;
            baseline = baseline == null ? Duration.ofHours(3) : baseline;
            if (window.compareTo(Duration.ofMinutes(1)) < 0 || baseline.compareTo(window) < 0) {
                throw new IllegalArgumentException(
                        "cadre.tools.host-inspect.window must be at least 1m and baseline at least the window");
            }
        }
    }

    /** {@code cadre.tools.prometheus.url}: the Prometheus HTTP API (empty: the tool says it is not configured). */
    public record Prometheus(@Nullable URI url, @Nullable Duration timeout, int maxSeries) {
        public Prometheus {
            timeout = timeout == null ? Duration.ofSeconds(15) : timeout;
            maxSeries = maxSeries <= 0 ? 50 : maxSeries;
        }
    }

    /**
     * {@code cadre.tools.probe.*}: {@code timeout} of a probe that asks for none, {@code max-timeout} the
     * most a model may ask for, {@code allow} the hosts and address blocks it may reach (see
     * {@link ProbeTargets}; empty: public addresses only).
     */
    public record Probe(
            @Nullable Duration timeout,
            @Nullable Duration maxTimeout,
            @Nullable List<String> allow) {
        public Probe {
            maxTimeout = maxTimeout == null ? Duration.ofSeconds(10) : maxTimeout;
            timeout = timeout == null ? Duration.ofSeconds(5) : timeout;
            if (timeout.isNegative() || timeout.isZero() || maxTimeout.isNegative() || maxTimeout.isZero()) {
                throw new IllegalArgumentException("cadre.tools.probe.timeout and max-timeout must be positive");
            }
            timeout = timeout.compareTo(maxTimeout) > 0 ? maxTimeout : timeout;
            allow = allow == null ? List.of() : List.copyOf(allow);
        }
    }

    /** Thresholds (ratios 0..1) of host_metrics findings: warn → high, critical → critical. */
    public record HostMetrics(
            @Nullable Double cpuWarn,
            @Nullable Double cpuCritical,
            @Nullable Double memoryWarn,
            @Nullable Double memoryCritical,
            @Nullable Double diskWarn,
            @Nullable Double diskCritical,
            @Nullable Long sampleMillis) {
        public HostMetrics {
            cpuWarn = cpuWarn == null ? 0.85 : cpuWarn;
            cpuCritical = cpuCritical == null ? 0.97 : cpuCritical;
            memoryWarn = memoryWarn == null ? 0.85 : memoryWarn;
            memoryCritical = memoryCritical == null ? 0.95 : memoryCritical;
            diskWarn = diskWarn == null ? 0.85 : diskWarn;
            diskCritical = diskCritical == null ? 0.95 : diskCritical;
            sampleMillis = sampleMillis == null || sampleMillis <= 0 ? 300 : sampleMillis;
        }
    }

    /**
     * {@code cadre.tools.notify.*}: where notifications go ({@code webhook-url}; {@code format} {@code json}
     * or {@code slack}) and where escalations go ({@code escalation-url}, default the same webhook).
     */
    public record Notify(
            @Nullable URI webhookUrl,
            @Nullable String format,
            @Nullable URI escalationUrl,
            @Nullable Duration timeout) {
        public Notify {
            format = format == null || format.isBlank() ? "json" : format.trim().toLowerCase(java.util.Locale.ROOT);
            if (!format.equals("json") && !format.equals("slack")) {
                throw new IllegalArgumentException("cadre.tools.notify.format must be json or slack, was " + format);
            }
            escalationUrl = escalationUrl == null ? webhookUrl : escalationUrl;
            timeout = timeout == null ? Duration.ofSeconds(10) : timeout;
        }
    }

    /**
     * {@code cadre.runbooks.*}: the directory runbook_execute may run scripts from, its limits, and
     * {@code environment}: the names of the platform's environment variables a runbook inherits
     * (nothing else is passed; default {@link #DEFAULT_ENVIRONMENT}).
     */
    @ConfigurationProperties("cadre.runbooks")
    public record Runbooks(
            @Nullable Path dir,
            @Nullable Boolean installDemo,
            @Nullable Duration timeout,
            int maxOutputChars,
            @Nullable List<String> environment,
            @Nullable Ssh ssh) {

        /** What a shell script needs to run and nothing that could hold a credential. */
        public static final List<String> DEFAULT_ENVIRONMENT = List.of("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR");

        public Runbooks {
            environment = environment == null ? DEFAULT_ENVIRONMENT : List.copyOf(environment);
            for (String name : environment) {
                if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    throw new IllegalArgumentException(
                            "cadre.runbooks.environment: '" + name + "' is not an environment variable name");
                }
            }
            dir = dir == null ? Path.of("data", "runbooks") : dir;
            installDemo = installDemo == null || installDemo;
            timeout = timeout == null ? Duration.ofMinutes(2) : timeout;
            maxOutputChars = maxOutputChars <= 0 ? 8000 : maxOutputChars;
            ssh = ssh == null ? new Ssh(null, null, null, 0, null, null) : ssh;
        }
    }

    /**
     * {@code cadre.runbooks.ssh.*}: how runbooks with {@code target: alert-host} reach the host — {@code user}
     * (default {@code cadre}), {@code key} (the dedicated private key file), {@code known-hosts} (an OpenSSH
     * known_hosts file holding each host's key under the host's name), {@code port} (default 22),
     * {@code connect-timeout} (default 10s) and {@code addresses} (host name → address[:port] to connect to,
     * when the name the alerts use does not resolve; the key is still checked under the name).
     */
    public record Ssh(
            @Nullable String user,
            @Nullable Path key,
            @Nullable Path knownHosts,
            int port,
            @Nullable Duration connectTimeout,
            java.util.@Nullable Map<String, String> addresses) {
        public Ssh {
            user = user == null || user.isBlank() ? "cadre" : user;
            port = port <= 0 ? 22 : port;
            connectTimeout = connectTimeout == null ? Duration.ofSeconds(10) : connectTimeout;
            addresses = addresses == null ? java.util.Map.of() : java.util.Map.copyOf(addresses);
        }
    }
}
