package dev.cadre.platform.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Platform admins create teams; everyone else reads only the team it acts in. */
@PlatformTest
class TeamsApiTest {

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void aPlatformAdmin_createsATeam_onceOnly_andItsKeysActInIt() {
        String name = unique("payments");
        var created = api.post("/api/v1/teams", Api.ADMIN_KEY, Api.json(Map.of("name", name, "title", "Payments")));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.header("Location")).isEqualTo("/api/v1/teams/" + name);
        assertThat(created.json().get("name").asString()).isEqualTo(name);
        assertThat(created.json().get("title").asString()).isEqualTo("Payments");
        assertThat(created.json().get("createdBy").asString()).isEqualTo("bootstrap");

        var again = api.post("/api/v1/teams", Api.ADMIN_KEY, Api.json(Map.of("name", name)));
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("detail").asString())
                .isEqualTo("a team named '" + name + "' exists already (team names are never reused)");

        var key = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", unique("pay-oncall"), "role", "operator", "team", name)));
        assertThat(key.status()).as(key.body()).isEqualTo(201);
        String secret = key.json().get("secret").asString();
        assertThat(api.get("/api/v1/session", secret).json().get("team").asString())
                .isEqualTo(name);
        // Its members see their own team only.
        var listed = api.get("/api/v1/teams", secret).json();
        assertThat(listed.valueStream().map(t -> t.get("name").asString()).toList())
                .containsExactly(name);
        var other = api.get("/api/v1/teams/default", secret);
        assertThat(other.status()).isEqualTo(404);
        assertThat(api.get("/api/v1/teams/" + name, secret).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/teams", Api.ADMIN_KEY)
                        .json()
                        .valueStream()
                        .map(t -> t.get("name").asString())
                        .toList())
                .contains("default", name);
    }

    @Test
    void aTeamName_thatIsNoDnsLabel_isRefused_namingTheField() {
        var r = api.post("/api/v1/teams", Api.ADMIN_KEY, Api.json(Map.of("name", "Payments_Team")));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("field").asString()).isEqualTo("name");
        assertThat(r.json().get("detail").asString())
                .isEqualTo("name: 'Payments_Team' is not a team name: use 1 to 63 of a-z, 0-9 and '-', starting and"
                        + " ending with a letter or digit");
    }

    @Test
    void onlyPlatformAdmins_createTeams() {
        var teamAdmin = api.post(
                        "/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", unique("team-admin"), "role", "admin")))
                .json()
                .get("secret")
                .asString();
        var r = api.post("/api/v1/teams", teamAdmin, Api.json(Map.of("name", unique("rogue"))));
        assertThat(r.status()).isEqualTo(403);
    }
}
