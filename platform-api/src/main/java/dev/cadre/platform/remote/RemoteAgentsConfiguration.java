package dev.cadre.platform.remote;

import dev.cadre.agent.tool.Tool;
import dev.cadre.platform.agents.ToolProvider;
import dev.cadre.platform.observability.OutboundTraceContext;
import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** One {@code a2a_<name>} tool per configured remote agent; none by default. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RemoteAgentsProperties.class)
class RemoteAgentsConfiguration {

    @Bean
    ToolProvider remoteAgentTools(
            RemoteAgentsProperties config, JsonMapper json, ObjectProvider<OpenTelemetry> openTelemetry) {
        if (config.agents().isEmpty()) {
            return List::of;
        }
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        OutboundTraceContext trace = new OutboundTraceContext(openTelemetry.getIfAvailable(OpenTelemetry::noop));
        List<Tool> tools = new ArrayList<>();
        config.agents().forEach((name, remote) -> tools.add(new RemoteAgentTool(name, remote, http, json, trace)));
        List<Tool> all = List.copyOf(tools);
        return ToolProvider.of("remote_agent", () -> all);
    }
}
