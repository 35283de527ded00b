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

    /** Runs waiting for an execution slot on this instance. */
    int queued();

    /** Runs executing on this instance. */
    int executing();
}
