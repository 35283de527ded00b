package dev.cadre.agent.run;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What to run: a run id (unique, the key of journals and approvals), the main session id (by default
 * the run id), the agent that roots the run, the user's input and optional context appended to it.
 */
public record RunRequest(
        String runId,
        String sessionId,
        String agent,
        String input,
        @Nullable String context) {

    public RunRequest {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(input, "input");
        if (runId.isBlank() || sessionId.isBlank()) {
            throw new IllegalArgumentException("runId and sessionId must not be blank");
        }
    }

    /** A request whose session id is the run id, without context. */
    public static RunRequest of(String runId, String agent, String input) {
        return new RunRequest(runId, runId, agent, input, null);
    }
}
