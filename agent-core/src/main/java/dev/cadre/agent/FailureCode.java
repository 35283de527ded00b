package dev.cadre.agent;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The catalogue of failure codes the agent core itself raises, grouped by their {@link FailureCategory}.
 * Each constant carries the exact wire string ({@link #code()}) that appears in events, spans,
 * checkpoints and the REST API; renaming a constant is free, changing a code is a wire-format change.
 * Tools, model ports and remote agents may raise codes of their own, so {@link Failure#code()} stays a
 * string.
 */
public enum FailureCode {
    // ---- ORCHESTRATION_ERROR: the model asked for something the agent tree does not allow ----
    /** A call of a name that is neither a tool nor a worker of the agent. */
    UNKNOWN_TOOL(FailureCategory.ORCHESTRATION_ERROR, "unknown_tool"),
    /** A call of an agent of the tree that is not a worker of the calling agent. */
    UNKNOWN_WORKER(FailureCategory.ORCHESTRATION_ERROR, "unknown_worker"),
    /** A delegation whose arguments do not match {@code {task, context?, memory_keys?}}. */
    INVALID_DELEGATION(FailureCategory.ORCHESTRATION_ERROR, "invalid_delegation"),
    /** A delegation below the run's maximum depth. */
    DEPTH_LIMIT(FailureCategory.ORCHESTRATION_ERROR, "depth_limit"),
    /** A delegation to an agent already above the caller. */
    DELEGATION_CYCLE(FailureCategory.ORCHESTRATION_ERROR, "delegation_cycle"),
    /** A handoff to an agent outside the handoff workflow. */
    UNKNOWN_HANDOFF_TARGET(FailureCategory.ORCHESTRATION_ERROR, "unknown_handoff_target"),
    /** A handoff workflow that passed the baton too often. */
    HANDOFF_LIMIT(FailureCategory.ORCHESTRATION_ERROR, "handoff_limit"),

    // ---- COMMUNICATION_ERROR: the model port failed ----
    /** The model port threw something other than a {@code ModelException}. */
    MODEL_ERROR(FailureCategory.COMMUNICATION_ERROR, "model_error"),
    /** The model port returned no response at all. */
    EMPTY_RESPONSE(FailureCategory.COMMUNICATION_ERROR, "empty_response"),

    // ---- EXECUTION_ERROR: something failed while doing its job ----
    /** A bug in the loop or a port, caught so the run still ends as an outcome. */
    INTERNAL_ERROR(FailureCategory.EXECUTION_ERROR, "internal_error"),
    /** A tool threw. */
    TOOL_FAILED(FailureCategory.EXECUTION_ERROR, "tool_failed"),
    /** A tool call whose arguments do not match the tool's schema. */
    INVALID_ARGUMENTS(FailureCategory.EXECUTION_ERROR, "invalid_arguments"),
    /** An approver's edits that do not match the tool's schema. */
    INVALID_EDITED_ARGUMENTS(FailureCategory.EXECUTION_ERROR, "invalid_edited_arguments"),
    /** A decision taken on another action (tool or arguments) than the one about to run. */
    APPROVAL_MISMATCH(FailureCategory.EXECUTION_ERROR, "approval_mismatch"),
    /** A worker that failed (its own failure is kept in the subagent outcome). */
    WORKER_FAILED(FailureCategory.EXECUTION_ERROR, "worker_failed"),
    /** Interrupted without a stop reason, or a journalled call whose outcome was never recorded. */
    INTERRUPTED(FailureCategory.EXECUTION_ERROR, "interrupted"),
    /** Cancelled by the caller. */
    CANCELLED(FailureCategory.EXECUTION_ERROR, "cancelled"),
    /** A human answered a review or approval with abort: the whole run stops, {@code rejected}. */
    RUN_ABORTED(FailureCategory.EXECUTION_ERROR, "run_aborted"),
    /** Some workers of a map-reduce failed. */
    WORKERS_FAILED(FailureCategory.EXECUTION_ERROR, "workers_failed"),
    /** Some chunks of a split failed. */
    CHUNKS_FAILED(FailureCategory.EXECUTION_ERROR, "chunks_failed"),
    /** A debate in which nobody stated a position. */
    NO_POSITIONS(FailureCategory.EXECUTION_ERROR, "no_positions"),
    /**
     * A model that asked for the same calls (same tools, same arguments) turn after turn, stopped at
     * {@code RunLimits.maxRepeatedToolCalls} instead of spending its whole budget going round.
     */
    REPEATED_TOOL_CALL(FailureCategory.EXECUTION_ERROR, "repeated_tool_call"),

    // ---- TIMEOUT_ERROR ----
    /** An agent exceeded its own timeout. */
    AGENT_TIMEOUT(FailureCategory.TIMEOUT_ERROR, "agent_timeout"),
    /** A worker timed out, as its parent reads it. */
    WORKER_TIMEOUT(FailureCategory.TIMEOUT_ERROR, "worker_timeout"),

    // ---- BUDGET_EXCEEDED ----
    /** An agent used all its iterations without a final answer. */
    ITERATION_BUDGET(FailureCategory.BUDGET_EXCEEDED, "iteration_budget"),
    /** The next model call would not fit, or did not fit, the token budget. */
    TOKEN_BUDGET(FailureCategory.BUDGET_EXCEEDED, "token_budget"),
    /** The model's answer was cut at the output-token limit. */
    OUTPUT_TRUNCATED(FailureCategory.BUDGET_EXCEEDED, "output_truncated"),
    /** The run's tree budget cannot give a worker even its degraded share. */
    RUN_BUDGET_EXHAUSTED(FailureCategory.BUDGET_EXCEEDED, "run_budget_exhausted"),
    /** A worker ran out of budget, as its parent reads it. */
    WORKER_BUDGET_EXCEEDED(FailureCategory.BUDGET_EXCEEDED, "worker_budget_exceeded"),
    /** The run's model calls cost more than its budget in currency. */
    COST_BUDGET(FailureCategory.BUDGET_EXCEEDED, "cost_budget"),

    // ---- HUMAN_INTERVENTION_TIMEOUT ----
    /** No decision on an approval before it expired (or the gate could not answer). */
    APPROVAL_EXPIRED(FailureCategory.HUMAN_INTERVENTION_TIMEOUT, "approval_expired"),
    /** No decision on a result review in time. */
    REVIEW_EXPIRED(FailureCategory.HUMAN_INTERVENTION_TIMEOUT, "review_expired"),
    /** No human broke a debate's tie in time. */
    TIE_BREAK_EXPIRED(FailureCategory.HUMAN_INTERVENTION_TIMEOUT, "tie_break_expired"),

    // ---- any category ----
    /** A subagent stopped because its parent stopped; it keeps the category of the parent's reason. */
    PARENT_STOPPED(null, "parent_stopped");

    private final @Nullable FailureCategory category;
    private final String code;

    FailureCode(@Nullable FailureCategory category, String code) {
        this.category = category;
        this.code = code;
    }

    /** The wire string, e.g. {@code unknown_worker}. */
    public String code() {
        return code;
    }

    /** The category failures of this code carry; null for {@link #PARENT_STOPPED}, which inherits one. */
    public @Nullable FailureCategory category() {
        return category;
    }

    /** A failure of this code and its category. */
    public Failure failure(String message) {
        if (category == null) {
            throw new IllegalStateException(name() + " has no category of its own; use failure(category, message)");
        }
        return new Failure(category, code, message);
    }

    /** A failure of this code under another category, for codes that inherit one ({@link #PARENT_STOPPED}). */
    public Failure failure(FailureCategory inherited, String message) {
        return new Failure(Objects.requireNonNull(inherited, "inherited"), code, message);
    }

    /** Whether {@code failure} carries this code. */
    public boolean matches(@Nullable Failure failure) {
        return failure != null && code.equals(failure.code());
    }
}
