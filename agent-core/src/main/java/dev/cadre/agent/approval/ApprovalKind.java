package dev.cadre.agent.approval;

/** What a human is asked to decide. */
public enum ApprovalKind {
    /** Whether an {@code APPROVE}-risk tool call (or a worker with review policy APPROVE_BEFORE_START) may run. */
    TOOL_CALL,
    /** Whether a worker's result may continue to its parent as is, corrected, or abort the run. */
    RESULT_REVIEW,
    /** Which verdict a debate without consensus settles on. */
    TIE_BREAK
}
