package dev.cadre.agent.model;

/** A model provider was unreachable or answered something malformed: a {@code COMMUNICATION_ERROR}. */
public class ModelException extends RuntimeException {

    private final String code;

    public ModelException(String code, String message) {
        super(message);
        this.code = code;
    }

    public ModelException(String code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** Short machine-readable reason, e.g. {@code provider_unreachable} or {@code script_exhausted}. */
    public String code() {
        return code;
    }
}
