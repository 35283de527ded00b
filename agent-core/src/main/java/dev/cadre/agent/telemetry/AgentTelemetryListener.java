package dev.cadre.agent.telemetry;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.tool.Risk;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Metrics-neutral callbacks (platform-api turns them into Micrometer meters). Called on the agent's
 * threads, concurrently: keep them quick and thread-safe.
 */
public interface AgentTelemetryListener {

    /** A listener that ignores everything. */
    AgentTelemetryListener NONE = new AgentTelemetryListener() {};

    /** An agent (root or subagent) ended. */
    default void agentFinished(AgentFinished event) {}

    /** A tool call ended. */
    default void toolCallFinished(ToolCallFinished event) {}

    /** A model call ended. */
    default void modelCallFinished(ModelCallFinished event) {}

    /**
     * A call naming an agent of the tree was refused before any worker started (an unknown worker, a
     * malformed delegation, the depth limit, a cycle): a delegation that went nowhere, which evaluation
     * counts as a misroute. Its {@link #toolCallFinished} is reported too.
     */
    default void delegationRefused(DelegationRefused event) {}

    /** An agent ended; {@code category} is null when it succeeded. */
    record AgentFinished(
            String runId,
            String sessionId,
            String agent,
            int depth,
            OutcomeStatus status,
            @Nullable FailureCategory category,
            TokenUsage usage,
            int iterations,
            int toolCalls,
            Duration duration) {}

    /**
     * A tool call ended; {@code worker} is true for a call that ran a worker (whose own invocation
     * reports the worker's failure), false for a plain tool and for a delegation refused before it
     * started (reported by {@link #delegationRefused} as well).
     */
    record ToolCallFinished(
            String runId,
            String sessionId,
            String agent,
            String tool,
            Risk risk,
            boolean worker,
            OutcomeStatus status,
            @Nullable FailureCategory category,
            Duration duration) {}

    /**
     * A delegation refused before it started; {@code worker} is the agent name the model called,
     * always an agent of the tree (a name that is no agent at all is an unknown tool, not reported
     * here, so label values stay a closed set).
     */
    record DelegationRefused(String runId, String sessionId, String agent, String worker, Failure failure) {}

    /** A model call ended; {@code cost} in the price table's currency (0 when unpriced or failed). */
    record ModelCallFinished(
            String runId,
            String sessionId,
            String agent,
            ModelRef model,
            TokenUsage usage,
            @Nullable FailureCategory category,
            Duration duration,
            double cost) {
        public ModelCallFinished(
                String runId,
                String sessionId,
                String agent,
                ModelRef model,
                TokenUsage usage,
                @Nullable FailureCategory category,
                Duration duration) {
            this(runId, sessionId, agent, model, usage, category, duration, 0);
        }
    }
}
