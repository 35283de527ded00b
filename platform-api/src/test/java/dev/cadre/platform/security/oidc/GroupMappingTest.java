package dev.cadre.platform.security.oidc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.platform.security.Role;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Groups to teams and roles, people out of claims, and the settings' checks at start-up. */
class GroupMappingTest {

    private final GroupMapping mapping = new GroupMapping(
            Map.of(
                    "payments-oncall", "payments:operator",
                    "payments-readers", "payments:viewer",
                    "storage-oncall", "storage:Operator"),
            List.of("cadre-admins"));

    @Test
    void aPersonGetsEachMappedTeam_withTheHighestRoleOfTheirGroupsThere() {
        var m = mapping.of(List.of("payments-readers", "payments-oncall", "storage-oncall", "unmapped"));
        assertThat(m.teams())
                .containsExactly(new TeamRole("payments", Role.OPERATOR), new TeamRole("storage", Role.OPERATOR));
        assertThat(m.platformAdmin()).isFalse();
        assertThat(mapping.of(List.of("unmapped")).none()).isTrue();
    }

    @Test
    void aPlatformAdmin_isAdminInDefaultAndInTheirTeams() {
        var person = Person.of("https://idp", "sub-1", "Dana", mapping.of(List.of("cadre-admins", "payments-readers")));
        assertThat(person.teams())
                .containsExactly(new TeamRole("default", Role.ADMIN), new TeamRole("payments", Role.ADMIN));
    }

    @Test
    void aWrongMapping_stopsStartUp_namingTheGroup() {
        assertThatThrownBy(() -> new GroupMapping(Map.of("ops", "payments"), List.of()))
                .hasMessage("cadre.auth.oidc.groups.ops: 'payments' is not team:role (e.g. payments:operator)");
        assertThatThrownBy(() -> new GroupMapping(Map.of("ops", "payments:root"), List.of()))
                .hasMessage("cadre.auth.oidc.groups.ops: unknown role 'root': expected viewer, operator, admin,"
                        + " intake or agent");
        assertThatThrownBy(() -> new GroupMapping(Map.of("ops", "payments:agent"), List.of()))
                .hasMessage("cadre.auth.oidc.groups.ops: role AGENT is for integrations, not people:"
                        + " map a group to viewer, operator or admin");
        assertThatThrownBy(() -> new GroupMapping(Map.of("ops", "Pay Ments:viewer"), List.of()))
                .hasMessageStartingWith("cadre.auth.oidc.groups.ops: team 'Pay Ments' is not a team name");
    }

    @Test
    void thePersonsId_isTheSameForTheSameSubject_andDiffersAcrossIssuers() {
        var none = mapping.of(List.of());
        assertThat(Person.of("https://idp", "s", "A", none).id())
                .isEqualTo(Person.of("https://idp", "s", "B", none).id())
                .isNotEqualTo(Person.of("https://other", "s", "A", none).id())
                .hasSize(36);
    }

    @Test
    void claims_giveTheSubject_theName_andGroupsFromAListOrOneString() {
        var people = new PersonResolver(settings("hd", Map.of("example.com", "ops:viewer")));
        Person p = people.resolve(Map.of("sub", "1234", "email", "kim@example.com", "hd", "example.com"));
        assertThat(p.subject()).isEqualTo("1234");
        assertThat(p.name()).isEqualTo("kim@example.com");
        assertThat(p.teams()).containsExactly(new TeamRole("ops", Role.VIEWER));
        assertThatThrownBy(() -> people.resolve(Map.of("name", "x")))
                .hasMessage("the token has no 'sub' claim to identify the person (cadre.auth.oidc.subject-claim)");
    }

    @Test
    void settings_areCheckedAtStartUp_namingTheSetting() {
        assertThatThrownBy(() -> new OidcProperties(
                        "https://idp",
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null))
                .hasMessage("cadre.auth.oidc.client-id is required when cadre.auth.oidc.issuer-uri is set");
        assertThatThrownBy(() -> new OidcProperties(
                        "https://idp",
                        "c",
                        null,
                        null,
                        List.of("profile"),
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null))
                .hasMessage("cadre.auth.oidc.scopes must include openid (it makes the sign-in OpenID Connect), was"
                        + " [profile]");
        assertThatThrownBy(() -> new OidcProperties(
                        "https://idp",
                        "c",
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        Duration.ZERO,
                        null,
                        null))
                .hasMessage("cadre.auth.oidc.max-session-age must be positive, was PT0S");
        var off = new OidcProperties(
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
        assertThat(off.enabled()).isFalse();
        assertThat(settings("groups", Map.of()).requiredAudience()).isEqualTo("cadre");
    }

    @Test
    void onlyJwtShapedBearerValues_areTakenForTokens() {
        assertThat(BearerTokenVerifier.looksLikeJwt("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"))
                .isTrue();
        assertThat(BearerTokenVerifier.looksLikeJwt("cadre_abcdefghijklmnopqrstuvwxyz0123456789"))
                .isFalse();
        assertThat(BearerTokenVerifier.looksLikeJwt("test-admin-key-0123456789-abcdefghijk"))
                .isFalse();
        assertThat(BearerTokenVerifier.looksLikeJwt("a.b.c")).isFalse();
    }

    private static OidcProperties settings(String groupsClaim, Map<String, String> groups) {
        return new OidcProperties(
                "https://idp",
                "cadre",
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                groupsClaim,
                groups,
                null,
                null,
                null,
                null);
    }
}
