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
    }

    private static String everyPattern(SecretMasker masker, String text) {
        String out = text;
        for (SecretMasker.Replacement r : masker.replacements()) {
            out = r.pattern().matcher(out).replaceAll(r.with());
        }
        return out;
    }
}
