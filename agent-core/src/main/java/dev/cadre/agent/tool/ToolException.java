package dev.cadre.agent.tool;

import dev.cadre.agent.FailureCategory;

/**
 * Thrown by a tool to report a failure of a category other than {@code EXECUTION_ERROR}, e.g. a
 * memory conflict it could not resolve ({@code STATE_INCONSISTENCY}).
 */
public class ToolException extends Exception {

    private final FailureCategory category;
    private final String code;

    public ToolException(FailureCategory category, String code, String message) {
        super(message);
        this.category = category;
        this.code = code;
    }

    /** The failure category the call's result carries. */
    public FailureCategory category() {
        return category;
    }

    /** Short machine-readable reason. */
    public String code() {
        return code;
    }
}
