package dev.cadre.agent.telemetry;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A {@link Redactor} that masks credentials: in JSON, the whole value under a secret-named key
 * ({@code password}, {@code pwd}, {@code pass}, {@code apiKey}, {@code client_secret},
 * {@code credentials}, {@code auth}, …, a subtree included); in any text, passwords in URLs
 * ({@code postgres://user:pass@host}), {@code key=value} pairs with such keys, bearer and basic
 * credentials, JWTs, PEM private keys, and well-known provider key formats. Counts named like
 * {@code inputTokens} or {@code maxTokens} are not secrets and stay.
 */
public final class SecretMasker implements Redactor {

    /** What a secret is replaced with. */
    public static final String MASK = "[REDACTED]";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Key words that make a key secret on their own. */
    private static final Set<String> SECRET_WORDS = Set.of(
            "password",
            "passwd",
            "pwd",
            "pass",
            "passphrase",
            "secret",
            "secrets",
            "token",
            "apikey",
            "authorization",
            "auth",
            "credential",
            "credentials",
            "cookie",
            "privatekey");

    /** Word pairs that make a key secret ({@code api_key}, {@code privateKey}, {@code access-key}). */
    private static final Set<String> SECRET_PAIRS =
            Set.of("api key", "private key", "access key", "secret key", "client secret", "session key");

    private static final String KEY_WORDS =
            "password|passwd|pwd|pass|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key"
                    + "|client[_-]?secret|private[_-]?key|authorization|credentials?";

    private static final List<Replacement> STANDARD = List.of(
            // PEM private keys, whole; a truncated one (no END line) to the end of the text.
            new Replacement(
                    Pattern.compile(
                            "-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----.*?-----END ([A-Z0-9]+ )*PRIVATE KEY-----",
                            Pattern.DOTALL),
                    MASK,
                    anyOf("private key-----")),
            new Replacement(
                    Pattern.compile("-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----.*", Pattern.DOTALL),
                    MASK,
                    anyOf("private key-----")),
            // JWTs: three base64url parts, the first a JSON header ("eyJ").
            new Replacement(
                    Pattern.compile("\\beyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}"),
                    MASK,
                    anyOf("eyj")),
            // user:password@ in any URL: the user stays, so a reader still sees which account.
            new Replacement(
                    Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://[^\\s:/@\"'<>]*):[^\\s/@\"'<>]+@"),
                    "$1:" + MASK.replace("[", "\\[").replace("]", "\\]") + "@",
                    true,
                    lower -> lower.contains("://") && lower.indexOf('@') >= 0),
            new Replacement(Pattern.compile("(?i)\\bbearer\\s+[A-Za-z0-9._~+/=-]{8,}"), MASK, anyOf("bearer")),
            // Basic credentials are base64 of user:password; "Basic Authentication" (a word) is not one.
            new Replacement(
                    Pattern.compile("(?i)\\bbasic\\s+(?-i:(?![A-Z]?[a-z]+\\b))[A-Za-z0-9+/]{8,}={0,2}"),
                    MASK,
                    anyOf("basic")),
            // An Authorization header with whatever scheme, the credential included.
            new Replacement(
                    Pattern.compile("(?i)(?<![a-z0-9])authorization[\"']?\\s*[=:]\\s*[\"']?"
                            + "(?:(?:basic|bearer|digest|token|negotiate|apikey)\\s+)?[^\\s,;\"'}]+"),
                    MASK,
                    anyOf("authorization")),
            new Replacement(Pattern.compile("\\bcadre_[A-Za-z0-9]{16,}"), MASK, anyOf("cadre_")),
            new Replacement(Pattern.compile("\\bsk-[A-Za-z0-9_-]{16,}"), MASK, anyOf("sk-")),
            new Replacement(
                    Pattern.compile("\\bgh[pousr]_[A-Za-z0-9]{20,}"),
                    MASK,
                    anyOf("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
            new Replacement(Pattern.compile("\\bxox[abpr]-[A-Za-z0-9-]{10,}"), MASK, anyOf("xox")),
            new Replacement(Pattern.compile("\\bAKIA[0-9A-Z]{16}\\b"), MASK, anyOf("akia")),
            // key=value, key: value, "key": "value" with a secret key; the whole pair goes.
            new Replacement(
                    Pattern.compile("(?i)(?<![a-z0-9])(" + KEY_WORDS
                            + ")[\"']?\\s*[=:]\\s*(\"[^\"]*\"|'[^']*'|[^\\s,;\"'}&]+)"),
                    MASK,
                    lower -> (lower.indexOf('=') >= 0 || lower.indexOf(':') >= 0)
                            && anyOf("pass", "pwd", "secret", "token", "key", "authorization", "credential")
                                    .test(lower)));

    /**
     * A pattern and what replaces its matches; {@code keepsUrlPrefix}: the replacement keeps the
     * {@code scheme://user} part and masks from the colon after it (what {@link StreamingRedactor}
     * may show before the password has arrived). {@code mayMatch}, given the text in lower case,
     * is false only where the pattern cannot match (a literal every match contains is missing):
     * most texts hold no secret, and a few substring searches over them cost far less than running
     * every pattern (the patterns were most of a run list's CPU, issue #18).
     */
    record Replacement(Pattern pattern, String with, boolean keepsUrlPrefix, Predicate<String> mayMatch) {
        Replacement(Pattern pattern, String with) {
            this(pattern, with, false, lower -> true);
        }

        Replacement(Pattern pattern, String with, Predicate<String> mayMatch) {
            this(pattern, with, false, mayMatch);
        }
    }

    /** True when the lower-cased text contains one of these lower-case literals. */
    private static Predicate<String> anyOf(String... literals) {
        return lower -> {
            for (String l : literals) {
                if (lower.contains(l)) {
                    return true;
                }
            }
            return false;
        };
    }

    private final List<Replacement> replacements;

    /**
     * @param extraPatterns more patterns whose matches are masked (e.g. an organisation's own key format)
     */
    public SecretMasker(List<Pattern> extraPatterns) {
        List<Replacement> all = new ArrayList<>(STANDARD);
        extraPatterns.forEach(p -> all.add(new Replacement(p, MASK)));
        this.replacements = List.copyOf(all);
    }

    /** The standard patterns only. */
    public static SecretMasker standard() {
        return new SecretMasker(List.of());
    }

    @Override
    public String redact(String tool, String text) {
        return redactText(text);
    }

    /** Whether a JSON key names a secret: by its words, so {@code dbPass} is and {@code maxTokens} is not. */
    public static boolean secretKey(String key) {
        List<String> words = words(key);
        for (int i = 0; i < words.size(); i++) {
            if (SECRET_WORDS.contains(words.get(i))) {
                return true;
            }
            if (i + 1 < words.size() && SECRET_PAIRS.contains(words.get(i) + " " + words.get(i + 1))) {
                return true;
            }
        }
        return false;
    }

    static List<String> words(String key) {
        List<String> out = new ArrayList<>(4);
        // camelCase and separators split words: accessToken -> access, token; DB_PASS -> db, pass.
        // By hand, not String.split: this runs for every key of every JSON value redacted.
        StringBuilder word = new StringBuilder();
        char previous = 0;
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean upper = c >= 'A' && c <= 'Z';
            boolean alnum = upper || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            boolean lowerOrDigit = (previous >= 'a' && previous <= 'z') || (previous >= '0' && previous <= '9');
            if (!alnum || (upper && lowerOrDigit)) {
                if (!word.isEmpty()) {
                    out.add(word.toString());
                    word.setLength(0);
                }
            }
            if (alnum) {
                word.append(upper ? (char) (c + ('a' - 'A')) : c);
            }
            previous = c;
        }
        if (!word.isEmpty()) {
            out.add(word.toString());
        }
        return out;
    }

    /**
     * A redactor for text that arrives in pieces (a model's streamed answer), applying these same
     * patterns: what it lets out, piece after piece and then flushed, is what {@link #redactText}
     * makes of the whole text.
     */
    public StreamingRedactor streaming() {
        return new StreamingRedactor(this);
    }

    List<Replacement> replacements() {
        return replacements;
    }

    /** The text with credentials masked; JSON text is masked structurally and stays JSON. */
    public @Nullable String redactText(@Nullable String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String trimmed = text.strip();
        if ((trimmed.startsWith("{") && trimmed.endsWith("}")) || (trimmed.startsWith("[") && trimmed.endsWith("]"))) {
            try {
                return redact(JSON.readTree(trimmed)).toString();
            } catch (RuntimeException notJson) {
                // fall through to the textual patterns
            }
        }
        return maskPatterns(text);
    }

    /** The textual patterns alone, in order (what {@link #redactText} applies to text that is not JSON). */
    String maskPatterns(String text) {
        String out = text;
        // ASCII case folding is all the (?i) patterns do, so a match implies its literal is here.
        String lower = out.toLowerCase(Locale.ROOT);
        for (Replacement r : replacements) {
            if (!r.mayMatch().test(lower)) {
                continue;
            }
            Matcher m = r.pattern().matcher(out);
            if (m.find()) {
                out = m.replaceAll(r.with());
                lower = out.toLowerCase(Locale.ROOT);
            }
        }
        return out;
    }

    /** A copy of the tree with secret-named keys' values (whole subtrees) and credentials in strings masked. */
    public @Nullable JsonNode redact(@Nullable JsonNode node) {
        if (node == null) {
            return null;
        }
        if (node.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                if (secretKey(e.getKey()) && !e.getValue().isNull()) {
                    copy.put(e.getKey(), MASK);
                } else {
                    copy.set(e.getKey(), redact(e.getValue()));
                }
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            node.forEach(n -> copy.add(redact(n)));
            return copy;
        }
        if (node.isString()) {
            String red = redactText(node.asString());
            return red == null || red.equals(node.asString()) ? node : JsonNodeFactory.instance.stringNode(red);
        }
        return node;
    }
}
