package dev.cadre.platform.security.oidc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code cadre.auth.oidc.*}: the OpenID Connect provider people sign in with. {@code issuer-uri},
 * {@code client-id} and {@code client-secret} name the provider and Cadre's client there; {@code
 * audience} is what the provider's access tokens must be meant for to be accepted on the API
 * (the client id unless set). {@code groups} maps each group (a value of the {@code groups-claim})
 * to {@code team:role}; members of {@code admin-groups} are platform admins. A console session
 * lasts at most {@code max-session-age} and a bearer token is accepted at most {@code
 * max-token-age} after it was issued, so a person removed from a group loses access within that
 * time whatever lifetime the provider gives its tokens.
 */
@ConfigurationProperties("cadre.auth.oidc")
public record OidcProperties(
        @Nullable String issuerUri,
        @Nullable String clientId,
        @Nullable String clientSecret,
        @Nullable String audience,
        @Nullable List<String> scopes,
        @Nullable String displayName,
        @Nullable String redirectUri,
        @Nullable String subjectClaim,
        @Nullable String nameClaim,
        @Nullable String groupsClaim,
        @Nullable Map<String, String> groups,
        @Nullable List<String> adminGroups,
        @Nullable Duration maxSessionAge,
        @Nullable Duration maxTokenAge,
        @Nullable Duration clockSkew) {

    public OidcProperties {
        scopes = scopes == null || scopes.isEmpty() ? List.of("openid", "profile", "email") : List.copyOf(scopes);
        displayName = blank(displayName) ? "single sign-on" : displayName;
        redirectUri = blank(redirectUri) ? "{baseUrl}/sso/callback" : redirectUri;
        subjectClaim = blank(subjectClaim) ? "sub" : subjectClaim;
        nameClaim = blank(nameClaim) ? "name" : nameClaim;
        groupsClaim = blank(groupsClaim) ? "groups" : groupsClaim;
        groups = groups == null ? Map.of() : Map.copyOf(groups);
        adminGroups = adminGroups == null ? List.of() : List.copyOf(adminGroups);
        maxSessionAge = maxSessionAge == null ? Duration.ofHours(8) : maxSessionAge;
        maxTokenAge = maxTokenAge == null ? Duration.ofHours(1) : maxTokenAge;
        clockSkew = clockSkew == null ? Duration.ofSeconds(30) : clockSkew;
        positive("max-session-age", maxSessionAge);
        positive("max-token-age", maxTokenAge);
        if (clockSkew.isNegative() || clockSkew.compareTo(Duration.ofMinutes(5)) > 0) {
            throw new IllegalArgumentException("cadre.auth.oidc.clock-skew must be 0 to 5 minutes, was " + clockSkew);
        }
        if (!scopes.contains("openid")) {
            throw new IllegalArgumentException(
                    "cadre.auth.oidc.scopes must include openid (it makes the sign-in OpenID Connect), was " + scopes);
        }
        if (!blank(issuerUri)) {
            if (blank(clientId)) {
                throw new IllegalArgumentException(
                        "cadre.auth.oidc.client-id is required when cadre.auth.oidc.issuer-uri is set");
            }
            if (!issuerUri.startsWith("https://") && !issuerUri.startsWith("http://")) {
                throw new IllegalArgumentException(
                        "cadre.auth.oidc.issuer-uri must be an http(s) URL, was '" + issuerUri + "'");
            }
        }
    }

    /** Whether sign-in through the provider is on. */
    public boolean enabled() {
        return !blank(issuerUri);
    }

    /** The audience bearer tokens must carry: {@code audience}, else the client id. */
    public String requiredAudience() {
        return blank(audience) ? String.valueOf(clientId) : audience;
    }

    private static boolean blank(@Nullable String s) {
        return s == null || s.isBlank();
    }

    private static void positive(String name, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("cadre.auth.oidc." + name + " must be positive, was " + d);
        }
    }
}
