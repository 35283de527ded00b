package dev.cadre.platform.agents;

/**
 * How an agent's finished runs went. The owner of the run table implements it, so the agent
 * catalogue can show run figures without depending on the runs package (which depends on it).
 */
public interface AgentRunHistory {

    /** Totals over the agent's runs in a terminal state. */
    record Outcomes(long runs, long completed, long failed, double averageTokens) {}

    Outcomes outcomesOf(String agent);
}
