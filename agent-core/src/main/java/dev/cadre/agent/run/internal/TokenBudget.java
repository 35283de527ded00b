package dev.cadre.agent.run.internal;

import org.jspecify.annotations.Nullable;

/**
 * A node of the run's token ledger. A subagent reserves its budget from its parent's node and gives
 * back what it did not spend when it closes, so the sum of all spending never exceeds the root's
 * limit: every charge is preceded by a check against {@link #available()}.
 */
public final class TokenBudget {

    private final @Nullable TokenBudget parent;
    private final long limit;
    private long spent;
    private long reserved;

    public TokenBudget(long limit, long alreadySpent) {
        this(null, limit);
        this.spent = alreadySpent;
    }

    private TokenBudget(@Nullable TokenBudget parent, long limit) {
        this.parent = parent;
        this.limit = limit;
    }

    public long limit() {
        return limit;
    }

    public synchronized long available() {
        return Math.max(0, limit - spent - reserved);
    }

    public synchronized long spent() {
        return spent;
    }

    public synchronized void charge(long tokens) {
        spent += tokens;
    }

    /** Grants up to {@code requested} tokens, or null when less than {@code floor} is left. */
    public synchronized @Nullable TokenBudget reserve(long requested, long floor) {
        long grant = Math.min(requested, available());
        if (grant <= 0 || grant < floor) {
            return null;
        }
        reserved += grant;
        return new TokenBudget(this, grant);
    }

    /** Returns the unused part of a reservation to the parent. */
    public void close() {
        TokenBudget p = parent;
        if (p != null) {
            long used;
            synchronized (this) {
                used = spent;
            }
            p.settle(limit, used);
        }
    }

    private synchronized void settle(long reservation, long used) {
        reserved -= reservation;
        spent += used;
    }
}
