package dev.cadre.platform.security.oidc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.KeycloakPeer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The API takes the provider's access tokens beside API keys: Keycloak's real tokens are accepted
 * as the person they name, in a team of theirs; an expired, foreign-audience, foreign-issuer or
 * tampered token is answered 401 with the reason, and the answer holds no part of the token.
 */
class BearerTokenTest extends SsoPlatformTest {

    @LocalServerPort
    int port;

    Api api;
    final KeycloakPeer keycloak = KeycloakPeer.shared();

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    @Test
    void aPersonsAccessToken_isAccepted_besideApiKeys_asThatPersonInTheirTeam() {
        Api.Response bob = api.get("/api/v1/session", keycloak.accessToken("bob"));
        assertThat(bob.status()).as(bob.body()).isEqualTo(200);
        assertThat(bob.json().get("name").asString()).isEqualTo("Bob Brown");
        assertThat(bob.json().get("role").asString()).isEqualTo("operator");
        assertThat(api.get("/api/v1/runs", keycloak.accessToken("bob")).status())
                .isEqualTo(200);
        assertThat(api.get("/api/v1/session", Api.ADMIN_KEY).json().get("name").asString())
                .isEqualTo("bootstrap");
    }

    @Test
    void aPlatformAdminsToken_isAnAdmin() {
        Api.Response dave = api.get("/api/v1/session", keycloak.accessToken("dave"));
        assertThat(dave.status()).as(dave.body()).isEqualTo(200);
        assertThat(dave.json().get("role").asString()).isEqualTo("admin");
    }

    @Test
    void anExpiredToken_is401_sayingExpired() {
        String token = keycloak.passwordGrant("cadre", "cadre-short", "cadre-short-secret", "bob")
                .get("access_token")
                .asString();
        // The client's tokens live one second; the platform allows no clock skew in this test.
        Api.Response refused = Await.until(
                "bob's one-second token to expire", () -> api.get("/api/v1/session", token), r -> r.status() != 200);
        assertRefused(refused, token, "expired", "the bearer token expired at ");
    }

    @Test
    void aTokenForAnotherAudience_is401_sayingWhoItIsFor() {
        String token = keycloak.passwordGrant("cadre", "other-app", "other-app-secret", "bob")
                .get("access_token")
                .asString();
        assertRefused(
                api.get("/api/v1/session", token),
                token,
                "wrong-audience",
                "not for 'cadre-api' (cadre.auth.oidc.audience)");
    }

    @Test
    void aTokenOfAnotherIssuer_is401_namingBothIssuers() {
        String token = keycloak.passwordGrant("elsewhere", KeycloakPeer.CLIENT_ID, KeycloakPeer.CLIENT_SECRET, "bob")
                .get("access_token")
                .asString();
        assertRefused(
                api.get("/api/v1/session", token),
                token,
                "wrong-issuer",
                "the bearer token was issued by '" + keycloak.issuer("elsewhere") + "', not by the configured issuer '"
                        + keycloak.issuer() + "'");
    }

    @Test
    void aTamperedToken_is401_sayingTheSignatureDoesNotVerify() {
        String token = keycloak.accessToken("bob");
        String[] parts = token.split("\\.");
        String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
        assertThat(claims).contains("\"payments-operators\"");
        // Bob makes himself a platform admin.
        String forged = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(claims.replace("\"payments-operators\"", "\"cadre-admins\"")
                        .getBytes(StandardCharsets.UTF_8));
        String tampered = parts[0] + "." + forged + "." + parts[2];
        assertRefused(
                api.get("/api/v1/keys", tampered),
                tampered,
                "bad-signature",
                "the bearer token's signature does not verify with the issuer's published keys");
    }

    @Test
    void aPersonInSeveralTeams_picksOneWithAHeader_andNoOtherTeam() {
        String alice = keycloak.accessToken("alice");
        assertThat(api.send("GET", "/api/v1/session", alice, null, Map.of("X-Cadre-Team", "storage"))
                        .status())
                .isEqualTo(200);
        Api.Response other = api.send("GET", "/api/v1/session", alice, null, Map.of("X-Cadre-Team", "network"));
        assertThat(other.status()).isEqualTo(403);
        assertThat(other.json().get("detail").asString())
                .isEqualTo("'Alice Adams' is not a member of team 'network'; their teams: payments, storage");
    }

    @Test
    void aPersonInNoMappedGroup_is403_namingTheClaim() {
        Api.Response erin = api.get("/api/v1/session", keycloak.accessToken("erin"));
        assertThat(erin.status()).isEqualTo(403);
        assertThat(erin.json().get("detail").asString())
                .isEqualTo("'Erin Evans' is in no group that Cadre maps to a team (claim 'groups',"
                        + " cadre.auth.oidc.groups)");
    }

    @Test
    void separationOfDuties_holdsPerPerson_acrossTheirTokens_andAnotherTeamSeesNothing() {
        String bob = keycloak.accessToken("bob");
        Api.Response submitted =
                api.post("/api/v1/runs", bob, Api.json(Map.of("agent", "fixer", "input", "restart the api")));
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(202);
        String runId = submitted.json().get("id").asString();
        // Read as a person of the run's team: another team's key would not see it.
        String reader = keycloak.accessToken("alice");
        String approval = Await.until(
                        "a pending approval of run " + runId,
                        () -> api.get("/api/v1/approvals?status=pending&runId=" + runId, reader)
                                .json()
                                .get("items"),
                        items -> !items.isEmpty())
                .get(0)
                .get("id")
                .asString();

        // A person of another team does not see the run at all.
        assertThat(api.get("/api/v1/runs/" + runId, keycloak.accessToken("carol"))
                        .status())
                .isEqualTo(404);
        assertThat(api.get("/api/v1/runs/" + runId, keycloak.accessToken("alice"))
                        .status())
                .isEqualTo(200);

        // Another token of the same person is the same person.
        Api.Response own = api.approve(approval, keycloak.accessToken("bob"));
        assertThat(own.status()).as(own.body()).isEqualTo(403);
        assertThat(own.json().get("detail").asString()).startsWith("'Bob Brown' submitted run " + runId);

        Api.Response alice = api.approve(approval, keycloak.accessToken("alice"));
        assertThat(alice.status()).as(alice.body()).isEqualTo(200);
        assertThat(alice.json().get("decidedBy").asString()).isEqualTo("Alice Adams");
        api.awaitRunEnd(runId, reader);
    }

    private static void assertRefused(Api.Response response, String token, String reason, String detail) {
        assertThat(response.status()).as(response.body()).isEqualTo(401);
        assertThat(response.json().get("reason").asString()).isEqualTo(reason);
        assertThat(response.json().get("detail").asString()).contains(detail);
        assertThat(response.header("WWW-Authenticate")).contains("error=\"invalid_token\"");
        // Nothing of the token comes back: not the token, not any of its three parts.
        for (String part : token.split("\\.")) {
            assertThat(response.body()).doesNotContain(part);
            assertThat(response.header("WWW-Authenticate")).doesNotContain(part);
        }
    }
}
