package dev.cadre.agent.run;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a run ended: {@link Completed} with a final answer, or {@link Failed} with exactly one failure
 * (budget exhaustion is a failure, never a half answer). Usage counts the whole tree; {@code
 * subagents} lists the root's worker calls in call order (those of turns executed by this process: a
 * resumed run lists the ones after the resume).
 */
public sealed interface RunOutcome {

    String runId();

    String sessionId();

    /** The root agent. */
    String agent();

    OutcomeStatus status();

    /** What the run did: usage, iterations, tools, duration, worker calls. */
    AgentWork work();

    /** The final answer; set only for {@link Completed}. */
    default @Nullable String finalText() {
        return null;
    }

    /** Why the run did not complete; set exactly for {@link Failed}. */
    default @Nullable Failure failure() {
        return null;
    }

    default List<SubagentOutcome> subagents() {
        return work().subagents();
    }

    default TokenUsage usage() {
        return work().usage();
    }

    default int iterations() {
        return work().iterations();
    }

    default List<String> toolsCalled() {
        return work().toolsCalled();
    }

    default Duration duration() {
        return work().duration();
    }

    /** The run finished with a final answer. */
    record Completed(String runId, String sessionId, String agent, String finalText, AgentWork work)
            implements RunOutcome {
        public Completed {
            Objects.requireNonNull(finalText, "finalText");
            Objects.requireNonNull(work, "work");
        }

        @Override
        public OutcomeStatus status() {
            return OutcomeStatus.OK;
        }
    }

    /** The run failed, timed out, ran out of budget or was cancelled; {@code failure} says why. */
    record Failed(String runId, String sessionId, String agent, OutcomeStatus status, Failure failure, AgentWork work)
            implements RunOutcome {
        public Failed {
            Objects.requireNonNull(failure, "failure");
            Objects.requireNonNull(work, "work");
            if (status == OutcomeStatus.OK) {
                throw new IllegalArgumentException("a failed run cannot have status ok");
            }
        }
    }
}
