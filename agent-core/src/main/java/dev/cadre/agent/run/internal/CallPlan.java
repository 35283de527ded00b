package dev.cadre.agent.run.internal;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.ReviewPolicy;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolResult;

/** What the validation pass of a turn decided about one call, before anything of the turn starts. */
sealed interface CallPlan {

    /** Whether the call runs at once, with side effects, or only after a human approved it. */
    Risk risk();

    /**
     * A malformed call, answered with an error result without running anything.
     *
     * @param delegation whether it named an agent of the tree (a delegation refused before it started:
     *     unknown worker, malformed delegation, depth limit, cycle) rather than a tool
     */
    record Rejected(ToolResult result, boolean delegation) implements CallPlan {
        @Override
        public Risk risk() {
            return Risk.AUTO;
        }
    }

    /** A call of one of the agent's tools, at the risk the run's {@code RiskPolicy} gave it. */
    record RunTool(Tool tool, Risk risk) implements CallPlan {}

    /** A call of one of the agent's workers, to run as the child session {@code childSessionId}. */
    record Delegate(AgentSpec worker, String childSessionId) implements CallPlan {
        @Override
        public Risk risk() {
            return worker.review() == ReviewPolicy.APPROVE_BEFORE_START ? Risk.APPROVE : Risk.AUTO;
        }
    }
}
