package dev.cadre.agent.run;

import dev.cadre.agent.TokenUsage;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one agent loop did, whatever its outcome: tokens (its own and its workers'), iterations, the
 * tools it called in order, how long it ran and its worker calls in call order.
 */
public record AgentWork(
        TokenUsage usage,
        int iterations,
        List<String> toolsCalled,
        Duration duration,
        List<SubagentOutcome> subagents) {

    public AgentWork {
        Objects.requireNonNull(usage, "usage");
        Objects.requireNonNull(duration, "duration");
        toolsCalled = List.copyOf(toolsCalled);
        subagents = List.copyOf(subagents);
    }

    /** No work at all: for a call refused before anything started. */
    public static AgentWork none(Duration duration) {
        return new AgentWork(TokenUsage.ZERO, 0, List.of(), duration, List.of());
    }
}
