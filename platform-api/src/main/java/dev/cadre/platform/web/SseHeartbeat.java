package dev.cadre.platform.web;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Looks after every open event stream. It sends a comment line periodically: proxies keep the
 * connection open, and a client that went away is noticed (the write fails) and its resources
 * released. It also bounds them: a stream that sent no event for {@code cadre.sse.idle-timeout} is
 * closed (the client reconnects with {@code Last-Event-ID} if it still cares), and a key may hold
 * at most {@code cadre.sse.max-streams-per-key} streams, the platform {@code cadre.sse.max-streams};
 * beyond either a new stream is refused with 429 and {@code Retry-After}.
 */
@Component
public class SseHeartbeat implements DisposableBean {

    // Keyed by the emitter, or by a Slot for a stream that writes itself (A2A).
    private final Map<Object, Open> open = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("sse-heartbeat").factory());
    private final Clock clock;
    private final long heartbeatSeconds;
    private final Duration idleTimeout;
    private final int maxPerKey;
    private final int maxStreams;

    private record Open(String owner, Runnable onGone) {}

    SseHeartbeat(
            @Value("${cadre.sse.heartbeat-seconds:15}") long seconds,
            @Value("${cadre.sse.idle-timeout:PT30M}") Duration idleTimeout,
            @Value("${cadre.sse.max-streams-per-key:20}") int maxPerKey,
            @Value("${cadre.sse.max-streams:1000}") int maxStreams,
            Clock clock) {
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("cadre.sse.idle-timeout must be positive, was " + idleTimeout);
        }
        if (maxPerKey < 1 || maxStreams < 1) {
            throw new IllegalArgumentException(
                    "cadre.sse.max-streams-per-key and cadre.sse.max-streams must be at least 1," + " were " + maxPerKey
                            + " and " + maxStreams);
        }
        this.clock = clock;
        this.heartbeatSeconds = seconds;
        this.idleTimeout = idleTimeout;
        this.maxPerKey = maxPerKey;
        this.maxStreams = maxStreams;
        // Beat at least as often as the idle timeout, so an idle stream is closed in time.
        long period = Math.max(1, Math.min(seconds, idleTimeout.toSeconds()));
        timer.scheduleAtFixedRate(this::beat, period, period, TimeUnit.SECONDS);
    }

    /** A stream whose events (not heartbeats) count as activity for the idle timeout. */
    public SseEmitter newEmitter() {
        return new TrackedEmitter(clock);
    }

    /**
     * Keeps {@code emitter} alive until {@link #unregister}; {@code onGone} runs when a heartbeat
     * finds the client gone or the stream idle. (The caller owns the emitter's completion
     * callbacks.) Called on the request's thread: the caller is whoever is authenticated there.
     *
     * @throws ApiProblem 429 when the caller's key or the platform holds as many streams as allowed
     */
    public synchronized void register(SseEmitter emitter, Runnable onGone) {
        open.put(emitter, new Open(admit(), onGone));
    }

    /**
     * A stream slot for a stream that writes to its response itself (A2A {@code SendStreamingMessage},
     * {@code SubscribeToTask}): counted against the same per-key and platform caps as event streams,
     * held until closed. Such a stream sends its own keep-alives and ends itself after {@link
     * #idleTimeout()} without an event.
     *
     * @throws ApiProblem 429 when the caller's key or the platform holds as many streams as allowed
     */
    public synchronized Slot openSlot() {
        Slot slot = new Slot(this);
        open.put(slot, new Open(admit(), () -> {}));
        return slot;
    }

    /** How long a stream may go without an event before it is closed. */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /** One counted stream that is not an emitter; closing it frees the slot (idempotent). */
    public static final class Slot implements AutoCloseable {
        private final SseHeartbeat owner;

        private Slot(SseHeartbeat owner) {
            this.owner = owner;
        }

        @Override
        public void close() {
            owner.open.remove(this);
        }
    }

    /** The caller's key id if it may open one more stream; 429 otherwise. */
    private String admit() {
        var auth = SecurityContextHolder.getContext().getAuthentication();
        // Counted per key id (a console session counts as the key it logged in with): two keys that
        // carry the same name are two callers.
        String owner = auth == null
                ? "anonymous"
                : auth.getPrincipal() instanceof KeyedCaller k ? "key:" + k.keyId() : "name:" + auth.getName();
        if (open.size() >= maxStreams) {
            throw tooMany("the platform has " + open.size() + " open event streams, its limit (cadre.sse.max-streams)");
        }
        long mine = open.values().stream().filter(o -> o.owner().equals(owner)).count();
        if (mine >= maxPerKey) {
            throw tooMany("this key has " + mine
                    + " open event streams, its limit (cadre.sse.max-streams-per-key); close one first");
        }
        return owner;
    }

    /** Stops heartbeats for a stream that ended. */
    public void unregister(SseEmitter emitter) {
        open.remove(emitter);
    }

    private ApiProblem tooMany(String detail) {
        return new ApiProblem(HttpStatus.TOO_MANY_REQUESTS, "too-many-streams", "Too many event streams", detail)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, heartbeatSeconds)));
    }

    private void beat() {
        var idleSince = clock.instant().minus(idleTimeout);
        open.forEach((key, o) -> {
            if (!(key instanceof SseEmitter emitter)) {
                return; // a Slot: its stream beats and times out on its own
            }
            if (emitter instanceof TrackedEmitter t && t.lastEvent().isBefore(idleSince)) {
                open.remove(emitter);
                o.onGone().run();
                emitter.complete();
                return;
            }
            try {
                if (emitter instanceof TrackedEmitter t) {
                    t.heartbeat();
                } else {
                    emitter.send(SseEmitter.event().comment("keep-alive"));
                }
            } catch (IOException | IllegalStateException e) {
                open.remove(emitter);
                o.onGone().run();
            }
        });
    }

    @Override
    public void destroy() {
        timer.shutdownNow();
        open.keySet().forEach(k -> {
            if (k instanceof SseEmitter e) {
                e.complete();
            }
        });
    }

    /** Remembers when it last sent an event. */
    private static final class TrackedEmitter extends SseEmitter {
        private final Clock clock;
        private volatile java.time.Instant lastEvent;

        TrackedEmitter(Clock clock) {
            super(0L);
            this.clock = clock;
            this.lastEvent = clock.instant();
        }

        @Override
        public void send(SseEventBuilder builder) throws IOException {
            super.send(builder);
            lastEvent = clock.instant();
        }

        void heartbeat() throws IOException {
            super.send(SseEmitter.event().comment("keep-alive"));
        }

        java.time.Instant lastEvent() {
            return lastEvent;
        }
    }
}
