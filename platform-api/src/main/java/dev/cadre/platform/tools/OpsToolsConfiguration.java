package dev.cadre.platform.tools;

import dev.cadre.platform.agents.ToolProvider;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.observability.OutboundTraceContext;
import java.net.http.HttpClient;
import java.time.Clock;
import java.util.List;
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

    @Bean
    Notifier notifier(
            OpsToolsProperties config,
            JsonMapper json,
            Clock clock,
            IncidentService incidents,
            dev.cadre.platform.web.SecretRedactor redactor) {
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(config.notification().timeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        Notifier notifier = new Notifier(config.notification(), http, json, clock, incidents, redactor);
        incidents.addListener(notifier);
        return notifier;
    }

    @Bean(destroyMethod = "close")
    McpTools mcpTools(
            McpTools.Properties config,
            JsonMapper json,
            org.springframework.beans.factory.ObjectProvider<io.opentelemetry.api.OpenTelemetry> openTelemetry) {
        return new McpTools(
                config,
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
            Clock clock) {
        HttpClient prometheusHttp = HttpClient.newBuilder()
                .connectTimeout(config.prometheus().timeout())
                .build();
        SystemInfo system = new SystemInfo();
        List<dev.cadre.agent.tool.Tool> tools = List.of(
                new PrometheusQueryTool(config.prometheus(), prometheusHttp, json, clock),
                new HttpProbeTool(config.probe(), json, clock),
                new HostMetricsTool(system, config.hostMetrics(), json),
                new RunbookExecuteTool(
                        runbooks, incidents, runbookConfig.maxOutputChars(), runbookConfig.environment(), json),
                new NotifyTool(notifier, incidents, json),
                new AskHumanTool(approvals, json),
                new FindingsAggregateTool(json));
        return () -> tools;
    }
}
