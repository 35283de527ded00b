package dev.cadre.platform.security.oidc;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads a person out of the claims the provider signed (an ID token with its user info, or an
 * access token): the subject, a name, and the groups that map to teams. A claim of groups may be a
 * list (Keycloak, Okta, Entra ID) or a single string (Google's {@code hd} or {@code email}, when a
 * domain or an address is what maps to a team).
 */
final class PersonResolver {

    private final String issuer;
    private final String subjectClaim;
    private final String nameClaim;
    private final String groupsClaim;
    private final GroupMapping mapping;

    PersonResolver(OidcProperties settings) {
        this.issuer = String.valueOf(settings.issuerUri());
        this.subjectClaim = settings.subjectClaim();
        this.nameClaim = settings.nameClaim();
        this.groupsClaim = settings.groupsClaim();
        this.mapping = new GroupMapping(settings.groups(), settings.adminGroups());
    }

    /** The claim that carries the groups (for messages). */
    String groupsClaim() {
        return groupsClaim;
    }

    /**
     * The person these claims describe.
     *
     * @throws IllegalArgumentException naming the claim when the subject claim is missing
     */
    Person resolve(Map<String, Object> claims) {
        String subject = text(claims.get(subjectClaim));
        if (subject == null) {
            throw new IllegalArgumentException("the token has no '" + subjectClaim
                    + "' claim to identify the person (cadre.auth.oidc.subject-claim)");
        }
        String name = firstText(claims, nameClaim, "name", "preferred_username", "email");
        return Person.of(issuer, subject, name, mapping.of(groups(claims.get(groupsClaim))));
    }

    private static List<String> groups(@Nullable Object claim) {
        if (claim instanceof Collection<?> values) {
            return values.stream().map(String::valueOf).toList();
        }
        String one = text(claim);
        return one == null ? List.of() : List.of(one);
    }

    private static @Nullable String firstText(Map<String, Object> claims, String... names) {
        for (String name : names) {
            String value = text(claims.get(name));
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    private static @Nullable String text(@Nullable Object value) {
        if (value == null) {
            return null;
        }
        String s = String.valueOf(value).strip();
        // A name is shown in the console and written to the audit log: no control characters.
        s = s.replaceAll("[\\p{Cntrl}\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]", "");
        return s.isEmpty() ? null : s.length() > 200 ? s.substring(0, 200) : s;
    }
}
