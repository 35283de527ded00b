package dev.cadre.agent.run;

/**
 * Per-run limits against runaway trees.
 *
 * @param maxConcurrentSubagents subagents of one run alive at once; more wait for a slot
 * @param minWorkerBudgetFraction when the run's tree budget cannot cover a worker's own token budget,
 *     the worker still starts on what is left if that is at least this fraction of its budget
 *     (degraded, told to answer briefly with the data it has); below it the call fails with
 *     {@code BUDGET_EXCEEDED} without starting
 * @param maxRepeatedToolCalls how many turns in a row an agent's model may ask for exactly the same
 *     calls (same tools, same arguments) before the agent is stopped with {@code repeated_tool_call}
 *     ({@code EXECUTION_ERROR}); the last of them is not executed. A model going round in circles
 *     ends there instead of spending its whole iteration and token budget
 */
public record RunLimits(int maxConcurrentSubagents, double minWorkerBudgetFraction, int maxRepeatedToolCalls) {

    private static final int DEFAULT_MAX_REPEATED_TOOL_CALLS = 3;

    /** 16 concurrent subagents per run; degrade down to a quarter of a worker's budget; 3 repeats. */
    public static final RunLimits DEFAULT = new RunLimits(16, 0.25, DEFAULT_MAX_REPEATED_TOOL_CALLS);

    public RunLimits {
        if (maxConcurrentSubagents < 1) {
            throw new IllegalArgumentException("maxConcurrentSubagents must be at least 1");
        }
        if (!(minWorkerBudgetFraction > 0 && minWorkerBudgetFraction <= 1)) {
            throw new IllegalArgumentException("minWorkerBudgetFraction must be in (0, 1]");
        }
        if (maxRepeatedToolCalls < 2) {
            throw new IllegalArgumentException(
                    "maxRepeatedToolCalls must be at least 2 (a first call cannot be a repeat)");
        }
    }

    /** Limits with the default {@code maxRepeatedToolCalls}. */
    public RunLimits(int maxConcurrentSubagents, double minWorkerBudgetFraction) {
        this(maxConcurrentSubagents, minWorkerBudgetFraction, DEFAULT_MAX_REPEATED_TOOL_CALLS);
    }

    /** These limits with another {@code maxRepeatedToolCalls}. */
    public RunLimits withMaxRepeatedToolCalls(int value) {
        return new RunLimits(maxConcurrentSubagents, minWorkerBudgetFraction, value);
    }
}
