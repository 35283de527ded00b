package dev.cadre.agent.run.internal;

import dev.cadre.agent.run.RunObserver;
import java.util.concurrent.Semaphore;

/**
 * What every agent of one run shares: the run id, the observer, the run's subagent cap and depth, and
 * the ledger of what its model calls cost.
 */
public record RunScope(String runId, RunObserver observer, Semaphore subagentSlots, int maxDepth, CostLedger costs) {

    /** A run without a budget in currency. */
    public RunScope(String runId, RunObserver observer, Semaphore subagentSlots, int maxDepth) {
        this(runId, observer, subagentSlots, maxDepth, CostLedger.unlimited());
    }
}
