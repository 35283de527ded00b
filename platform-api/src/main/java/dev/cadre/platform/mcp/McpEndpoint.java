package dev.cadre.platform.mcp;

import dev.cadre.platform.web.ApiProblem;
import dev.cadre.platform.web.ProblemWriter;
import dev.cadre.platform.web.Problems;
import dev.cadre.platform.web.SseHeartbeat;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * The servlet at {@code /mcp}: the SDK's transport behind the platform's own bounds. A {@code GET}
 * stream takes a slot of the event-stream caps ({@code cadre.sse.max-streams-per-key}, {@code
 * cadre.sse.max-streams}; 429 beyond either). Every open stream — {@code GET} or a {@code POST}'s
 * answer — gets a comment line every {@code cadre.sse.heartbeat-seconds} (a client that went away is
 * noticed when the write fails, and its connection closed rather than left in CLOSE-WAIT) and is
 * ended after {@code cadre.sse.idle-timeout} without an event. A request naming a session its key
 * does not own, or one that expired, answers 404. Stopping ends every stream at once, so a graceful
 * shutdown never waits on a client.
 */
final class McpEndpoint extends HttpServlet {

    private static final Logger log = LoggerFactory.getLogger(McpEndpoint.class);
    private static final String SESSION_HEADER = "mcp-session-id";

    private final transient HttpServlet sdk;
    private final transient McpSessions sessions;
    private final transient SseHeartbeat caps;
    private final transient ProblemWriter problems;
    private final transient Clock clock;
    private final Duration idleTimeout;
    private final transient Map<Stream, Boolean> open = new ConcurrentHashMap<>();
    private final transient ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("mcp-streams").factory());
    private volatile boolean stopping;

    McpEndpoint(
            HttpServlet sdk,
            McpSessions sessions,
            SseHeartbeat caps,
            ProblemWriter problems,
            Clock clock,
            long heartbeatSeconds) {
        this.sdk = sdk;
        this.sessions = sessions;
        this.caps = caps;
        this.problems = problems;
        this.clock = clock;
        this.idleTimeout = caps.idleTimeout();
        long period = Math.max(1, Math.min(heartbeatSeconds, idleTimeout.toSeconds()));
        timer.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.SECONDS);
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (stopping) {
            problem(
                    response,
                    HttpStatus.SERVICE_UNAVAILABLE,
                    "shutting-down",
                    "Shutting down",
                    "this instance is stopping; retry on another");
            return;
        }
        String owner = McpOwner.current();
        String sessionId = request.getHeader(SESSION_HEADER);
        if (sessionId != null && !sessionId.isBlank() && !sessions.use(sessionId, owner)) {
            // Unknown, expired, retired or another key's: all alike, so ids cannot be probed.
            problem(
                    response,
                    HttpStatus.NOT_FOUND,
                    "mcp-session-not-found",
                    "MCP session not found",
                    "no open MCP session with this id for this key (it may have expired); initialise a new one");
            return;
        }
        SseHeartbeat.@Nullable Slot slot = null;
        if ("GET".equals(request.getMethod())) {
            try {
                slot = caps.openSlot();
            } catch (ApiProblem p) {
                ProblemDetail pd = Problems.of(p.status(), p.type(), p.title(), p.getMessage());
                p.headers().forEach(response::setHeader);
                problems.write(response, pd);
                return;
            }
        }
        StreamResponse wrapped = new StreamResponse(request, response, slot);
        try {
            sdk.service(request, wrapped);
        } catch (jakarta.servlet.ServletException e) {
            throw new IOException(e);
        } finally {
            if (!wrapped.streaming()) {
                wrapped.release();
            }
        }
        if ("DELETE".equals(request.getMethod()) && sessionId != null && response.getStatus() == 200) {
            sessions.closed(sessionId);
        }
    }

    private void problem(HttpServletResponse response, HttpStatus status, String slug, String title, String detail)
            throws IOException {
        problems.write(response, status, slug, title, detail);
    }

    /** Open streams, for tests and the gauge. */
    int openStreams() {
        return open.size();
    }

    /** Ends every stream; new requests answer 503. Bounded: never waits on a client. */
    void stop() {
        stopping = true;
        timer.shutdownNow();
        open.keySet().forEach(Stream::end);
    }

    private void tick() {
        try {
            Instant idleSince = clock.instant().minus(idleTimeout);
            for (Stream s : open.keySet()) {
                if (s.writer.lastEvent.isBefore(idleSince) || !s.writer.beat()) {
                    s.end();
                }
            }
            for (String id : sessions.sweep()) {
                delete(id);
            }
        } catch (RuntimeException e) {
            log.warn("MCP stream housekeeping failed; next pass in a moment", e);
        }
    }

    /** Deletes a retired session from the SDK as its client's {@code DELETE} would (closing its streams). */
    private void delete(String id) {
        HttpServletRequest request = (HttpServletRequest) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {HttpServletRequest.class},
                (p, m, args) -> switch (m.getName()) {
                    case "getMethod" -> "DELETE";
                    case "getRequestURI", "getServletPath" -> McpServerConfiguration.ENDPOINT;
                    case "getRequestURL" -> new StringBuffer("http://localhost" + McpServerConfiguration.ENDPOINT);
                    case "getHeader" -> SESSION_HEADER.equalsIgnoreCase((String) args[0]) ? id : null;
                    case "getHeaders" ->
                        SESSION_HEADER.equalsIgnoreCase((String) args[0])
                                ? Collections.enumeration(List.of(id))
                                : Collections.emptyEnumeration();
                    case "getHeaderNames" -> Collections.enumeration(List.of(SESSION_HEADER));
                    case "getProtocol" -> "HTTP/1.1";
                    case "getDispatcherType" -> jakarta.servlet.DispatcherType.REQUEST;
                    case "isAsyncStarted", "isAsyncSupported", "isSecure" -> false;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    case "toString" -> "mcp session expiry";
                    default -> defaultOf(m.getReturnType());
                });
        HttpServletResponse response = (HttpServletResponse) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {HttpServletResponse.class},
                (p, m, args) -> switch (m.getName()) {
                    case "getWriter" -> new PrintWriter(Writer.nullWriter());
                    case "isCommitted" -> false;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    case "toString" -> "mcp session expiry";
                    default -> defaultOf(m.getReturnType());
                });
        try {
            sdk.service(request, response);
        } catch (Exception e) {
            log.warn("Could not delete expired MCP session: {}", e.toString());
        }
    }

    private static @Nullable Object defaultOf(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        return null;
    }

    /** One open SSE answer: its async context, its writer, and the slot it holds (GET only). */
    private final class Stream implements AsyncListener {
        final AsyncContext context;
        final BeatingWriter writer;
        final SseHeartbeat.@Nullable Slot slot;

        Stream(AsyncContext context, BeatingWriter writer, SseHeartbeat.@Nullable Slot slot) {
            this.context = context;
            this.writer = writer;
            this.slot = slot;
        }

        void end() {
            gone();
            try {
                context.complete();
            } catch (IllegalStateException alreadyDone) {
                // completed by the SDK meanwhile
            }
        }

        private void gone() {
            open.remove(this);
            if (slot != null) {
                slot.close();
            }
        }

        @Override
        public void onComplete(AsyncEvent event) {
            gone();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            end();
        }

        @Override
        public void onError(AsyncEvent event) {
            end();
        }

        @Override
        public void onStartAsync(AsyncEvent event) {}
    }

    /**
     * The response the SDK writes to: once the SDK has gone asynchronous (an SSE answer), its writer
     * is tracked as an open stream.
     */
    private final class StreamResponse extends HttpServletResponseWrapper {
        private final HttpServletRequest request;
        private final SseHeartbeat.@Nullable Slot slot;
        private @Nullable BeatingWriter writer;
        private volatile boolean streaming;

        StreamResponse(HttpServletRequest request, HttpServletResponse response, SseHeartbeat.@Nullable Slot slot) {
            super(response);
            this.request = request;
            this.slot = slot;
        }

        @Override
        public PrintWriter getWriter() throws IOException {
            if (writer == null) {
                writer = new BeatingWriter(super.getWriter(), clock);
                if (request.isAsyncStarted()) {
                    Stream stream = new Stream(request.getAsyncContext(), writer, slot);
                    streaming = true;
                    open.put(stream, Boolean.TRUE);
                    request.getAsyncContext().addListener(stream);
                    // The SDK sends nothing until its first event: the client has its status now.
                    super.flushBuffer();
                    if (stopping) {
                        stream.end();
                    }
                }
            }
            return writer;
        }

        boolean streaming() {
            return streaming && request.isAsyncStarted();
        }

        /** The request ended without a stream (or its stream already ended): free its slot. */
        void release() {
            if (!streaming && slot != null) {
                slot.close();
            }
        }
    }

    /**
     * The SDK's writer, with a keep-alive comment between events. The SDK writes each line of an
     * event with one call, under the writer's lock; a comment goes in only where the last event
     * ended (a blank line), so it never splits one.
     */
    static final class BeatingWriter extends PrintWriter {
        private final Clock clock;
        private boolean atBoundary = true;
        private int lastChar = '\n';
        volatile Instant lastEvent;

        BeatingWriter(Writer out, Clock clock) {
            super(out);
            this.clock = clock;
            this.lastEvent = clock.instant();
        }

        @Override
        public void write(int c) {
            synchronized (lock) {
                super.write(c);
                track(c);
            }
            lastEvent = clock.instant();
        }

        @Override
        public void write(char[] buf, int off, int len) {
            synchronized (lock) {
                super.write(buf, off, len);
                for (int i = off; i < off + len; i++) {
                    track(buf[i]);
                }
            }
            lastEvent = clock.instant();
        }

        @Override
        public void write(String s, int off, int len) {
            synchronized (lock) {
                super.write(s, off, len);
                for (int i = off; i < off + len; i++) {
                    track(s.charAt(i));
                }
            }
            lastEvent = clock.instant();
        }

        private void track(int c) {
            atBoundary = c == '\n' && lastChar == '\n';
            lastChar = c;
        }

        /** Sends a keep-alive comment if between events; false once the client is gone. */
        boolean beat() {
            synchronized (lock) {
                if (atBoundary) {
                    super.write(":keep-alive\n\n", 0, 13);
                }
                return !checkError();
            }
        }
    }
}
