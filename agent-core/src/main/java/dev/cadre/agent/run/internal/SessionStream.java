package dev.cadre.agent.run.internal;

import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.event.EventMeta;
import dev.cadre.agent.run.RunObserver;
import java.time.Instant;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** One session's event stream: stamps events with the session's gap-free sequence numbers. */
public final class SessionStream {

    private final String runId;
    private final String sessionId;
    private final @Nullable String parentSessionId;
    private final String agent;
    private final RunObserver observer;
    private long nextSequence;

    public SessionStream(
            String runId,
            String sessionId,
            @Nullable String parentSessionId,
            String agent,
            RunObserver observer,
            long nextSequence) {
        this.runId = runId;
        this.sessionId = sessionId;
        this.parentSessionId = parentSessionId;
        this.agent = agent;
        this.observer = observer;
        this.nextSequence = nextSequence;
    }

    public String sessionId() {
        return sessionId;
    }

    public synchronized long nextSequence() {
        return nextSequence;
    }

    /**
     * Emits a live-only event (a partial text delta) without taking a sequence number: it carries the
     * number of the event that follows, so the stored events of a session stay gap-free.
     */
    public synchronized void emitLive(Function<EventMeta, AgentEvent> event) {
        EventMeta meta = new EventMeta(runId, sessionId, parentSessionId, nextSequence, agent, Instant.now());
        try {
            observer.onEvent(event.apply(meta));
        } catch (RuntimeException ignored) {
            // as in emit
        }
    }

    /** Emits the event built from the next meta; an observer's exception does not reach the loop. */
    public synchronized void emit(Function<EventMeta, AgentEvent> event) {
        EventMeta meta = new EventMeta(runId, sessionId, parentSessionId, nextSequence++, agent, Instant.now());
        try {
            observer.onEvent(event.apply(meta));
        } catch (RuntimeException ignored) {
            // The observer is someone else's code; a broken event sink must not break the run.
        }
    }
}
