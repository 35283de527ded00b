package dev.cadre.platform.mcp;

import dev.cadre.platform.security.CadrePrincipal;
import io.modelcontextprotocol.common.McpTransportContext;
import io.opentelemetry.context.Context;
import jakarta.servlet.http.HttpServletRequest;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * Who sent an MCP request, captured on the request's own thread (where the security context and the
 * HTTP server span are current) for the tool handlers, which the SDK runs on its threads.
 */
record McpCaller(@Nullable CadrePrincipal principal, Context trace, String baseUrl) {

    private static final String KEY = "cadre.mcp.caller";

    /** Reads a request's {@code traceparent} header for {@link #extract}. */
    private static final io.opentelemetry.context.propagation.TextMapGetter<HttpServletRequest> HEADERS =
            new io.opentelemetry.context.propagation.TextMapGetter<>() {
                @Override
                public Iterable<String> keys(HttpServletRequest carrier) {
                    return java.util.Collections.list(carrier.getHeaderNames());
                }

                @Override
                public @Nullable String get(@Nullable HttpServletRequest carrier, String key) {
                    return carrier == null ? null : carrier.getHeader(key);
                }
            };

    static McpTransportContext extract(HttpServletRequest request, io.opentelemetry.api.OpenTelemetry openTelemetry) {
        Authentication auth = SecurityContextHolder.getContext().getAuthentication();
        CadrePrincipal principal = auth != null && auth.getPrincipal() instanceof CadrePrincipal p ? p : null;
        String url = request.getRequestURL().toString();
        String base = url.substring(0, url.length() - request.getRequestURI().length());
        Map<String, Object> data = new HashMap<>();
        // The HTTP server span, when one is current, has joined the caller's traceparent; without it
        // (no server observation on this thread) the header itself is the caller's trace.
        Context trace = io.opentelemetry.api.trace.Span.fromContext(Context.current())
                        .getSpanContext()
                        .isValid()
                ? Context.current()
                : openTelemetry.getPropagators().getTextMapPropagator().extract(Context.root(), request, HEADERS);
        data.put(KEY, new McpCaller(principal, trace, base));
        return McpTransportContext.create(data);
    }

    static McpCaller of(McpTransportContext context) {
        return context.get(KEY) instanceof McpCaller c ? c : new McpCaller(null, Context.root(), "");
    }
}
