package dev.cadre.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class SecretMaskerTest {

    private static final SecretMasker MASKER = SecretMasker.standard();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void credentialsInUrls_areMasked_theUserAndHostStay() {
        assertThat(MASKER.redactText("connect to postgres://app:s3cr3t-pw@db.internal:5432/orders now"))
                .isEqualTo("connect to postgres://app:[REDACTED]@db.internal:5432/orders now");
        assertThat(MASKER.redactText("https://bot:ghs_tok%2Fen@git.example.com/repo.git"))
                .doesNotContain("ghs_tok")
                .contains("git.example.com");
        assertThat(MASKER.redactText("plain https://example.com/a:b@c is no credential"))
                .contains("https://example.com/a:b@c");
    }

    @Test
    void shortPasswordKeys_inTextAndJson_areMasked() {
        assertThat(MASKER.redactText("login with user=admin pwd=hunter2 pass: letmein"))
                .doesNotContain("hunter2")
                .doesNotContain("letmein")
                .contains("user=admin");
        JsonNode red = MASKER.redact(JSON.readTree("{\"dbPass\":\"x1\",\"PWD\":\"x2\",\"db_password\":\"x3\"}"));
        assertThat(red.toString()).doesNotContain("x1").doesNotContain("x2").doesNotContain("x3");
    }

    @Test
    void aSecretNamedKey_masksItsWholeSubtree_butCountsNamedTokensStay() {
        JsonNode red = MASKER.redact(
                JSON.readTree(
                        "{\"credentials\":{\"user\":\"svc\",\"nested\":[\"p4ss\"]},\"auth\":{\"user\":\"u\"},"
                                + "\"secrets\":[\"one\",\"two\"],\"usage\":{\"inputTokens\":12,\"maxTokens\":400},\"host\":\"web-1\"}"));
        assertThat(red.get("credentials").asString()).isEqualTo(SecretMasker.MASK);
        assertThat(red.get("auth").asString()).isEqualTo(SecretMasker.MASK);
        assertThat(red.get("secrets").asString()).isEqualTo(SecretMasker.MASK);
        assertThat(red.at("/usage/inputTokens").asInt()).isEqualTo(12);
        assertThat(red.at("/usage/maxTokens").asInt()).isEqualTo(400);
        assertThat(red.get("host").asString()).isEqualTo("web-1");
    }

    @Test
    void bearerAndBasicCredentials_jwts_andPemPrivateKeys_areMasked() {
        String jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        String text = "Authorization: Basic dXNlcjpwYXNz and Bearer abcdefghijkl and token " + jwt
                + "\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nafter";
        String red = MASKER.redactText(text);
        assertThat(red)
                .doesNotContain("dXNlcjpwYXNz")
                .doesNotContain("abcdefghijkl")
                .doesNotContain("eyJ")
                .doesNotContain("MIIEow")
                .endsWith("after");
        // a truncated key (no END line) is masked to the end
        assertThat(MASKER.redactText("out: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk"))
                .isEqualTo("out: " + SecretMasker.MASK);
        // prose about basic authentication is not a credential
        assertThat(MASKER.redactText("Basic authentication is off")).isEqualTo("Basic authentication is off");
    }

    @Test
    void jsonText_staysJson_withTheSameMasking() {
        String red = MASKER.redactText("{\"url\":\"redis://:pw123456@cache:6379\",\"password\":{\"v\":1}}");
        JsonNode tree = JSON.readTree(red);
        assertThat(tree.get("url").asString()).isEqualTo("redis://:[REDACTED]@cache:6379");
        assertThat(tree.get("password").asString()).isEqualTo(SecretMasker.MASK);
    }

    @Test
    void theLiteralPrefilterNeverSkipsAPatternThatWouldMatch() {
        // Every pattern run on every text, as before the prefilter, against the masker as it is:
        // random texts made of pieces that match, nearly match, or only share a literal, in any case.
        SecretMasker masker = new SecretMasker(List.of(Pattern.compile("ACME-[0-9]{6}")));
        String[] pieces = {
            "password=hunter2",
            "PASSWORD: 'x y'",
            "Pass=",
            "pwd:abc",
            "api-key=k1",
            "ApiKey: \"v\"",
            "token=",
            "TOKEN",
            "client_secret=s",
            "credentials=c",
            "Authorization: Bearer abcdefgh12345678",
            "authorization=Basic dXNlcjpwYXNzd29yZA==",
            "bearer   abcdefghijkl",
            "Basic Authentication",
            "BASIC",
            "postgres://svc:pw@db:5432/x",
            "HTTPS://u:p@h",
            "://",
            "@",
            "eyJhbGciOi.eyJzdWIiOiIx.c2lnbmF0dXJl",
            "EYJ",
            "cadre_0123456789abcdefXYZ",
            "CADRE_",
            "sk-abcdefghijklmnopqrstu",
            "SK-",
            "ghp_" + "abcdefghijklmnopqrstuvwxyz",
            "GHP_",
            "xoxb-1234567890-abc",
            "XOXB",
            "AKIAABCDEFGHIJKLMNOP",
            "akia",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\ncut",
            "private key-----",
            "ACME-123456",
            "acme-123456",
            "key",
            "=",
            ":",
            " ",
            "\n",
            ",",
            ";",
            "\"",
            "'",
            "disk /var at 91%",
            "İstanbul",
            "\u212Aey=1",
            "host web-3"
        };
        Random random = new Random(18);
        for (int n = 0; n < 20_000; n++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(6); i >= 0; i--) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            String t = text.toString();
            assertThat(masker.maskPatterns(t)).as(t).isEqualTo(everyPattern(masker, t));
        }
    }

    @Test
    void keysSplitIntoWordsAtSeparatorsAndCamelCase() {
        assertThat(SecretMasker.words("accessToken")).containsExactly("access", "token");
        assertThat(SecretMasker.words("DB_PASS")).containsExactly("db", "pass");
        assertThat(SecretMasker.words("APIKey")).containsExactly("apikey");
        assertThat(SecretMasker.words("x-api-key2Value")).containsExactly("x", "api", "key2", "value");
        assertThat(SecretMasker.words("__a..b__")).containsExactly("a", "b");
        assertThat(SecretMasker.words("pässWord")).containsExactly("p", "ss", "word");
        assertThat(SecretMasker.words("")).isEmpty();
        assertThat(SecretMasker.secretKey("maxTokens")).isFalse();
        assertThat(SecretMasker.secretKey("dbPass")).isTrue();
        assertThat(SecretMasker.secretKey("nextPageToken")).isFalse();
        assertThat(SecretMasker.secretKey("page_token")).isFalse();
        assertThat(SecretMasker.secretKey("pageTokenSecret")).isTrue();
        assertThat(SecretMasker.secretKey("accessToken")).isTrue();
    }

    /**
     * Issue 23, finding 2: inputs an attacker can write (a run input, an alert annotation, a tool
     * output) made single patterns quadratic ({@code "://@ " + "a-"*n}: 65 s at 96k characters). Each
     * pattern, run alone on each adversarial input at 12k, 24k, 48k and 96k characters, must read a
     * number of characters proportional to the size: counted through the text's {@code charAt} (the
     * only way java.util.regex reads its input), so the check does not depend on the machine's speed.
     */
    @Test
    void everyPattern_readsEachAdversarialInput_inLinearlyGrowingSteps() {
        SecretMasker masker = new SecretMasker(List.of(Pattern.compile("ACME-[0-9]{6}")));
        List<java.util.function.IntFunction<String>> inputs = List.of(
                n -> "://@ " + "a-".repeat(n / 2),
                n -> "-----BEGIN RSA PRIVATE KEY-----\n".repeat(n / 32),
                n -> "-----BEGIN " + "A ".repeat(n / 2),
                n -> "-----BEGIN PRIVATE KEY----- " + "-----END A A A A A PRIVATE KEY ".repeat(n / 32),
                n -> "eyJ-".repeat(n / 4),
                n -> "eyJabcde.".repeat(n / 9),
                n -> ("eyJabcde-".repeat(30) + ".abcdef-eyJ").repeat(n / 281),
                n -> "://a:" + "b:".repeat(n / 2),
                n -> "://".repeat(n / 3) + "@",
                n -> "x://u:" + "p".repeat(n) + " @",
                n -> "sk-".repeat(n / 3),
                n -> "xoxa-".repeat(n / 5),
                n -> "bearer ".repeat(n / 7),
                n -> "basic " + "a".repeat(n),
                n -> "Authorization:" + " ".repeat(n),
                n -> "password=\"" + "x".repeat(n),
                n -> "password='\"".repeat(n / 11),
                n -> "pass".repeat(n / 4),
                n -> "password " + " ".repeat(n) + "=",
                n -> "cadre_".repeat(n / 6),
                n -> "ghp_".repeat(n / 4),
                n -> "AKIA".repeat(n / 4),
                n -> "ACME-".repeat(n / 5),
                n -> "a".repeat(n));
        int[] sizes = {12_000, 24_000, 48_000, 96_000};
        for (SecretMasker.Replacement r : masker.replacements()) {
            for (int i = 0; i < inputs.size(); i++) {
                long[] reads = new long[sizes.length];
                for (int s = 0; s < sizes.length; s++) {
                    String text = inputs.get(i).apply(sizes[s]);
                    CountingText counted = new CountingText(text, 100L * text.length());
                    try {
                        r.applyTo(counted);
                    } catch (CountingText.TooManyReads e) {
                        throw new AssertionError("pattern " + r.pattern() + " on input #" + i + " read over 100"
                                + " characters per character at " + text.length() + " characters: superlinear");
                    }
                    reads[s] = counted.reads;
                }
                for (int s = 1; s < sizes.length; s++) {
                    // Twice the text, at most about twice the reads (a quadratic pattern: four times).
                    assertThat((double) reads[s])
                            .as(
                                    "reads of %s on input #%d at %d vs %d characters: %s",
                                    r.pattern(), i, sizes[s], sizes[s - 1], java.util.Arrays.toString(reads))
                            .isLessThanOrEqualTo(2.2 * Math.max(reads[s - 1], sizes[s - 1]));
                }
            }
        }
    }

    @Test
    void aTextOverTheSizeLimit_isCutAtABlankAndMarked_andNoSecretIsCutInTwo() {
        SecretMasker masker =
                new SecretMasker(List.of(), new SecretMasker.Limits(2048, java.time.Duration.ofSeconds(5)));
        String head = "x ".repeat(1000) + "password=hunter2 ";
        // The URL straddles the limit: its head alone (no '@' yet) would match no pattern.
        String text = head + "db postgres://app:Sup3rS3cret@db:5432/x " + "y ".repeat(500);
        String red = masker.redactText(text);
        assertThat(red)
                .doesNotContain("hunter2")
                .doesNotContain("Sup3r")
                .startsWith("x x ")
                .endsWith(" more characters not shown]")
                .contains("[TRUNCATED: ");
        assertThat(red.length()).isLessThanOrEqualTo(2048 + 60);
        // No blank at all before the limit: nothing of the text is shown.
        assertThat(masker.redactText("z".repeat(5000))).isEqualTo("[TRUNCATED: 5000 more characters not shown]");
        assertThat(masker.redactText("short password=hunter2")).isEqualTo("short [REDACTED]");
    }

    @Test
    void aPatternThatRunsOutOfTime_withholdsTheWholeText() {
        // A configured pattern that backtracks without end (n^20 steps): the limit stops it.
        SecretMasker masker = new SecretMasker(
                List.of(Pattern.compile("(.*a){20}b")), new SecretMasker.Limits(4096, java.time.Duration.ofMillis(50)));
        String red = masker.redactText("password=hunter2 " + "a".repeat(200));
        assertThat(red).doesNotContain("hunter2").startsWith("[WITHHELD: 217 characters; redaction took longer than");
    }

    /** A text that counts the characters read from it, and stops a pattern that reads too many. */
    private static final class CountingText implements CharSequence {
        static final class TooManyReads extends RuntimeException {}

        private final String text;
        private final long limit;
        long reads;

        CountingText(String text, long limit) {
            this.text = text;
            this.limit = limit;
        }

        @Override
        public char charAt(int index) {
            if (++reads > limit) {
                throw new TooManyReads();
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

    private static String everyPattern(SecretMasker masker, String text) {
        String out = text;
        for (SecretMasker.Replacement r : masker.replacements()) {
            out = r.applyTo(out);
        }
        return out;
    }
}
