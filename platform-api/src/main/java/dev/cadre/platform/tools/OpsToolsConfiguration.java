package dev.cadre.platform.tools;

import dev.cadre.platform.agents.ToolProvider;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.observability.OutboundTraceContext;
import dev.cadre.platform.outbox.Outbox;
import dev.cadre.platform.outbox.OutboxChannel;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.ResourcePatternResolver;
import oshi.SystemInfo;
import tools.jackson.databind.json.JsonMapper;

/** The ops tools agents may be given by name: see docs/ops-team.md for each and its configuration. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({OpsToolsProperties.class, OpsToolsProperties.Runbooks.class, McpTools.Properties.class})
class OpsToolsConfiguration {

    @Bean
    Runbooks runbooks(OpsToolsProperties.Runbooks config, ResourcePatternResolver resolver) {
        if (config.installDemo()) {
            Runbooks.installDemo(config.dir(), resolver);
        }
        return new Runbooks(config.dir(), config.timeout());
    }

    /** The outbox channel notifications are delivered through ({@code cadre.tools.notify.webhook-url}). */
    @Bean
    OutboxChannel notifyChannel(OpsToolsProperties config) {
        return new OutboxChannel(
                Notifier.NOTIFY_CHANNEL,
                config.notification().webhookUrl(),
                config.notification().timeout());
    }

    /** The escalation pages' channel ({@code cadre.tools.notify.escalation-url}, default the webhook). */
    @Bean
    OutboxChannel escalationChannel(OpsToolsProperties config) {
        return new OutboxChannel(
                Notifier.ESCALATION_CHANNEL,
                config.notification().escalationUrl(),
                config.notification().timeout());
    }

    @Bean
    Notifier notifier(
            OpsToolsProperties config,
            @Value("${cadre.public-url:}") String publicUrl,
            Outbox outbox,
            JsonMapper json,
            Clock clock,
            IncidentService incidents,
            dev.cadre.platform.web.SecretRedactor redactor) {
        Notifier notifier =
                new Notifier(config.notification(), publicUrl(publicUrl), outbox, json, clock, incidents, redactor);
        incidents.addListener(notifier);
        outbox.addListener(notifier);
        return notifier;
    }

    /** {@code cadre.public-url}: absolute http(s), no query or fragment, no trailing slash; null when unset. */
    static @Nullable URI publicUrl(String value) {
        if (value.isBlank()) {
            return null;
        }
        String v = value.strip().replaceAll("/+$", "");
        try {
            URI u = new URI(v);
            if ((!"http".equals(u.getScheme()) && !"https".equals(u.getScheme()))
                    || u.getHost() == null
                    || u.getRawQuery() != null
                    || u.getRawFragment() != null) {
                throw new URISyntaxException(v, "not an absolute http(s) URL without query or fragment");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("cadre.public-url must be an absolute http(s) URL without query or"
                    + " fragment (where people open the console, e.g. https://cadre.example.com), was '" + value + "'");
        }
    }

    @Bean(destroyMethod = "close")
    McpTools mcpTools(
            McpTools.Properties config,
            @org.springframework.beans.factory.annotation.Value("${cadre.tools.mcp.enabled:true}") boolean enabled,
            JsonMapper json,
            org.springframework.beans.factory.ObjectProvider<io.opentelemetry.api.OpenTelemetry> openTelemetry) {
        // Off (the replay command line): no configured MCP server is started or reached.
        return new McpTools(
                enabled ? config : new McpTools.Properties(java.util.Map.of()),
                json,
                new OutboundTraceContext(openTelemetry.getIfAvailable(io.opentelemetry.api.OpenTelemetry::noop)));
    }

    @Bean
    ToolProvider mcpToolProvider(McpTools mcp) {
        return ToolProvider.of("mcp", mcp::tools);
    }

    @Bean
    ToolProvider opsTools(
            OpsToolsProperties config,
            OpsToolsProperties.Runbooks runbookConfig,
            Runbooks runbooks,
            Notifier notifier,
            IncidentService incidents,
            ApprovalService approvals,
            JsonMapper json,
            Clock clock,
            org.springframework.beans.factory.ObjectProvider<io.opentelemetry.api.OpenTelemetry> openTelemetry) {
        HttpClient prometheusHttp = HttpClient.newBuilder()
                .connectTimeout(config.prometheus().timeout())
                .build();
        SystemInfo system = new SystemInfo();
        PrometheusClient prometheus = new PrometheusClient(
                config.prometheus(),
                prometheusHttp,
                json,
                openTelemetry.getIfAvailable(io.opentelemetry.api.OpenTelemetry::noop));
        HostSignals signals = new HostSignals(prometheus, config.hostMetrics(), json);
        List<dev.cadre.agent.tool.Tool> tools = List.of(
                new PrometheusQueryTool(config.prometheus(), prometheusHttp, json, clock),
                new HostTargetTool(prometheus, json, clock),
                new HostInspectTool(signals, config.hostInspect(), clock),
                new HostVerifyTool(prometheus, incidents, runbooks, config.hostInspect(), json, clock),
                new HttpProbeTool(config.probe(), json, clock),
                new HostMetricsTool(system, config.hostMetrics(), json),
                new RunbookExecuteTool(
                        runbooks,
                        incidents,
                        runbookConfig.maxOutputChars(),
                        runbookConfig.environment(),
                        json,
                        new SshRunbookRunner(runbookConfig.ssh())),
                new NotifyTool(
                        notifier,
                        incidents,
                        approvals,
                        json,
                        config.notification().timeout()),
                new AskHumanTool(approvals, json),
                new FindingsAggregateTool(json));
        return () -> tools;
    }
}
