package dev.cadre.agent.run.internal;

import dev.cadre.agent.AgentSpec;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where one agent loop sits in its run: the agent, its session, its place in the tree (depth and the
 * agents above it), the token budget it spends from, its cancellation scope and the deadline of the
 * nearest ancestor. Built once per loop; a child's is derived from its parent's with {@link #child}.
 *
 * @param inheritedDeadlineNanos the nearest ancestor's absolute {@code System.nanoTime()} deadline, or
 *     null for a root
 */
record AgentContext(
        Runtime rt,
        RunScope run,
        AgentSpec spec,
        String sessionId,
        @Nullable String parentSessionId,
        int depth,
        List<String> ancestry,
        TokenBudget budget,
        CancelScope scope,
        @Nullable Long inheritedDeadlineNanos) {

    AgentContext {
        ancestry = List.copyOf(ancestry);
    }

    /** The context of a run's root agent. */
    static AgentContext root(
            Runtime rt, RunScope run, AgentSpec spec, String sessionId, TokenBudget budget, CancelScope scope) {
        return new AgentContext(rt, run, spec, sessionId, null, 0, List.of(spec.name()), budget, scope, null);
    }

    /** The context of a worker this agent spawns: one level deeper, in a child scope of this one. */
    AgentContext child(AgentSpec worker, String childSessionId, TokenBudget childBudget, long deadlineNanos) {
        List<String> childAncestry = new ArrayList<>(ancestry.size() + 1);
        childAncestry.addAll(ancestry);
        childAncestry.add(worker.name());
        return new AgentContext(
                rt,
                run,
                worker,
                childSessionId,
                sessionId,
                depth + 1,
                childAncestry,
                childBudget,
                scope.child(),
                deadlineNanos);
    }

    /** Whether this is the run's root agent (only the root checkpoints and reports iterations). */
    boolean isRoot() {
        return parentSessionId == null;
    }

    /** Whether this agent may hand work to its workers (its depth is below the run's limit). */
    boolean canDelegate() {
        return depth < run.maxDepth() && !spec.workers().isEmpty();
    }

    String runId() {
        return run.runId();
    }

    String agent() {
        return spec.name();
    }
}
