package dev.cadre.agent;

/**
 * How much a human sees of a worker's delegation (DESIGN.md section 2, human in the loop): nothing,
 * an approval before the worker starts, or a review of its result before the parent reads it.
 */
public enum ReviewPolicy {
    /** The worker runs as soon as its parent calls it. */
    NONE,
    /** Calling the worker is an {@code APPROVE}-risk call: it waits for a human decision first. */
    APPROVE_BEFORE_START,
    /**
     * The worker runs, then its result waits for a human: approve continues, approve with edited
     * arguments ({@code {"summary": "..."}}) corrects the summary, reject withdraws the result (the
     * parent reads the reviewer's comment and goes on), abort stops the whole run as {@code rejected}.
     */
    REVIEW_RESULT
}
