package dev.cadre.agent.tool;

/**
 * The risk a tool's calls run at in one run: the tool's own {@link Tool#risk()}, or higher where the
 * platform says so — e.g. a tool that acts outside the platform, in a run an untrusted source
 * started, waits for a human although it would run at once in a run an operator submitted.
 */
@FunctionalInterface
public interface RiskPolicy {

    /** Every call at its tool's declared risk. */
    RiskPolicy DECLARED = (tool, runId) -> tool.risk();

    /** The risk of calling {@code tool} in run {@code runId}; never lower than the tool declares. */
    Risk riskOf(Tool tool, String runId);
}
