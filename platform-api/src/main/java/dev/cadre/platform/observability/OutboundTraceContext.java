package dev.cadre.platform.observability;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.client.ClientHttpRequestInterceptor;

/**
 * The trace context of the current span as outbound HTTP headers (W3C {@code traceparent},
 * {@code tracestate}, baggage — whatever the configured propagators write), so a model provider,
 * MCP server or remote agent that traces joins the run's trace instead of starting its own. Uses
 * the injected {@link OpenTelemetry}'s propagators, never the global one.
 */
public final class OutboundTraceContext {

    private final TextMapPropagator propagator;

    public OutboundTraceContext(OpenTelemetry openTelemetry) {
        this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
    }

    /** No propagation at all: for tests and tools built without telemetry. */
    public static OutboundTraceContext none() {
        return new OutboundTraceContext(OpenTelemetry.noop());
    }

    /** The headers that carry the current context; empty when no span is current. */
    public Map<String, String> headers() {
        Map<String, String> out = new LinkedHashMap<>();
        propagator.inject(Context.current(), out, (carrier, key, value) -> {
            if (carrier != null) {
                carrier.put(key, value);
            }
        });
        return out;
    }

    /** For Spring's {@code RestClient}: adds the headers of the context current when the request runs. */
    public ClientHttpRequestInterceptor interceptor() {
        return (request, body, execution) -> {
            headers().forEach((k, v) -> request.getHeaders().set(k, v));
            return execution.execute(request, body);
        };
    }
}
