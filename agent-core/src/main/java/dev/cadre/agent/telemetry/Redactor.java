package dev.cadre.agent.telemetry;

/** Rewrites captured tool arguments or results before they go on a span (drop secrets, cut size). */
@FunctionalInterface
public interface Redactor {

    /** Keeps the text as it is. */
    Redactor NONE = (tool, text) -> text;

    /** The text to record for {@code tool}. */
    String redact(String tool, String text);
}
