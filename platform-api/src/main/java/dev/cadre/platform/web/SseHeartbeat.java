package dev.cadre.platform.web;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Sends a comment line to every open event stream periodically: proxies keep the connection
 * open, and a client that went away is noticed (the write fails) and its resources released.
 */
@Component
public class SseHeartbeat implements DisposableBean {

    private final Map<SseEmitter, Runnable> open = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("sse-heartbeat").factory());

    SseHeartbeat(@Value("${cadre.sse.heartbeat-seconds:15}") long seconds) {
        timer.scheduleAtFixedRate(this::beat, seconds, seconds, TimeUnit.SECONDS);
    }

    /**
     * Keeps {@code emitter} alive until {@link #unregister}; {@code onGone} runs when a heartbeat
     * finds the client gone. (The caller owns the emitter's completion callbacks.)
     */
    public void register(SseEmitter emitter, Runnable onGone) {
        open.put(emitter, onGone);
    }

    /** Stops heartbeats for a stream that ended. */
    public void unregister(SseEmitter emitter) {
        open.remove(emitter);
    }

    private void beat() {
        open.forEach((emitter, onGone) -> {
            try {
                emitter.send(SseEmitter.event().comment("keep-alive"));
            } catch (IOException | IllegalStateException e) {
                open.remove(emitter);
                onGone.run();
            }
        });
    }

    @Override
    public void destroy() {
        timer.shutdownNow();
        open.keySet().forEach(SseEmitter::complete);
    }
}
