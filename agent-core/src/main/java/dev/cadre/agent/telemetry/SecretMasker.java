package dev.cadre.agent.telemetry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.MatchResult;
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

    /** The words before PRIVATE KEY in a PEM label ({@code RSA }, {@code ENCRYPTED }), bounded: no attempt runs long. */
    private static final String PEM_LABEL = "(?:[A-Z0-9]{1,24} ){0,4}";

    /*
     * Every pattern is linear-time on any input (issue 23): java.util.regex tries a pattern at every
     * position, so a pattern is quadratic when attempts starting inside one run of characters each
     * scan to the end of that run and then fail. Each pattern below starts only at a literal that
     * ends the previous attempt's scan (the URL pattern starts at its "://"), fails within a bounded
     * distance, or always matches once started (the PEM pattern to its END line or the end of the
     * text; the JWT pattern consumes its first part and only masks a whole token). SecretMaskerTest
     * counts the characters each pattern reads on adversarial inputs of growing size.
     */
    private static final List<Replacement> STANDARD = List.of(
            // PEM private keys, whole; a truncated one (no END line) to the end of the text. Once the
            // BEGIN line matched, the lazy scan ends at the first END line or at the end: it never fails.
            new Replacement(
                    Pattern.compile(
                            "-----BEGIN " + PEM_LABEL + "PRIVATE KEY-----.*?(?:-----END " + PEM_LABEL
                                    + "PRIVATE KEY-----|\\z)",
                            Pattern.DOTALL),
                    m -> MASK,
                    anyOf("private key-----")),
            // JWTs: three base64url parts, the first a JSON header ("eyJ"). The first part is consumed
            // possessively and the rest is optional, so an attempt that is no JWT ends after its first
            // part rather than failing and being tried again at the next "eyJ" inside that part (a
            // later start in the same part could only be a JWT if this one is: same characters after).
            new Replacement(
                    Pattern.compile("\\beyJ[A-Za-z0-9_-]{5,}+(\\.[A-Za-z0-9_-]{5,}+\\.[A-Za-z0-9_-]{5,}+)?+"),
                    m -> m.group(1) == null ? m.group() : MASK,
                    anyOf("eyj")),
            // user:password@ in any URL: the user stays, so a reader still sees which account. The match
            // starts at "://" (the scheme before it stays as text): a scan from one "://" stops at the
            // next one's '/', so no character is read by more than two attempts.
            new Replacement(
                    Pattern.compile("(://[^\\s:/@\"'<>]*+):[^\\s/@\"'<>]++@"),
                    m -> m.group(1) + ":" + MASK + "@",
                    true,
                    lower -> lower.contains("://") && lower.indexOf('@') >= 0),
            new Replacement(Pattern.compile("(?i)\\bbearer\\s++[A-Za-z0-9._~+/=-]{8,}+"), m -> MASK, anyOf("bearer")),
            // Basic credentials are base64 of user:password; "Basic Authentication" (a word) is not one.
            new Replacement(
                    Pattern.compile("(?i)\\bbasic\\s++(?-i:(?![A-Z]?[a-z]++\\b))[A-Za-z0-9+/]{8,}+={0,2}"),
                    m -> MASK,
                    anyOf("basic")),
            // An Authorization header with whatever scheme, the credential included.
            new Replacement(
                    Pattern.compile("(?i)(?<![a-z0-9])authorization[\"']?\\s*+[=:]\\s*+[\"']?"
                            + "(?:(?:basic|bearer|digest|token|negotiate|apikey)\\s++)?[^\\s,;\"'}]++"),
                    m -> MASK,
                    anyOf("authorization")),
            new Replacement(Pattern.compile("\\bcadre_[A-Za-z0-9]{16,}+"), m -> MASK, anyOf("cadre_")),
            new Replacement(Pattern.compile("\\bsk-[A-Za-z0-9_-]{16,}+"), m -> MASK, anyOf("sk-")),
            new Replacement(
                    Pattern.compile("\\bgh[pousr]_[A-Za-z0-9]{20,}+"),
                    m -> MASK,
                    anyOf("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
            new Replacement(Pattern.compile("\\bxox[abpr]-[A-Za-z0-9-]{10,}+"), m -> MASK, anyOf("xox")),
            new Replacement(Pattern.compile("\\bAKIA[0-9A-Z]{16}\\b"), m -> MASK, anyOf("akia")),
            // key=value, key: value, "key": "value" with a secret key; the whole pair goes. A quoted
            // value without its closing quote fails after one scan to the end, and only for the last
            // quote of its kind in the text: every earlier one finds a closing quote and matches.
            new Replacement(
                    Pattern.compile("(?i)(?<![a-z0-9])(" + KEY_WORDS
                            + ")[\"']?\\s*+[=:]\\s*+(\"[^\"]*+\"|'[^']*+'|[^\\s,;\"'}&]++)"),
                    m -> MASK,
                    lower -> (lower.indexOf('=') >= 0 || lower.indexOf(':') >= 0)
                            && anyOf("pass", "pwd", "secret", "token", "key", "authorization", "credential")
                                    .test(lower)));

    /**
     * A pattern and what replaces each of its matches ({@code with} may give the match back unchanged:
     * a match that turned out to be no secret); {@code keepsUrlPrefix}: the replacement keeps the
     * {@code ://user} part and masks from the colon after it (what {@link StreamingRedactor} may show
     * before the password has arrived). {@code mayMatch}, given the text in lower case, is false only
     * where the pattern cannot match (a literal every match contains is missing): most texts hold no
     * secret, and a few substring searches over them cost far less than running every pattern (the
     * patterns were most of a run list's CPU, issue #18).
     */
    record Replacement(
            Pattern pattern, Function<MatchResult, String> with, boolean keepsUrlPrefix, Predicate<String> mayMatch) {
        Replacement(Pattern pattern, Function<MatchResult, String> with) {
            this(pattern, with, false, lower -> true);
        }

        Replacement(Pattern pattern, Function<MatchResult, String> with, Predicate<String> mayMatch) {
            this(pattern, with, false, mayMatch);
        }

        /** The text with every match replaced; the text itself when nothing matched. */
        String applyTo(CharSequence text) {
            Matcher m = pattern.matcher(text);
            if (!m.find()) {
                return text.toString();
            }
            StringBuilder out = new StringBuilder(text.length());
            String plain = text.toString();
            int last = 0;
            do {
                out.append(plain, last, m.start()).append(with.apply(m));
                last = m.end();
            } while (m.find());
            return out.append(plain, last, plain.length()).toString();
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

    /**
     * How much one call may cost: a text longer than {@code maxChars} is cut (at a blank, so no secret
     * is cut in two) and marked, and a text whose patterns take longer than {@code timeLimit} (a
     * configured pattern may backtrack without end) is withheld whole, never passed on in clear.
     */
    public record Limits(int maxChars, Duration timeLimit) {
        /** 1 Mi characters (the request body limit) and 2 s, far above what the standard patterns need. */
        public static final Limits DEFAULT = new Limits(1 << 20, Duration.ofSeconds(2));

        public Limits {
            if (maxChars < 1024) {
                throw new IllegalArgumentException("maxChars must be at least 1024, was " + maxChars);
            }
            if (timeLimit.isNegative() || timeLimit.isZero()) {
                throw new IllegalArgumentException("timeLimit must be positive, was " + timeLimit);
            }
        }
    }

    private final List<Replacement> replacements;

    /**
     * @param extraPatterns more patterns whose matches are masked (e.g. an organisation's own key format)
     */
    private final Limits limits;

    /**
     * @param extraPatterns more patterns whose matches are masked (e.g. an organisation's own key format)
     */
    public SecretMasker(List<Pattern> extraPatterns) {
        this(extraPatterns, Limits.DEFAULT);
    }

    /**
     * @param extraPatterns more patterns whose matches are masked (e.g. an organisation's own key format)
     * @param limits the size and time one call may take
     */
    public SecretMasker(List<Pattern> extraPatterns, Limits limits) {
        List<Replacement> all = new ArrayList<>(STANDARD);
        extraPatterns.forEach(p -> all.add(new Replacement(p, m -> MASK)));
        this.replacements = List.copyOf(all);
        this.limits = limits;
    }

    /** The standard patterns only. */
    public static SecretMasker standard() {
        return new SecretMasker(List.of());
    }

    @Override
    public String redact(String tool, String text) {
        return redactText(text);
    }

    /**
     * Whether a JSON key names a secret: by its words, so {@code dbPass} is and {@code maxTokens} is
     * not, nor is a paging cursor ({@code nextPageToken}).
     */
    public static boolean secretKey(String key) {
        List<String> words = words(key);
        for (int i = 0; i < words.size(); i++) {
            // A page token ({@code nextPageToken}, A2A's and many APIs' paging cursor) opens no door:
            // masking it would break paging through every answer that is redacted as a whole.
            boolean pageToken =
                    i > 0 && words.get(i).equals("token") && words.get(i - 1).equals("page");
            if (SECRET_WORDS.contains(words.get(i)) && !pageToken) {
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

    /**
     * The textual patterns alone, in order (what {@link #redactText} applies to text that is not JSON),
     * within {@link Limits}: a longer text is cut at a blank before the limit and marked, and a text
     * whose redaction runs out of time is withheld whole.
     */
    String maskPatterns(String text) {
        if (text.length() <= limits.maxChars()) {
            return maskWithin(text);
        }
        // Cut at a blank, so that no secret's head is left behind (a URL's user:pass without its @, a
        // JWT's first part): the run of non-blank characters the limit falls into is left out whole.
        int cut = limits.maxChars();
        while (cut > 0 && !Character.isWhitespace(text.charAt(cut - 1))) {
            cut--;
        }
        String masked = cut == 0 ? "" : maskWithin(text.substring(0, cut));
        return masked + "[TRUNCATED: " + (text.length() - cut) + " more characters not shown]";
    }

    private static final String WITHHELD_PREFIX = "[WITHHELD: ";

    private String maskWithin(String text) {
        Deadline budget =
                new Deadline(text, System.nanoTime() + limits.timeLimit().toNanos());
        try {
            return applyAll(text, budget);
        } catch (Deadline.Exceeded e) {
            return WITHHELD_PREFIX + text.length() + " characters; redaction took longer than "
                    + limits.timeLimit().toMillis() + " ms]";
        }
    }

    private String applyAll(String text, Deadline budget) {
        String out = text;
        // ASCII case folding is all the (?i) patterns do, so a match implies its literal is here.
        String lower = out.toLowerCase(Locale.ROOT);
        for (Replacement r : replacements) {
            if (!r.mayMatch().test(lower)) {
                continue;
            }
            String next = r.applyTo(budget.over(out));
            if (!next.equals(out)) {
                out = next;
                lower = out.toLowerCase(Locale.ROOT);
            }
        }
        return out;
    }

    /**
     * A text whose every character read checks, now and then, a deadline shared by all patterns of one
     * call: the regex engine reads its input only through {@link CharSequence#charAt}, so this bounds
     * the time of any pattern, a configured one that backtracks without end included.
     */
    private static final class Deadline implements CharSequence {
        static final class Exceeded extends RuntimeException {
            Exceeded() {
                super("redaction time limit", null, false, false);
            }
        }

        private final long deadlineNanos;
        private String text;
        private int reads;

        Deadline(String text, long deadlineNanos) {
            this.text = text;
            this.deadlineNanos = deadlineNanos;
        }

        Deadline over(String next) {
            text = next;
            return this;
        }

        @Override
        public char charAt(int index) {
            if ((++reads & 0xFFF) == 0 && System.nanoTime() - deadlineNanos > 0) {
                throw new Exceeded();
            }
            return text.charAt(index);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return text.substring(start, end);
        }

        @Override
        public String toString() {
            return text;
        }
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
