package dev.cadre.agent.telemetry;

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

    /** A tool call ended; {@code worker} tells delegation from a plain tool. */
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
