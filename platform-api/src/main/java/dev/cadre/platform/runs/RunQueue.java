package dev.cadre.platform.runs;

/**
 * Where accepted runs wait for an executor. The embedded default keeps them in-process; a
 * scaled-out deployment distributes them over a Redis Streams consumer group. Same contract.
 */
public interface RunQueue {

    /** Hands a run (already stored as submitted, or interrupted and to be resumed) to an executor. */
    void enqueue(String runId);

    /**
     * Hands a run over with its priority: of the runs waiting, higher priorities are taken first,
     * and runs of one priority in the order they came. Queues without priorities take them in order.
     */
    default void enqueue(String runId, int priority) {
        enqueue(runId);
    }

    /**
     * Takes a run that ended while it waited (its deadline passed) out of the queue, so no executor
     * picks it up later; false when this queue did not hold it. An entry already taken is harmless:
     * the executor does not run an ended run.
     */
    default boolean remove(String runId, int priority) {
        return false;
    }

    /**
     * Whether this instance holds the run: waiting here for a slot, or executing here. The recovery
     * sweep leaves such a run alone — its executor is this live instance, not a silent one. Queues
     * that hand runs to others (a Redis stream) answer for what this instance took.
     */
    default boolean holds(String runId) {
        return false;
    }

    /** Runs waiting for an execution slot on this instance. */
    int queued();

    /** Runs executing on this instance. */
    int executing();
}
