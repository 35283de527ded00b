package dev.cadre.agent;

import java.util.Locale;

/** How a run, a subagent or a workflow step ended (DESIGN.md section 2's subagent status). */
public enum OutcomeStatus {
    /** Finished with a final answer. */
    OK,
    /** Failed; the failure says why. */
    FAILED,
    /** Ran out of time. */
    TIMEOUT,
    /** Ran out of iterations or tokens before the work was done: never a half answer. */
    BUDGET_EXCEEDED,
    /** A human rejected it. */
    DENIED,
    /** Cancelled by the caller or by a stopping parent. */
    CANCELLED;

    // Computed once: spans and results ask for it on every call.
    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** The lower-case name used in JSON and events ({@code budget_exceeded}). */
    public String wireName() {
        return wireName;
    }

    /** Parses a {@link #wireName()} (case-insensitive). */
    public static OutcomeStatus fromWireName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
