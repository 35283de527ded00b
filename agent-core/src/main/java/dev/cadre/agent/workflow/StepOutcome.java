package dev.cadre.agent.workflow;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import org.jspecify.annotations.Nullable;

/** One agent run inside a workflow. */
public record StepOutcome(
        String label,
        String agent,
        String sessionId,
        OutcomeStatus status,
        @Nullable String text,
        @Nullable Failure failure,
        TokenUsage usage) {}
