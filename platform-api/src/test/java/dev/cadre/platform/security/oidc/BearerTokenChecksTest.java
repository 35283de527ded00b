package dev.cadre.platform.security.oidc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.jwt.Jwt;

/**
 * The checks after a token's signature, on a fixed clock: expiry with the configured skew, and the
 * age bound that ends API access of a person removed from a group however long the provider's
 * tokens live (the signature and issuer checks run against a real Keycloak in BearerTokenTest).
 */
class BearerTokenChecksTest {

    private static final Instant NOW = Instant.parse("2026-12-08T12:00:00Z");

    private final OidcProperties settings = new OidcProperties(
            "https://idp.example",
            "cadre",
            null,
            "cadre-api",
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            Duration.ofHours(1),
            Duration.ofSeconds(30));
    private final BearerTokenVerifier verifier =
            new BearerTokenVerifier(settings, new ProviderRegistration(settings), Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void aFreshTokenForCadre_holds() {
        assertThat(reasons(token(NOW.minusSeconds(60), NOW.plusSeconds(240), "cadre-api")))
                .isEmpty();
    }

    @Test
    void expiry_allowsTheSkew_andNoMore() {
        assertThat(reasons(token(NOW.minusSeconds(300), NOW.minusSeconds(30), "cadre-api")))
                .isEmpty();
        assertThat(reasons(token(NOW.minusSeconds(300), NOW.minusSeconds(31), "cadre-api")))
                .containsExactly("expired");
    }

    @Test
    void aLongLivedToken_isRefusedOnceOlderThanTheMaximumAge_whateverItsExpiry() {
        // The provider issued a day-long token; an hour (and the skew) after issue it no longer counts.
        Instant issued = NOW.minus(Duration.ofHours(1)).minusSeconds(31);
        assertThat(reasons(token(issued, issued.plus(Duration.ofDays(1)), "cadre-api")))
                .containsExactly("too-old");
        Instant recent = NOW.minus(Duration.ofHours(1)).minusSeconds(29);
        assertThat(reasons(token(recent, recent.plus(Duration.ofDays(1)), "cadre-api")))
                .isEmpty();
    }

    @Test
    void aTokenForAnotherAudience_orWithoutExpiry_isRefusedSayingSo() {
        assertThat(reasons(token(NOW, NOW.plusSeconds(60), "account"))).containsExactly("wrong-audience");
        Jwt eternal = Jwt.withTokenValue("t")
                .header("alg", "RS256")
                .issuer("https://idp.example")
                .subject("s")
                .audience(List.of("cadre-api"))
                .issuedAt(NOW)
                .build();
        assertThat(reasons(eternal)).containsExactly("no-expiry");
    }

    private List<String> reasons(Jwt jwt) {
        return verifier.check(jwt).getErrors().stream()
                .map(OAuth2Error::getErrorCode)
                .toList();
    }

    private static Jwt token(Instant issued, Instant expires, String audience) {
        return Jwt.withTokenValue("t")
                .header("alg", "RS256")
                .issuer("https://idp.example")
                .subject("s")
                .audience(List.of(audience))
                .issuedAt(issued)
                .expiresAt(expires)
                .build();
    }
}
