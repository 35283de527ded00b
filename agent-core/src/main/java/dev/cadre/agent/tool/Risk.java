package dev.cadre.agent.tool;

/** How much a tool call may do on its own (DESIGN.md section 2). */
public enum Risk {
    /** Runs without ceremony, concurrently with the other calls of its turn. */
    AUTO,
    /** Runs concurrently, is flagged in the event stream and journalled as side-effecting. */
    SUGGEST,
    /** Waits for a human decision through the approval gate; one by one, never concurrently. */
    APPROVE
}
