package dev.cadre.agent.event;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Where an event belongs: its run, its session (the run's main session or a subagent's
 * {@code <parent>/<worker>#n}), the parent session (null on the main stream), the session's sequence
 * number (1, 2, ... without gaps, continued after a resume), the emitting agent and the time.
 */
public record EventMeta(
        String runId, String sessionId, @Nullable String parentSessionId, long sequence, String agent, Instant at) {

    /** Whether the event belongs to the run's main stream rather than a subagent's. */
    public boolean isMainStream() {
        return parentSessionId == null;
    }
}
