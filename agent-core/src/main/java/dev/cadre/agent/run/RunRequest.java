package dev.cadre.agent.run;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What to run: a run id (unique, the key of journals and approvals), the main session id (by default
 * the run id), the agent that roots the run, the user's input and optional context appended to it,
 * and optionally a budget in currency ({@code maxCost}, in the price table's currency): the run stops
 * with {@code BUDGET_EXCEEDED} ({@code cost_budget}) once its model calls cost more.
 */
public record RunRequest(
        String runId,
        String sessionId,
        String agent,
        String input,
        @Nullable String context,
        @Nullable Double maxCost) {

    /** A request without a budget in currency. */
    public RunRequest(String runId, String sessionId, String agent, String input, @Nullable String context) {
        this(runId, sessionId, agent, input, context, null);
    }

    public RunRequest {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(input, "input");
        if (runId.isBlank() || sessionId.isBlank()) {
            throw new IllegalArgumentException("runId and sessionId must not be blank");
        }
        if (maxCost != null && !(maxCost > 0)) {
            throw new IllegalArgumentException("maxCost must be above 0");
        }
    }

    /** A request whose session id is the run id, without context. */
    public static RunRequest of(String runId, String agent, String input) {
        return new RunRequest(runId, runId, agent, input, null);
    }
}
