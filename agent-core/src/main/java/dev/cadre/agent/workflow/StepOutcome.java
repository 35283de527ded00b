package dev.cadre.agent.workflow;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.run.AgentWork;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One agent run inside a workflow: its status, answer or failure, and what its loop did ({@link
 * AgentWork}: tokens, iterations, tools in call order, duration, its own worker calls) — the same
 * record a model-driven run keeps of a worker call, so both shapes of run report alike.
 */
public record StepOutcome(
        String label,
        String agent,
        String sessionId,
        OutcomeStatus status,
        @Nullable String text,
        @Nullable Failure failure,
        AgentWork work) {

    public StepOutcome {
        Objects.requireNonNull(work, "work");
    }

    /** Tokens of the step's loop and of its workers. */
    public TokenUsage usage() {
        return work.usage();
    }

    public int iterations() {
        return work.iterations();
    }

    public List<String> toolsCalled() {
        return work.toolsCalled();
    }

    public Duration duration() {
        return work.duration();
    }
}
