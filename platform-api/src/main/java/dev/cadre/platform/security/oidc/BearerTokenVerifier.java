package dev.cadre.platform.security.oidc;

import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.PlainJWT;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtValidationException;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/**
 * Checks a bearer JWT from the provider: issuer, signature against the issuer's published keys
 * (JWKS, fetched and cached by Nimbus, refetched for an unknown key id), expiry, not-before, age
 * and audience. A refusal names which check failed — never any part of the token.
 */
final class BearerTokenVerifier {

    /** The outcome of a check. */
    sealed interface Verdict {
        /** The token holds: its verified claims. */
        record Accepted(Jwt jwt) implements Verdict {}

        /** The token does not hold: {@code reason} is a stable slug, {@code detail} a sentence for people. */
        record Refused(String reason, String detail, boolean providerFault) implements Verdict {}
    }

    private final String issuer;
    private final String audience;
    private final Duration maxAge;
    private final Duration skew;
    private final Clock clock;
    private final ProviderRegistration provider;
    private volatile @Nullable NimbusJwtDecoder decoder;

    BearerTokenVerifier(OidcProperties settings, ProviderRegistration provider, Clock clock) {
        this.issuer = String.valueOf(settings.issuerUri());
        this.audience = settings.requiredAudience();
        this.maxAge = settings.maxTokenAge();
        this.skew = settings.clockSkew();
        this.clock = clock;
        this.provider = provider;
    }

    /**
     * Whether a bearer value is a JWT (three base64url parts, the first a JOSE header) rather than
     * an API key: only those are this verifier's to judge.
     */
    static boolean looksLikeJwt(String token) {
        int first = token.indexOf('.');
        if (first <= 0 || token.indexOf('.', first + 1) < 0 || token.length() > 16_384) {
            return false;
        }
        try {
            String header =
                    new String(Base64.getUrlDecoder().decode(token.substring(0, first)), StandardCharsets.UTF_8);
            return header.startsWith("{") && header.contains("\"alg\"");
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
    }

    Verdict verify(String token) {
        JWT parsed;
        String claimedIssuer;
        try {
            parsed = JWTParser.parse(token);
            claimedIssuer = parsed.getJWTClaimsSet().getIssuer();
        } catch (ParseException e) {
            return new Verdict.Refused("malformed", "the bearer token is not a well-formed JWT", false);
        }
        // The issuer first: a token of another issuer is refused as such, before its signature is
        // looked at (its key is not among this issuer's keys, which would only say "signature").
        if (!issuer.equals(claimedIssuer)) {
            return new Verdict.Refused(
                    "wrong-issuer",
                    "the bearer token was issued by "
                            + (claimedIssuer == null ? "no issuer" : "'" + claimedIssuer + "'")
                            + ", not by the configured issuer '" + issuer + "' (cadre.auth.oidc.issuer-uri)",
                    false);
        }
        if (parsed instanceof PlainJWT) {
            return new Verdict.Refused("bad-signature", "the bearer token is not signed", false);
        }
        try {
            return new Verdict.Accepted(decoder().decode(token));
        } catch (JwtValidationException e) {
            OAuth2Error error = e.getErrors().iterator().next();
            return new Verdict.Refused(error.getErrorCode(), error.getDescription(), false);
        } catch (BadJwtException e) {
            String message = String.valueOf(e.getMessage());
            if (message.contains("Signed JWT rejected") || message.contains("signature")) {
                return new Verdict.Refused(
                        "bad-signature",
                        "the bearer token's signature does not verify with the issuer's published keys",
                        false);
            }
            return new Verdict.Refused("malformed", "the bearer token is not a well-formed JWT", false);
        } catch (JwtException e) {
            return new Verdict.Refused(
                    "provider-unavailable",
                    "the identity provider's signing keys could not be fetched from " + issuer + "; try again shortly",
                    true);
        } catch (RuntimeException e) {
            // Discovery failed (the provider is down or misconfigured).
            return new Verdict.Refused(
                    "provider-unavailable",
                    "the identity provider at " + issuer
                            + " did not answer its OpenID configuration; try again shortly",
                    true);
        }
    }

    private NimbusJwtDecoder decoder() {
        NimbusJwtDecoder known = decoder;
        if (known != null) {
            return known;
        }
        synchronized (this) {
            if (decoder == null) {
                String jwks = provider.registration().getProviderDetails().getJwkSetUri();
                NimbusJwtDecoder built = NimbusJwtDecoder.withJwkSetUri(jwks)
                        .jwsAlgorithms(algorithms -> {
                            algorithms.add(SignatureAlgorithm.RS256);
                            algorithms.add(SignatureAlgorithm.RS384);
                            algorithms.add(SignatureAlgorithm.RS512);
                            algorithms.add(SignatureAlgorithm.ES256);
                            algorithms.add(SignatureAlgorithm.ES384);
                            algorithms.add(SignatureAlgorithm.PS256);
                        })
                        .build();
                built.setJwtValidator(this::check);
                decoder = built;
            }
            return decoder;
        }
    }

    /** The checks after the signature, each with its own reason. */
    OAuth2TokenValidatorResult check(Jwt jwt) {
        Instant now = clock.instant();
        List<OAuth2Error> errors = new ArrayList<>();
        Instant expires = jwt.getExpiresAt();
        Instant notBefore = jwt.getNotBefore();
        Instant issued = jwt.getIssuedAt();
        if (expires == null) {
            errors.add(
                    error("no-expiry", "the bearer token has no expiry (exp): Cadre accepts only tokens that expire"));
        } else if (now.minus(skew).isAfter(expires)) {
            errors.add(error("expired", "the bearer token expired at " + expires));
        }
        if (notBefore != null && now.plus(skew).isBefore(notBefore)) {
            errors.add(error("not-yet-valid", "the bearer token is not valid before " + notBefore));
        }
        if (issued != null && now.minus(skew).isAfter(issued.plus(maxAge))) {
            errors.add(error(
                    "too-old",
                    "the bearer token was issued at " + issued + ", longer ago than cadre.auth.oidc.max-token-age ("
                            + maxAge + ") allows; get a fresh one"));
        }
        List<String> audiences = jwt.getAudience() == null ? List.of() : jwt.getAudience();
        if (!audiences.contains(audience)) {
            errors.add(error(
                    "wrong-audience",
                    "the bearer token is meant for " + audiences + ", not for '" + audience
                            + "' (cadre.auth.oidc.audience)"));
        }
        return errors.isEmpty() ? OAuth2TokenValidatorResult.success() : OAuth2TokenValidatorResult.failure(errors);
    }

    private static OAuth2Error error(String reason, String description) {
        return new OAuth2Error(reason, description, null);
    }
}
