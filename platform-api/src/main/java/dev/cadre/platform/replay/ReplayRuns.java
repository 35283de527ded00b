package dev.cadre.platform.replay;

import dev.cadre.agent.run.AgentRunner;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The runs of this instance that are replays, each with its case's recordings (and the candidate
 * team's runner when it replays against one). A tool call of a run found here is answered from the
 * recording and never reaches the real tool ({@link ReplayTool}). The map is this instance's memory of
 * what is durable in {@code cadre_replay_run}: a replay run this instance does not know yet (after a
 * restart, or queued by another instance) is registered again from there before it executes ({@link
 * ReplayPreparer}), or refused.
 */
public final class ReplayRuns {

    /** A replay run as this instance holds it. */
    record Entry(Recordings recordings, @Nullable AgentRunner runner) {}

    private final Map<String, Entry> runs = new ConcurrentHashMap<>();

    /** Marks {@code runId} a replay of {@code c} on the running team: call before the run can start executing. */
    public Recordings begin(String runId, IncidentCase c) {
        return begin(runId, c, null);
    }

    /** Marks {@code runId} a replay of {@code c} executed by {@code runner} (a candidate team's; null: the running team). */
    public Recordings begin(String runId, IncidentCase c, @Nullable AgentRunner runner) {
        Recordings r = new Recordings(c);
        runs.put(runId, new Entry(r, runner));
        return r;
    }

    /** The recordings of a replay run, or empty for an ordinary run. */
    public Optional<Recordings> of(String runId) {
        return Optional.ofNullable(runs.get(runId)).map(Entry::recordings);
    }

    Optional<Entry> entry(String runId) {
        return Optional.ofNullable(runs.get(runId));
    }

    /** Forgets a finished replay (its deviations were read). */
    public void end(String runId) {
        runs.remove(runId);
    }
}
