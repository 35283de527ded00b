package dev.cadre.platform.web;

import dev.cadre.agent.telemetry.SecretMasker;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * Removes secrets before anything is stored, streamed, traced or shown (events, spans, approvals,
 * run records): agent-core's {@link SecretMasker} — whole values under secret-named keys,
 * credentials in URLs, key=value pairs, bearer/basic credentials, JWTs, PEM private keys, provider
 * keys — plus the patterns configured in {@code cadre.redaction.patterns}.
 */
@Component
public class SecretRedactor {

    public static final String MASK = SecretMasker.MASK;

    private final SecretMasker masker;

    SecretRedactor(@Value("${cadre.redaction.patterns:}") List<String> extraPatterns) {
        this.masker = new SecretMasker(extraPatterns.stream()
                .filter(p -> !p.isBlank())
                .map(Pattern::compile)
                .toList());
    }

    public String redactText(String text) {
        return masker.redactText(text);
    }

    /**
     * A redactor for one streamed text (a model turn's pieces) with the same patterns: what it lets
     * out, concatenated, is what {@link #redactText} makes of the whole text.
     */
    public dev.cadre.agent.telemetry.StreamingRedactor streaming() {
        return masker.streaming();
    }

    public JsonNode redact(JsonNode node) {
        return masker.redact(node);
    }
}
