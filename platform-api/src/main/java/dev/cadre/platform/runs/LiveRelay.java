package dev.cadre.platform.runs;

import java.util.function.Consumer;

/**
 * Carries live-only events (streamed text pieces, already redacted) between the instances of a
 * cluster, so that a reader following a run on one instance gets the pieces of a run executing on
 * another. Absent on a single instance: pieces then go to the readers in this process only.
 */
public interface LiveRelay {

    /** Whether a reader on another instance follows the run (publishing is skipped otherwise). */
    boolean followedElsewhere(String runId);

    /** Hands a piece of a run executing here to the readers following it on other instances. */
    void publish(String runId, RunEvents.LiveEvent event);

    /**
     * Starts receiving the pieces other instances publish for a run; {@code sink} is called on the
     * relay's thread, for pieces of runs executing elsewhere only. Close the handle to stop.
     */
    AutoCloseable follow(String runId, Consumer<RunEvents.LiveEvent> sink);

    /** The run ended here: forget what was kept about its followers. */
    void forget(String runId);
}
