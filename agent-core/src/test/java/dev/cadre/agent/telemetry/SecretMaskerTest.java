package dev.cadre.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

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
}
