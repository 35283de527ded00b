package dev.cadre.platform.mcp;

import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.runs.RunEvents;
import dev.cadre.platform.runs.RunService;
import dev.cadre.platform.web.ProblemWriter;
import dev.cadre.platform.web.SecretRedactor;
import dev.cadre.platform.web.SseHeartbeat;
import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Cadre's MCP server: the SDK's streamable-HTTP transport behind {@link McpEndpoint} (stream caps,
 * keep-alives, idle timeouts, session ownership and expiry), registered at {@code /mcp} beside
 * Spring MVC, so requests pass the same security filter chain (API keys, roles, rate limit) as REST.
 */
@Configuration(proxyBeanMethods = false)
class McpServerConfiguration {

    static final String ENDPOINT = "/mcp";

    // Closed by mcpShutdown, within a bound (the SDK's own destroy() blocks without one).
    @Bean(destroyMethod = "")
    HttpServletStreamableServerTransportProvider mcpSdkTransport(io.opentelemetry.api.OpenTelemetry openTelemetry) {
        return HttpServletStreamableServerTransportProvider.builder()
                .mcpEndpoint(ENDPOINT)
                .contextExtractor(request -> McpCaller.extract(request, openTelemetry))
                .build();
    }

    @Bean
    McpSessions mcpSessions(
            Clock clock,
            @Value("${cadre.mcp.session-idle-timeout:PT30M}") Duration idleTimeout,
            @Value("${cadre.mcp.max-sessions-per-key:10}") int maxPerKey) {
        return new McpSessions(clock, idleTimeout, maxPerKey);
    }

    @Bean
    McpTransport mcpTransport(HttpServletStreamableServerTransportProvider sdk, McpSessions sessions) {
        return new McpTransport(sdk, sessions);
    }

    @Bean
    McpEndpoint mcpEndpoint(
            HttpServletStreamableServerTransportProvider sdk,
            McpSessions sessions,
            SseHeartbeat caps,
            ProblemWriter problems,
            Clock clock,
            MeterRegistry meters,
            @Value("${cadre.sse.heartbeat-seconds:15}") long heartbeatSeconds) {
        McpEndpoint endpoint = new McpEndpoint(sdk, sessions, caps, problems, clock, heartbeatSeconds);
        meters.gauge("cadre.mcp.sessions", sessions, McpSessions::size);
        meters.gauge("cadre.mcp.streams", endpoint, McpEndpoint::openStreams);
        return endpoint;
    }

    @Bean
    ServletRegistrationBean<McpEndpoint> mcpServlet(McpEndpoint endpoint) {
        ServletRegistrationBean<McpEndpoint> registration = new ServletRegistrationBean<>(endpoint, ENDPOINT);
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
    SmartLifecycle mcpShutdown(McpAgentTools tools, McpEndpoint endpoint, McpTransport transport) {
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
                // Streams end first, here and now, whatever their clients do: nothing is left for the
                // web server's graceful shutdown to wait on.
                endpoint.stop();
                try {
                    transport.closeGracefully().block(Duration.ofSeconds(5));
                } catch (RuntimeException e) {
                    LoggerFactory.getLogger(McpServerConfiguration.class)
                            .warn("MCP sessions not closed within 5 s; stopping anyway: {}", e.toString());
                }
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
            McpTransport transport, McpAgentTools tools, @Value("${spring.application.name:cadre}") String name) {
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
