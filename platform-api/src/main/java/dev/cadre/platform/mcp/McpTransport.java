package dev.cadre.platform.mcp;

import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.util.List;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The SDK's streamable-HTTP transport as Cadre's MCP server uses it: every session it opens is
 * registered with its owner in {@link McpSessions}, and is opened from a trimmed copy of the
 * client's {@code initialize} parameters — a session lives for many minutes, so it keeps nothing of
 * the client's beyond a bounded name and version and the capability flags (no {@code experimental}
 * map, no {@code _meta}, no icons or descriptions).
 */
final class McpTransport implements McpStreamableServerTransportProvider {

    static final int MAX_TEXT = 200;

    private final HttpServletStreamableServerTransportProvider delegate;
    private final McpSessions sessions;

    McpTransport(HttpServletStreamableServerTransportProvider delegate, McpSessions sessions) {
        this.delegate = delegate;
        this.sessions = sessions;
    }

    @Override
    public void setSessionFactory(McpStreamableServerSession.Factory factory) {
        // Called by the SDK on the initialize request's own thread: its caller is the session's owner.
        delegate.setSessionFactory(request -> {
            McpStreamableServerSession.McpStreamableServerSessionInit init = factory.startSession(trimmed(request));
            sessions.opened(init.session().getId(), McpOwner.current());
            return init;
        });
    }

    /** What Cadre keeps of a client's {@code initialize} parameters. */
    static McpSchema.InitializeRequest trimmed(McpSchema.InitializeRequest request) {
        McpSchema.ClientCapabilities caps = request.capabilities();
        McpSchema.ClientCapabilities kept = caps == null
                ? null
                : new McpSchema.ClientCapabilities(
                        null,
                        caps.roots() == null
                                ? null
                                : new McpSchema.ClientCapabilities.RootCapabilities(
                                        caps.roots().listChanged()),
                        caps.sampling() == null ? null : new McpSchema.ClientCapabilities.Sampling(),
                        caps.elicitation() == null ? null : new McpSchema.ClientCapabilities.Elicitation());
        McpSchema.Implementation info = request.clientInfo();
        McpSchema.Implementation keptInfo =
                info == null ? null : new McpSchema.Implementation(cut(info.name()), cut(info.version()));
        return new McpSchema.InitializeRequest(cut(request.protocolVersion()), kept, keptInfo);
    }

    private static @Nullable String cut(@Nullable String s) {
        // A copy, never a view: a substring of the request's text must not pin the rest of it.
        return s == null ? null : new String(s.length() > MAX_TEXT ? s.substring(0, MAX_TEXT) : s);
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return delegate.notifyClients(method, params);
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return delegate.notifyClient(sessionId, method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }
}
