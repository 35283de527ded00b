package dev.cadre.agent.run.internal;

import dev.cadre.agent.model.Costs;
import org.jspecify.annotations.Nullable;

/**
 * What a run's model calls cost so far, against its budget in currency (none when the limit is null):
 * every agent of the tree charges the one ledger of its run after each call, and a run over its limit
 * stops like one over its token budget ({@code BUDGET_EXCEEDED}, code {@code cost_budget}).
 */
public final class CostLedger {

    private final @Nullable Double limit;
    private double spent;

    public CostLedger(@Nullable Double limit, double alreadySpent) {
        this.limit = limit;
        this.spent = Costs.round(alreadySpent);
    }

    /** No limit. */
    public static CostLedger unlimited() {
        return new CostLedger(null, 0);
    }

    public @Nullable Double limit() {
        return limit;
    }

    public synchronized void charge(double cost) {
        spent = Costs.add(spent, cost);
    }

    public synchronized double spent() {
        return spent;
    }

    /** Whether the run has spent more than its limit (never, without one). */
    public synchronized boolean exceeded() {
        return limit != null && spent > limit;
    }
}
