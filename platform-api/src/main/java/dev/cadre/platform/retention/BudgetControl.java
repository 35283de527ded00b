package dev.cadre.platform.retention;

/**
 * How many runs the storage budget leaves room for, from what a pass measures. PostgreSQL does not
 * shrink a table's files when rows are deleted: the space becomes free inside them (after VACUUM)
 * and later inserts reuse it. So the measured size is a high-water mark, and re-measuring after a
 * delete would show no change and make retention delete again and again. Instead the budget is
 * turned into a number of runs: bytes per run are estimated as measured bytes over stored runs,
 * but only when the files grew since the last pass (then there was no free space left, so the
 * ratio is honest) or when no estimate exists yet; when the files did not grow, the previous
 * estimate stands. Retention then keeps at most {@code budget × LOW_WATER / bytes per run} runs.
 * While the files hold free space they do not grow; once arrivals have used it up they grow a
 * little, the estimate is renewed, and fewer runs are kept. The size settles just over the budget
 * by at most what arrives between two passes.
 */
final class BudgetControl {

    /**
     * Removal aims this far under the budget, so the runs arriving until the next pass fit into the
     * space freed (with the default hourly pass, size the budget with an hour of arrivals in mind).
     */
    static final double LOW_WATER = 0.95;

    private final StorageBudget budget;
    private double bytesPerRun;
    private long lastUsed = -1;

    BudgetControl(StorageBudget budget) {
        this.budget = budget;
    }

    StorageBudget budget() {
        return budget;
    }

    /** Whether {@code used} bytes are over the budget (never, without one). */
    boolean over(long used) {
        return budget.enabled() && used > budget.bytes();
    }

    /** Remembers a measurement of a pass that found the store within the budget. */
    synchronized void within(long used) {
        lastUsed = used;
    }

    /**
     * Runs to keep, given {@code used} bytes measured over the budget with {@code storedRuns} runs
     * stored (everything but the runs themselves already removed as far as the budget goes).
     */
    synchronized long runsToKeep(long used, long storedRuns) {
        if (storedRuns > 0 && (bytesPerRun <= 0 || used > lastUsed)) {
            bytesPerRun = (double) used / storedRuns;
        }
        lastUsed = used;
        if (bytesPerRun <= 0) {
            return storedRuns;
        }
        return (long) Math.floor(budget.bytes() * LOW_WATER / bytesPerRun);
    }

    /** The current estimate (0 before the budget was first exceeded). */
    synchronized double bytesPerRun() {
        return bytesPerRun;
    }
}
