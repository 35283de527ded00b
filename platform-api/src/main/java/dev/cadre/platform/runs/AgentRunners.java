package dev.cadre.platform.runs;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.run.AgentRunner;

/**
 * Builds agent runners configured as the platform's own (approvals, journal, telemetry, limits, risk
 * policy) for a tree of agents: the running team's, or a candidate team's a replay runs against.
 */
@FunctionalInterface
public interface AgentRunners {

    /** A runner of {@code tree}; its caller closes it. */
    AgentRunner build(AgentTree tree);
}
