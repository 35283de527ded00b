package dev.cadre.memory;

import java.time.Duration;

/**
 * Observer of every memory operation, so an application can feed metrics (e.g. Micrometer's
 * {@code cadre_memory_operations_total{namespace,op,outcome}} and {@code
 * cadre_memory_conflicts_total{namespace}}) without this library depending on a metrics API. Called
 * on the caller's thread after the operation; must be fast and must not throw.
 */
@FunctionalInterface
public interface MemoryListener {

    /** Ignores everything. */
    MemoryListener NONE = event -> {};

    void onOperation(Operation event);

    /** What was done. */
    enum Op {
        GET,
        PUT,
        DELETE,
        UPDATE,
        HISTORY,
        LIST,
        CHANGES,
        NAMESPACES
    }

    /** How it ended. */
    enum Outcome {
        FOUND,
        NOT_FOUND,
        WRITTEN,
        CONFLICT,
        /** Refused by validation ({@link InvalidMemoryRequestException}). */
        INVALID,
        /** The store failed. */
        ERROR,
        /** Reads that return a collection (history, list, changes). */
        OK
    }

    /** One finished operation; {@code namespace} is empty for store-wide operations (changes, namespaces). */
    record Operation(Op op, String namespace, Outcome outcome, Duration duration) {
        public boolean conflict() {
            return outcome == Outcome.CONFLICT;
        }
    }
}
