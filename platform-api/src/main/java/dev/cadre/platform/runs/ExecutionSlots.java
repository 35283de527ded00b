package dev.cadre.platform.runs;

import java.util.concurrent.Semaphore;

/**
 * The {@code cadre.runs.max-concurrent} execution slots of one instance. A run holds a slot while it
 * works and gives it back while it waits for a human, so pending approvals — which may wait for
 * hours — never stop other runs from starting; it takes a slot again before it goes on.
 */
public final class ExecutionSlots {

    private final Semaphore permits;
    private final int capacity;

    public ExecutionSlots(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("cadre.runs.max-concurrent must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
        this.permits = new Semaphore(capacity, true);
    }

    /** Waits for a free slot. */
    public Slot acquire() throws InterruptedException {
        permits.acquire();
        return new Slot();
    }

    public int capacity() {
        return capacity;
    }

    /** Slots free right now. */
    public int available() {
        return permits.availablePermits();
    }

    /** One run's slot; {@link #close()} gives it back whether or not the run holds it at that moment. */
    public final class Slot implements AutoCloseable {

        private boolean held = true;

        private Slot() {}

        /** The run waits for a human: its slot goes to the next run. */
        public void yieldWhileWaiting() {
            synchronized (this) {
                if (!held) {
                    return;
                }
                held = false;
            }
            permits.release();
        }

        /**
         * The run goes on: waits for a slot again. Interrupted (the run is being cancelled), it returns
         * without one and keeps the interrupt for the run to see.
         */
        public void reclaim() {
            synchronized (this) {
                if (held) {
                    return;
                }
            }
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            synchronized (this) {
                held = true;
            }
        }

        @Override
        public void close() {
            synchronized (this) {
                if (!held) {
                    return;
                }
                held = false;
            }
            permits.release();
        }
    }
}
