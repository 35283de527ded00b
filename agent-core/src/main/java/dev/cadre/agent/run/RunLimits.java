package dev.cadre.agent.run;

/**
 * Per-run limits against runaway trees.
 *
 * @param maxConcurrentSubagents subagents of one run alive at once; more wait for a slot
 * @param minWorkerBudgetFraction when the run's tree budget cannot cover a worker's own token budget,
 *     the worker still starts on what is left if that is at least this fraction of its budget
 *     (degraded, told to answer briefly with the data it has); below it the call fails with
 *     {@code BUDGET_EXCEEDED} without starting
 */
public record RunLimits(int maxConcurrentSubagents, double minWorkerBudgetFraction) {

    /** 16 concurrent subagents per run; degrade down to a quarter of a worker's budget. */
    public static final RunLimits DEFAULT = new RunLimits(16, 0.25);

    public RunLimits {
        if (maxConcurrentSubagents < 1) {
            throw new IllegalArgumentException("maxConcurrentSubagents must be at least 1");
        }
        if (!(minWorkerBudgetFraction > 0 && minWorkerBudgetFraction <= 1)) {
            throw new IllegalArgumentException("minWorkerBudgetFraction must be in (0, 1]");
        }
    }
}
