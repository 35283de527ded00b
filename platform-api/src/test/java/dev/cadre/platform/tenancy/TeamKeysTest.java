package dev.cadre.platform.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/** A key acts in one team: the caller's principal carries it, and only a platform admin crosses teams. */
@PlatformTest
class TeamKeysTest {

    @Autowired
    TeamStore teams;

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
        teams.create(new TeamId("db"), "Database team", "test");
    }

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private String key(String callerKey, Map<String, Object> body) {
        var created = api.post("/api/v1/keys", callerKey, Api.json(body));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().get("secret").asString();
    }

    @Test
    void bootstrapAdmin_isAPlatformAdminOfTeamDefault() {
        var me = api.get("/api/v1/session", Api.ADMIN_KEY).json();
        assertThat(me.get("team").asString()).isEqualTo("default");
        assertThat(me.get("platformAdmin").asBoolean()).isTrue();
    }

    @Test
    void aKeyCreatedWithoutATeam_actsInItsCreatorsTeam() {
        String dbAdmin = key(Api.ADMIN_KEY, Map.of("name", unique("db-admin"), "role", "admin", "team", "db"));
        String operator = key(dbAdmin, Map.of("name", unique("db-oncall"), "role", "operator"));

        var me = api.get("/api/v1/session", operator).json();
        assertThat(me.get("team").asString()).isEqualTo("db");
        assertThat(me.get("role").asString()).isEqualTo("operator");
        assertThat(me.get("platformAdmin").asBoolean()).isFalse();
        var listed = api.get("/api/v1/keys", Api.ADMIN_KEY).json();
        assertThat(listed.valueStream()
                        .filter(k -> k.get("team").asString().equals("db"))
                        .count())
                .isGreaterThanOrEqualTo(2);
    }

    @Test
    void aTeamAdmin_createsKeysOfItsOwnTeamOnly_andNoPlatformAdmins() {
        String dbAdmin = key(Api.ADMIN_KEY, Map.of("name", unique("db-admin"), "role", "admin", "team", "db"));

        var otherTeam = api.post(
                "/api/v1/keys",
                dbAdmin,
                Api.json(Map.of("name", unique("sneaky"), "role", "operator", "team", "default")));
        assertThat(otherTeam.status()).isEqualTo(403);
        assertThat(otherTeam.json().get("detail").asString()).isEqualTo("team: your key is an admin of team 'db' only");

        var platform = api.post(
                "/api/v1/keys",
                dbAdmin,
                Api.json(Map.of("name", unique("sneaky"), "role", "admin", "platformAdmin", true)));
        assertThat(platform.status()).isEqualTo(403);
        assertThat(platform.json().get("detail").asString())
                .isEqualTo("platformAdmin: your key is an admin of team 'db' only");
    }

    @Test
    void anUnknownOrMalformedTeam_answers400NamingIt() {
        var unknown = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", unique("k"), "role", "viewer", "team", "nowhere")));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.body()).contains("there is no team 'nowhere'; an admin creates teams first");

        var malformed = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", unique("k"), "role", "viewer", "team", "Not_A_Team")));
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.body()).contains("'Not_A_Team' is not a team name");
    }

    @Test
    void onlyAnAdminKeyCanBeAPlatformAdmin() {
        var r = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", unique("k"), "role", "operator", "platformAdmin", true)));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body()).contains("only a key with role admin can be a platform admin");
    }

    @Test
    void aTeamAdmin_listsAndRevokesItsOwnTeamsKeysOnly_andReadsNoAuditLog() {
        String dbAdmin = key(Api.ADMIN_KEY, Map.of("name", unique("db-admin"), "role", "admin", "team", "db"));
        var defaultKey = api.post(
                        "/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", unique("default-ci"), "role", "viewer")))
                .json()
                .get("key")
                .get("id")
                .asString();

        var listed = api.get("/api/v1/keys", dbAdmin).json();
        assertThat(listed.valueStream()
                        .map(k -> k.get("team").asString())
                        .distinct()
                        .toList())
                .containsExactly("db");
        var revoked = api.send("DELETE", "/api/v1/keys/" + defaultKey, dbAdmin, null, Map.of());
        assertThat(revoked.status()).isEqualTo(404);
        assertThat(revoked.json().get("detail").asString()).isEqualTo("API key '" + defaultKey + "' does not exist");

        var audit = api.get("/api/v1/audit", dbAdmin);
        assertThat(audit.status()).isEqualTo(403);
        assertThat(api.get("/api/v1/audit", Api.ADMIN_KEY).status()).isEqualTo(200);
        // A platform admin lists every team's keys.
        assertThat(api.get("/api/v1/keys", Api.ADMIN_KEY)
                        .json()
                        .valueStream()
                        .map(k -> k.get("team").asString())
                        .distinct()
                        .toList())
                .contains("db", "default");
    }

    @Test
    void aKeyRotated_keepsItsIdentity_andOnlyTheNewSecretWorks_withinItsTeam() {
        String dbAdmin = key(Api.ADMIN_KEY, Map.of("name", unique("db-admin"), "role", "admin", "team", "db"));
        var created = api.post("/api/v1/keys", dbAdmin, Api.json(Map.of("name", unique("db-ci"), "role", "viewer")))
                .json();
        String id = created.get("key").get("id").asString();
        String old = created.get("secret").asString();

        var rotated = api.post("/api/v1/keys/" + id + "/rotate", dbAdmin, "{}");
        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
        assertThat(rotated.json().get("key").get("id").asString()).isEqualTo(id);
        assertThat(rotated.json().get("key").get("team").asString()).isEqualTo("db");
        String fresh = rotated.json().get("secret").asString();
        assertThat(fresh).isNotEqualTo(old);
        assertThat(api.get("/api/v1/session", old).status()).isEqualTo(401);
        assertThat(api.get("/api/v1/session", fresh).json().get("team").asString())
                .isEqualTo("db");

        // Another team's admin: as if there were no such key.
        String otherAdmin = key(Api.ADMIN_KEY, Map.of("name", unique("default-admin"), "role", "admin"));
        var foreign = api.post("/api/v1/keys/" + id + "/rotate", otherAdmin, "{}");
        assertThat(foreign.status()).isEqualTo(404);
        assertThat(foreign.json().get("detail").asString()).isEqualTo("API key '" + id + "' does not exist");

        assertThat(api.send("DELETE", "/api/v1/keys/" + id, dbAdmin, null, Map.of())
                        .status())
                .isEqualTo(204);
        var revoked = api.post("/api/v1/keys/" + id + "/rotate", dbAdmin, "{}");
        assertThat(revoked.status()).isEqualTo(409);
        assertThat(revoked.json().get("detail").asString())
                .isEqualTo("API key '" + id + "' is revoked; create a new key instead of rotating it");
        assertThat(api.get("/api/v1/session", fresh).status()).isEqualTo(401);
    }
}
