package dev.cadre.platform.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The audit log filtered by actor, action (or its prefix), target and time. */
@PlatformTest
class AuditFilterTest {

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    @Test
    void theAuditLog_filtersByActorActionTargetAndTime() {
        String team = "audit-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(api.post("/api/v1/teams", Api.ADMIN_KEY, Api.json(Map.of("name", team)))
                        .status())
                .isEqualTo(201);
        String keyId = api.post(
                        "/api/v1/keys",
                        Api.ADMIN_KEY,
                        Api.json(Map.of("name", team + "-ci", "role", "viewer", "team", team)))
                .json()
                .get("key")
                .get("id")
                .asString();
        api.post("/api/v1/keys/" + keyId + "/rotate", Api.ADMIN_KEY, "{}");

        var byTarget =
                api.get("/api/v1/audit?target=" + keyId, Api.ADMIN_KEY).json().get("items");
        assertThat(byTarget.valueStream().map(e -> e.get("action").asString()).toList())
                .containsExactly("api_key.rotate", "api_key.create");
        var rotations = api.get("/api/v1/audit?action=api_key.rotate&target=" + keyId, Api.ADMIN_KEY)
                .json()
                .get("items");
        assertThat(rotations.size()).isEqualTo(1);
        assertThat(rotations.get(0).get("actor").asString()).isEqualTo("bootstrap");
        var teamCreated = api.get("/api/v1/audit?action=team.&actor=bootstrap&target=" + team, Api.ADMIN_KEY)
                .json()
                .get("items");
        assertThat(teamCreated
                        .valueStream()
                        .map(e -> e.get("action").asString())
                        .toList())
                .containsExactly("team.create");
        assertThat(api.get("/api/v1/audit?target=" + keyId + "&from=2999-01-01T00:00:00Z", Api.ADMIN_KEY)
                        .json()
                        .get("items")
                        .size())
                .isZero();
        assertThat(api.get("/api/v1/audit?target=" + keyId + "&to=2999-01-01T00:00:00Z", Api.ADMIN_KEY)
                        .json()
                        .get("items")
                        .size())
                .isEqualTo(2);

        var bad = api.get("/api/v1/audit?from=yesterday", Api.ADMIN_KEY);
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("detail").asString())
                .isEqualTo("from: 'yesterday' is not an ISO-8601 instant (e.g. 2026-12-01T00:00:00Z)");
    }
}
