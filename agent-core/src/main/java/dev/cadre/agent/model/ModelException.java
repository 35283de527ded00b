package dev.cadre.agent.model;

import dev.cadre.agent.FailureCategory;

/**
 * A model provider failed: unreachable or answering something malformed ({@code COMMUNICATION_ERROR}),
 * or not answering in time ({@code TIMEOUT_ERROR}).
 */
public class ModelException extends RuntimeException {

    private final String code;
    private final FailureCategory category;

    public ModelException(String code, String message) {
        this(code, message, null, FailureCategory.COMMUNICATION_ERROR);
    }

    public ModelException(String code, String message, Throwable cause) {
        this(code, message, cause, FailureCategory.COMMUNICATION_ERROR);
    }

    private ModelException(String code, String message, Throwable cause, FailureCategory category) {
        super(message, cause);
        this.code = code;
        this.category = category;
    }

    /** The provider did not answer in time: the call fails with {@code TIMEOUT_ERROR}. */
    public static ModelException timeout(String code, String message, Throwable cause) {
        return new ModelException(code, message, cause, FailureCategory.TIMEOUT_ERROR);
    }

    /** Short machine-readable reason, e.g. {@code provider_unreachable} or {@code script_exhausted}. */
    public String code() {
        return code;
    }

    /** {@code COMMUNICATION_ERROR}, or {@code TIMEOUT_ERROR} for a provider that did not answer in time. */
    public FailureCategory category() {
        return category;
    }
}
