package dev.cadre.agent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A text streamed in pieces is redacted like the whole text: cut anywhere, once or twice, the pieces
 * let out never show a secret, and together they are exactly {@link SecretMasker#redactText} of the
 * whole; plain prose is not held back.
 */
class StreamingRedactorTest {

    private final SecretMasker masker = SecretMasker.standard();

    /** Texts with a secret, and the secret that must never be shown. */
    private static final List<String[]> SECRETS = List.of(
            new String[] {"The app connects to postgres://app:Hunter2pw@db:5432/orders and is slow.", "Hunter2pw"},
            new String[] {"Call it with Authorization: Bearer abcdefghijklmnop1234 please", "abcdefghijklmnop1234"},
            new String[] {"use bearer abcdefghijklmnop1234 for now", "abcdefghijklmnop1234"},
            new String[] {"the key is sk-proj4bcdefghijklmnopqrstuvwx; rotate it", "sk-proj4bcdefghijklmnopqrstuvwx"},
            new String[] {"set password=S3cretValue! then restart", "S3cretValue!"},
            new String[] {"token: ghp_abcdefghijklmnopqrstuvwxyz0123 is old", "ghp_abcdefghijklmnopqrstuvwxyz0123"},
            new String[] {
                "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok",
                "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
            },
            new String[] {
                "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\n-----END RSA PRIVATE KEY-----\ndone",
                "MIIEowIBAAKCAQEAx"
            },
            new String[] {"{\"password\": \"S3cretValue\", \"host\": \"db\"}", "S3cretValue"},
            new String[] {"AWS AKIAABCDEFGHIJKLMNOP leaked", "AKIAABCDEFGHIJKLMNOP"});

    @Test
    void cutAnywhereInTwo_noPieceShowsTheSecret_andThePiecesAreTheRedactedWhole() {
        for (String[] c : SECRETS) {
            String text = c[0];
            for (int i = 0; i <= text.length(); i++) {
                check(text, c[1], List.of(text.substring(0, i), text.substring(i)));
            }
        }
    }

    @Test
    void cutAnywhereInThree_noPieceShowsTheSecret_andThePiecesAreTheRedactedWhole() {
        for (String[] c : SECRETS) {
            String text = c[0];
            for (int i = 0; i <= text.length(); i += 2) {
                for (int j = i; j <= text.length(); j += 3) {
                    check(text, c[1], List.of(text.substring(0, i), text.substring(i, j), text.substring(j)));
                }
            }
        }
    }

    @Test
    void characterByCharacter_too() {
        for (String[] c : SECRETS) {
            List<String> pieces = new ArrayList<>();
            c[0].chars().forEach(ch -> pieces.add(String.valueOf((char) ch)));
            check(c[0], c[1], pieces);
        }
    }

    @Test
    void plainProse_goesOutAsItComes() {
        StreamingRedactor r = masker.streaming();
        assertThat(r.accept("Disk ")).isEqualTo("Disk ");
        assertThat(r.accept("is at")).isEqualTo("is at");
        assertThat(r.accept(" 40%.")).isEqualTo(" 40%.");
        assertThat(r.flush()).isEmpty();
    }

    @Test
    void whatCouldStartASecret_waitsForTheNextPiece() {
        StreamingRedactor r = masker.streaming();
        assertThat(r.accept("The bear")).isEqualTo("The ");
        assertThat(r.accept("er abcdefghijklmnop")).isEmpty();
        assertThat(r.accept(" is it")).isEqualTo("[REDACTED] is it");
        assertThat(r.accept(", connect to postgres://app")).isEqualTo(", connect to postgres://app");
        assertThat(r.accept(":Hun")).isEmpty();
        assertThat(r.accept("ter2pw@db now")).isEqualTo(":[REDACTED]@db now");
        assertThat(r.flush()).isEmpty();
        // and it starts over for the next text
        assertThat(r.accept("pass")).isEmpty();
        assertThat(r.flush()).isEqualTo("pass");
    }

    private void check(String text, String secret, List<String> pieces) {
        String whole = masker.redactText(text);
        assertThat(whole).doesNotContain(secret);
        // No four characters of the secret may be shown, even split over pieces (unless the
        // whole text's redaction shows them elsewhere).
        List<String> parts = new ArrayList<>();
        for (int i = 0; i + 4 <= secret.length(); i++) {
            if (!whole.contains(secret.substring(i, i + 4))) {
                parts.add(secret.substring(i, i + 4));
            }
        }
        StreamingRedactor r = masker.streaming();
        StringBuilder all = new StringBuilder();
        for (String p : pieces) {
            all.append(r.accept(p));
            for (String part : parts) {
                assertThat(all.toString()).as("shown of %s", pieces).doesNotContain(part);
            }
        }
        all.append(r.flush());
        assertThat(all.toString()).as("pieces %s", pieces).isEqualTo(whole);
    }
}
