package dev.cadre.agent.run;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The contract a worker call returns (DESIGN.md section 2, seed 004): the parent's model reads only
 * the status and the summary (or the error); {@code data} and {@code metrics} stay out of its context
 * and are kept with the run. A worker whose final answer is a JSON object with a {@code summary} field
 * fills them from it; otherwise the whole answer is the summary. One of {@link Ok}, {@link Rejected}
 * (a reviewer withdrew the result) or {@link Failed}.
 */
public sealed interface SubagentOutcome {

    /** The parent's call that started the worker. */
    String callId();

    String worker();

    /** The worker's session, {@code <parent>/<worker>#n}. */
    String sessionId();

    OutcomeStatus status();

    /**
     * Whether the worker ran on less than its own token budget because the run's tree budget was low
     * (seed 004's degradation).
     */
    boolean degraded();

    /** What the worker did: usage, iterations, tools, duration, its own worker calls. */
    AgentWork work();

    /** What the parent read; set only for {@link Ok}. */
    default @Nullable String summary() {
        return null;
    }

    /** The contract's {@code data}, if the worker answered with one. */
    default @Nullable JsonNode data() {
        return null;
    }

    /** The contract's {@code metrics}, if the worker answered with one. */
    default @Nullable JsonNode metrics() {
        return null;
    }

    /** Why the call failed; set exactly for {@link Failed}. */
    default @Nullable Failure error() {
        return null;
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

    default List<SubagentOutcome> subagents() {
        return work().subagents();
    }

    /** The worker answered; its (possibly reviewer-edited) summary went to the parent. */
    record Ok(
            String callId,
            String worker,
            String sessionId,
            String summary,
            @Nullable JsonNode data,
            @Nullable JsonNode metrics,
            boolean degraded,
            AgentWork work)
            implements SubagentOutcome {
        public Ok {
            Objects.requireNonNull(summary, "summary");
            Objects.requireNonNull(work, "work");
        }

        @Override
        public OutcomeStatus status() {
            return OutcomeStatus.OK;
        }
    }

    /**
     * The worker answered but a reviewer rejected the result: the parent read the reviewer's comment.
     * The contract's data and metrics are still kept with the run.
     */
    record Rejected(
            String callId,
            String worker,
            String sessionId,
            @Nullable JsonNode data,
            @Nullable JsonNode metrics,
            boolean degraded,
            AgentWork work)
            implements SubagentOutcome {
        public Rejected {
            Objects.requireNonNull(work, "work");
        }

        @Override
        public OutcomeStatus status() {
            return OutcomeStatus.DENIED;
        }
    }

    /**
     * The worker failed, timed out, ran out of budget, was cancelled, or never started. {@code data} and
     * {@code metrics} are set only when it answered but no reviewer decided on the result in time.
     */
    record Failed(
            String callId,
            String worker,
            String sessionId,
            OutcomeStatus status,
            Failure error,
            @Nullable JsonNode data,
            @Nullable JsonNode metrics,
            boolean degraded,
            AgentWork work)
            implements SubagentOutcome {
        public Failed {
            Objects.requireNonNull(error, "error");
            Objects.requireNonNull(work, "work");
            if (status == OutcomeStatus.OK || status == OutcomeStatus.DENIED) {
                throw new IllegalArgumentException("a failed worker call cannot have status " + status.wireName());
            }
        }
    }
}
