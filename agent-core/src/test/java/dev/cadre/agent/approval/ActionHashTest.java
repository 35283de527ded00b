package dev.cadre.agent.approval;

import static dev.cadre.agent.testing.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** Canonical JSON and the action hash an approval is bound to. */
class ActionHashTest {

    @Test
    void canonicalJson_sortsKeys_dropsWhitespace_andNormalisesNumbers() {
        assertThat(CanonicalJson.write(
                        json("{ \"b\" : [1.0, 2.50, 1e2, -0.0, 10E-1], \"a\": {\"z\": true, \"y\": null} }")))
                .isEqualTo("{\"a\":{\"y\":null,\"z\":true},\"b\":[1,2.5,100,0,1]}");
    }

    @Test
    void canonicalJson_escapesOnlyWhatJsonRequires() {
        assertThat(CanonicalJson.write(json("{\"s\": \"q\\\" b\\\\ n\\n t\\t u\\u0001 é \\u00e9 \\/\"}")))
                .isEqualTo("{\"s\":\"q\\\" b\\\\ n\\n t\\t u\\u0001 é é /\"}");
    }

    @Test
    void canonicalJson_keepsHugeExponentsShort_andPrecisionExact() {
        assertThat(CanonicalJson.number(new BigDecimal("1e5000"))).isEqualTo("1E+5000");
        assertThat(CanonicalJson.number(new BigDecimal("0.1000"))).isEqualTo("0.1");
        assertThat(CanonicalJson.number(new BigDecimal("12345678901234567890123")))
                .isEqualTo("12345678901234567890123");
    }

    @Test
    void hash_isTheSameForEveryWritingOfOneAction() {
        String a = ActionHash.of("restart_service", json("{\"service\":\"api\",\"host\":\"web-1\",\"n\":1}"));
        String b = ActionHash.of("restart_service", json("{ \"n\": 1.00, \"host\": \"web-1\", \"service\": \"api\" }"));
        assertThat(a).isEqualTo(b).hasSize(64).matches("[0-9a-f]{64}");
    }

    @Test
    void hash_differsForAnotherToolOrOtherArguments() {
        String a = ActionHash.of("restart_service", json("{\"service\":\"api\"}"));
        assertThat(ActionHash.of("restart_service", json("{\"service\":\"db\"}")))
                .isNotEqualTo(a);
        assertThat(ActionHash.of("stop_service", json("{\"service\":\"api\"}"))).isNotEqualTo(a);
        assertThat(ActionHash.of("restart_service", json("{\"service\":\"api\",\"force\":true}")))
                .isNotEqualTo(a);
        // The name and the arguments cannot be shifted into each other.
        assertThat(ActionHash.of("a", json("\"b\""))).isNotEqualTo(ActionHash.of("a\n\"b", json("null")));
    }

    @Test
    void hash_isSha256OfNameNewlineAndCanonicalArguments() throws Exception {
        var sha = java.security.MessageDigest.getInstance("SHA-256");
        String expected = java.util.HexFormat.of()
                .formatHex(sha.digest("echo\n{\"a\":1,\"b\":2}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(ActionHash.of("echo", json("{\"b\":2,\"a\":1.0}"))).isEqualTo(expected);
    }
}
