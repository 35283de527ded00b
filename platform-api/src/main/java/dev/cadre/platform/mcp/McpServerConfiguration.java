package dev.cadre.platform.mcp;

import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.runs.RunEvents;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.web.SecretRedactor;
import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Cadre's MCP server: the SDK's streamable-HTTP servlet registered at {@code /mcp} beside Spring
 * MVC, so requests pass the same security filter chain (API keys, roles, rate limit) as REST.
 */
@Configuration(proxyBeanMethods = false)
class McpServerConfiguration {

    static final String ENDPOINT = "/mcp";

    @Bean(destroyMethod = "destroy")
    HttpServletStreamableServerTransportProvider mcpTransport(io.opentelemetry.api.OpenTelemetry openTelemetry) {
        return HttpServletStreamableServerTransportProvider.builder()
                .mcpEndpoint(ENDPOINT)
                .contextExtractor(request -> McpCaller.extract(request, openTelemetry))
                .build();
    }

    @Bean
    ServletRegistrationBean<HttpServletStreamableServerTransportProvider> mcpServlet(
            HttpServletStreamableServerTransportProvider transport) {
        ServletRegistrationBean<HttpServletStreamableServerTransportProvider> registration =
                new ServletRegistrationBean<>(transport, ENDPOINT);
        registration.setName("mcp");
        registration.setAsyncSupported(true);
        return registration;
    }

    @Bean
    McpAgentTools mcpAgentTools(
            AgentCatalog catalog,
            RunService runs,
            RunEvents events,
            ApprovalService approvals,
            SecretRedactor redactor,
            AuditLog audit,
            MeterRegistry meters,
            @Value("${cadre.mcp.call-timeout:10m}") Duration callTimeout) {
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("cadre.mcp.call-timeout must be positive, was " + callTimeout);
        }
        return new McpAgentTools(catalog, runs, events, approvals, redactor, audit, meters, callTimeout);
    }

    /**
     * Before the web server's graceful shutdown waits for open requests: waiting calls answer now and
     * the transport completes the sessions' open streams (a GET stream stays open as long as its client).
     */
    @Bean
    SmartLifecycle mcpShutdown(McpAgentTools tools, HttpServletStreamableServerTransportProvider transport) {
        return new SmartLifecycle() {
            private volatile boolean running;

            @Override
            public void start() {
                running = true;
            }

            @Override
            public void stop() {
                running = false;
                tools.stop();
                transport.closeGracefully().block(Duration.ofSeconds(5));
            }

            @Override
            public boolean isRunning() {
                return running;
            }

            // A closed transport cannot be opened again: only a shutdown may close it, never a pause
            // (Spring pauses idle contexts, e.g. those its test context cache keeps).
            @Override
            public boolean isPauseable() {
                return false;
            }
        };
    }

    @Bean(destroyMethod = "close")
    McpSyncServer mcpServer(
            HttpServletStreamableServerTransportProvider transport,
            McpAgentTools tools,
            @Value("${spring.application.name:cadre}") String name) {
        return McpServer.sync(transport)
                .serverInfo(
                        name,
                        McpServerConfiguration.class.getPackage().getImplementationVersion() == null
                                ? "dev"
                                : McpServerConfiguration.class.getPackage().getImplementationVersion())
                .capabilities(
                        McpSchema.ServerCapabilities.builder().tools(false).build())
                .instructions("Each tool runs one of Cadre's agents or workflows on 'input' (and optional 'context')"
                        + " and answers with its result. A run that needs a human's approval answers with the"
                        + " approval to decide.")
                .tools(tools.specifications())
                // A run may take minutes: progress notifications tell the client it is alive.
                .requestTimeout(Duration.ofMinutes(15))
                .build();
    }
}
