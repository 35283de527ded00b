package dev.cadre.platform.runs;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Executions this instance gave up waiting for. A stop (a cancel, the run's deadline, its root
 * agent's timeout) interrupts the loop's waits, but a tool that ignores interruption — a CPU-bound
 * regular expression, a blocking call without a timeout — keeps its thread. Once such a run is past
 * its stop by {@code cadre.runs.stuck-grace}, the executor ends it (failed, {@code TIMEOUT_ERROR} /
 * {@code abandoned}; a cancel stays {@code canceled}) so it is never resumed, and lists it here until
 * its thread lets go: health reports these ({@code stuckExecutions}, OUT_OF_SERVICE while any).
 */
public final class StuckRuns {

    /** One abandoned execution whose thread still runs: what it was doing when it was given up. */
    public record Stuck(String runId, String agent, String tool, Instant abandonedAt, String reason) {}

    private final Duration grace;
    private final Map<String, Stuck> stuck = new ConcurrentHashMap<>();

    public StuckRuns(Duration grace) {
        if (grace.isNegative() || grace.isZero()) {
            throw new IllegalArgumentException("cadre.runs.stuck-grace must be positive, was " + grace);
        }
        this.grace = grace;
    }

    /** How long after its stop a run's execution is waited for before it is abandoned. */
    public Duration grace() {
        return grace;
    }

    void add(Stuck s) {
        stuck.put(s.runId(), s);
    }

    void released(String runId) {
        stuck.remove(runId);
    }

    /** Abandoned executions whose threads still run, oldest first. */
    public List<Stuck> list() {
        return stuck.values().stream()
                .sorted(Comparator.comparing(Stuck::abandonedAt))
                .toList();
    }
}
