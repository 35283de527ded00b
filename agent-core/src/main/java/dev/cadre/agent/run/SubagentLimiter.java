package dev.cadre.agent.run;

import java.util.concurrent.Semaphore;

/**
 * A platform-wide cap on concurrent subagents, shared by every run of every runner it is given to
 * (DESIGN.md: a cap per run and per platform). Create one per platform instance.
 */
public final class SubagentLimiter {

    private final Semaphore permits;
    private final int capacity;

    /** A limiter allowing {@code capacity} subagents at once. */
    public SubagentLimiter(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1");
        }
        this.capacity = capacity;
        this.permits = new Semaphore(capacity);
    }

    /** A limiter that never makes anyone wait. */
    public static SubagentLimiter unlimited() {
        return new SubagentLimiter(Integer.MAX_VALUE);
    }

    /** Waits for a slot. */
    public void acquire() throws InterruptedException {
        permits.acquire();
    }

    /** Gives a slot back. */
    public void release() {
        permits.release();
    }

    /** How many subagents may run at once. */
    public int capacity() {
        return capacity;
    }

    /** How many subagents hold a slot now. */
    public int inUse() {
        return capacity - permits.availablePermits();
    }
}
