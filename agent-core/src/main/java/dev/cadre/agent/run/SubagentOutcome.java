package dev.cadre.agent.run;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The contract a worker call returns (DESIGN.md section 2, seed 004): the parent's model reads only
 * {@code status} and {@code summary} (or {@code error}); {@code data} and {@code metrics} stay out of
 * its context and are kept with the run. A worker whose final answer is a JSON object with a
 * {@code summary} field fills them from it; otherwise the whole answer is the summary.
 *
 * @param degraded whether the worker ran on less than its own token budget because the run's tree
 *     budget was low (seed 004's degradation)
 */
public record SubagentOutcome(
        String callId,
        String worker,
        String sessionId,
        OutcomeStatus status,
        @Nullable String summary,
        @Nullable JsonNode data,
        @Nullable JsonNode metrics,
        @Nullable Failure error,
        TokenUsage usage,
        int iterations,
        List<String> toolsCalled,
        Duration duration,
        boolean degraded,
        List<SubagentOutcome> subagents) {

    public SubagentOutcome {
        toolsCalled = List.copyOf(toolsCalled);
        subagents = List.copyOf(subagents);
    }
}
