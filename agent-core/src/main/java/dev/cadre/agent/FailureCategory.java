package dev.cadre.agent;

/**
 * The one category every failure in Cadre carries, used alike in spans ({@code error.type}),
 * metrics, the REST API and the console (DESIGN.md section 2, seed 003's failure taxonomy).
 */
public enum FailureCategory {
    /** Wrong or unknown worker, malformed delegation, depth limit or delegation cycle. */
    ORCHESTRATION_ERROR,
    /** Model, provider or remote agent unreachable, or answering something malformed. */
    COMMUNICATION_ERROR,
    /** A tool or worker failed while doing its job. */
    EXECUTION_ERROR,
    /** A call or a run exceeded its time limit. */
    TIMEOUT_ERROR,
    /** A shared-state conflict that could not be resolved. */
    STATE_INCONSISTENCY,
    /** A human decision (approval, review, question) did not arrive in time. */
    HUMAN_INTERVENTION_TIMEOUT,
    /** Iterations or tokens ran out before the work was done. */
    BUDGET_EXCEEDED
}
