package dev.cadre.platform.runs;

import dev.cadre.agent.Failure;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends runs that wait past their deadline: a queued run whose deadline passes fails with {@code
 * TIMEOUT_ERROR} ({@code deadline_exceeded}) at its deadline, even while every execution slot stays
 * busy, and its queue entry is removed so it never executes later. The instance that accepted the
 * run times it; the periodic sweep ({@link RunMaintenance}) catches what no timer covers (a run
 * queued by an instance that died, or by a previous process). The database decides who ends a run:
 * one guarded update ({@link RunStore#expire}), so of several instances one marks it, and a run
 * whose executor took its lease first is left to that executor (its watchdog fails it on time).
 */
public final class RunDeadlines implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RunDeadlines.class);

    /** After the deadline, so the database's clock comparison ({@code deadline <= now}) holds. */
    private static final Duration GRACE = Duration.ofMillis(20);

    private final RunStore store;
    private final RunQueue queue;
    private final RunExecutor executor;
    /** Runs timed here: the sweep re-enqueues a long-waiting run every few seconds, timed once. */
    private final java.util.Set<String> timed = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(
            Thread.ofVirtual().name("cadre-run-deadlines").factory());

    RunDeadlines(RunStore store, RunQueue queue, RunExecutor executor) {
        this.store = store;
        this.queue = queue;
        this.executor = executor;
    }

    /** Times a queued run's deadline (nothing when it has none). */
    void watch(RunRecord run) {
        Instant deadline = run.deadline();
        if (deadline == null || !timed.add(run.id())) {
            return;
        }
        long delay = Math.max(
                0, Duration.between(Instant.now(), deadline).plus(GRACE).toMillis());
        try {
            timers.schedule(
                    () -> {
                        timed.remove(run.id());
                        expire(run.id(), null);
                    },
                    delay,
                    TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // Shutting down: the next process's recovery fails it.
        }
    }

    /**
     * Fails a run past its deadline that nobody executes ({@code staleOwner}: also when only this
     * owner's previous process held it); true when this call ended it.
     */
    boolean expire(String runId, @Nullable String staleOwner) {
        try {
            RunRecord run = store.find(runId).orElse(null);
            if (run == null || run.status().terminal() || run.deadline() == null) {
                return false;
            }
            Failure failure = RunExecutor.deadlineFailure(run);
            if (!executor.expire(run, staleOwner, failure)) {
                return false;
            }
            queue.remove(runId, run.priority());
            return true;
        } catch (RuntimeException e) {
            // The sweep tries again.
            log.warn("Could not end run {} past its deadline: {}", runId, e.getMessage());
            return false;
        }
    }

    /** Ends every run past its deadline that nobody executes; returns how many this instance ended. */
    int sweep() {
        int n = 0;
        for (String id : store.pastDeadline(500)) {
            if (!executor.isActive(id) && expire(id, null)) {
                n++;
            }
        }
        return n;
    }

    @Override
    public void close() {
        timers.shutdownNow();
    }
}
