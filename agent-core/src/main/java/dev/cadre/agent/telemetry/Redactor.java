package dev.cadre.agent.telemetry;

/**
 * Rewrites captured tool arguments or results before they go on a span (drop secrets, cut size);
 * {@link SecretMasker} is the credential-masking one.
 */
@FunctionalInterface
public interface Redactor {

    /** Keeps the text as it is. */
    Redactor NONE = (tool, text) -> text;

    /** Masks credentials with {@link SecretMasker}'s standard patterns. */
    static Redactor credentials() {
        return SecretMasker.standard();
    }

    /** The text to record for {@code tool}. */
    String redact(String tool, String text);
}
