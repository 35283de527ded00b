package dev.cadre.platform.replay;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The runs of this instance that are replays, each with its case's recordings. A tool call of a run
 * found here is answered from the recording and never reaches the real tool ({@link ReplayTool}).
 * Held in memory only: a replay does not survive a restart of its instance (docs/replay.md).
 */
public final class ReplayRuns {

    private final Map<String, Recordings> runs = new ConcurrentHashMap<>();

    /** Marks {@code runId} a replay of {@code c}: call before the run can start executing. */
    public Recordings begin(String runId, IncidentCase c) {
        Recordings r = new Recordings(c);
        runs.put(runId, r);
        return r;
    }

    /** The recordings of a replay run, or empty for an ordinary run. */
    public Optional<Recordings> of(String runId) {
        return Optional.ofNullable(runs.get(runId));
    }

    /** Forgets a finished replay (its deviations were read). */
    public void end(String runId) {
        runs.remove(runId);
    }
}
