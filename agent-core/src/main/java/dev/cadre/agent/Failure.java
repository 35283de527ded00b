package dev.cadre.agent;

import java.util.Objects;

/**
 * A failure as data: exactly one category, a short machine-readable code and a human message of at
 * most {@value #MAX_MESSAGE_LENGTH} characters (seed 004: errors are truncated and reported honestly).
 */
public record Failure(FailureCategory category, String code, String message) {

    /** Longest message kept; longer ones are cut with an ellipsis so they fit in a parent's context. */
    public static final int MAX_MESSAGE_LENGTH = 200;

    public Failure {
        Objects.requireNonNull(category, "category");
        code = code == null || code.isBlank() ? category.name().toLowerCase(java.util.Locale.ROOT) : code;
        message = truncate(message == null ? "" : message);
    }

    /** Shorthand for a failure whose code is derived from the category. */
    public static Failure of(FailureCategory category, String message) {
        return new Failure(category, "", message);
    }

    /** Cuts {@code text} to at most {@value #MAX_MESSAGE_LENGTH} characters. */
    public static String truncate(String text) {
        String oneLine = text.strip();
        if (oneLine.length() <= MAX_MESSAGE_LENGTH) {
            return oneLine;
        }
        return oneLine.substring(0, MAX_MESSAGE_LENGTH - 1) + "…";
    }
}
