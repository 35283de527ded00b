package dev.cadre.platform.web;

import dev.cadre.agent.telemetry.SecretMasker;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Removes secrets before anything is stored, streamed, traced or shown (events, spans, approvals,
 * run records): agent-core's {@link SecretMasker} — whole values under secret-named keys,
 * credentials in URLs, key=value pairs, bearer/basic credentials, JWTs, PEM private keys, provider
 * keys — plus the patterns configured in {@code cadre.redaction.patterns}, each call within
 * {@code cadre.redaction.max-chars} and {@code cadre.redaction.time-limit}.
 *
 * <p>The one place every way out goes through (issue 23): an object leaving the platform — an
 * event, an approval, an A2A answer, a memory entry, a webhook body — is redacted as a whole with
 * {@link #redact(JsonNode)} or {@link #redacted(Object, Class)} (the JSON tree walked: values under
 * secret-named keys masked whole, every string through the patterns), never field by field, so a
 * field added later is covered too. What is stored is redacted when written (run texts, events,
 * approvals, incident entries), so reading it costs no pattern matching.
 */
@Component
public class SecretRedactor {

    public static final String MASK = SecretMasker.MASK;

    private static final String FENCE_OPEN = "<untrusted-data source=\"";
    private static final String FENCE_CLOSE = "\n</untrusted-data>";

    private final SecretMasker masker;
    private final JsonMapper json;

    @Autowired
    SecretRedactor(
            @Value("${cadre.redaction.patterns:}") List<String> extraPatterns,
            @Value("${cadre.redaction.max-chars:1048576}") int maxChars,
            @Value("${cadre.redaction.time-limit:PT2S}") Duration timeLimit,
            JsonMapper json) {
        this.masker = new SecretMasker(
                extraPatterns.stream()
                        .filter(p -> !p.isBlank())
                        .map(Pattern::compile)
                        .toList(),
                new SecretMasker.Limits(maxChars, timeLimit));
        this.json = json;
    }

    /** The built-in patterns with the default limits (for code and tests outside the application context). */
    public static SecretRedactor standard() {
        SecretMasker.Limits d = SecretMasker.Limits.DEFAULT;
        return new SecretRedactor(
                List.of(), d.maxChars(), d.timeLimit(), JsonMapper.builder().build());
    }

    public @Nullable String redactText(@Nullable String text) {
        return masker.redactText(text);
    }

    /**
     * A run's input: the text outside the data fences ({@code <untrusted-data …>} blocks of alerts and
     * A2A messages) and each fenced block's content redacted apart, so that a mask can never swallow
     * a fence's closing tag and turn the data after it into instructions (a quoted value or a PEM key
     * running on to the next block would). A linear scan, not a pattern.
     */
    public String redactInput(String input) {
        if (!input.contains(FENCE_OPEN)) {
            return masker.redactText(input);
        }
        StringBuilder out = new StringBuilder(input.length());
        int from = 0;
        while (from < input.length()) {
            int open = input.indexOf(FENCE_OPEN, from);
            int tagEnd = open < 0 ? -1 : input.indexOf("\">\n", open + FENCE_OPEN.length());
            int close = tagEnd < 0 ? -1 : input.indexOf(FENCE_CLOSE, tagEnd + 3);
            if (close < 0) {
                out.append(masker.redactText(input.substring(from)));
                break;
            }
            out.append(masker.redactText(input.substring(from, open)))
                    .append(input, open, tagEnd + 3)
                    .append(masker.redactText(input.substring(tagEnd + 3, close)))
                    .append(FENCE_CLOSE);
            from = close + FENCE_CLOSE.length();
        }
        return out.toString();
    }

    /**
     * A redactor for one streamed text (a model turn's pieces) with the same patterns: what it lets
     * out, concatenated, is what {@link #redactText} makes of the whole text.
     */
    public dev.cadre.agent.telemetry.StreamingRedactor streaming() {
        return masker.streaming();
    }

    /** A copy of the tree with every value under a secret-named key masked whole and every string redacted. */
    public JsonNode redact(JsonNode node) {
        return masker.redact(node);
    }

    /** {@code value} (a record the REST API or a webhook sends) redacted as a whole: through its JSON tree and back. */
    public <T> T redacted(T value, Class<T> type) {
        return json.treeToValue(masker.redact(json.valueToTree(value)), type);
    }
}
