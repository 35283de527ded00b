package dev.cadre.agent.run;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How a run ended. {@code finalText} is set only when the status is {@code ok} (budget exhaustion is a
 * failure, never a half answer); {@code failure} is set exactly when it is not {@code ok} or
 * {@code denied}. Usage counts the whole tree; {@code subagents} lists the root's worker calls in call
 * order (those of turns executed by this process: a resumed run lists the ones after the resume).
 */
public record RunOutcome(
        String runId,
        String sessionId,
        String agent,
        OutcomeStatus status,
        @Nullable String finalText,
        @Nullable Failure failure,
        List<SubagentOutcome> subagents,
        TokenUsage usage,
        int iterations,
        List<String> toolsCalled,
        Duration duration) {

    public RunOutcome {
        subagents = List.copyOf(subagents);
        toolsCalled = List.copyOf(toolsCalled);
    }
}
