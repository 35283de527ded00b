package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

@PlatformTest
class SecurityTest {

    @org.springframework.beans.factory.annotation.Autowired
    org.springframework.jdbc.core.simple.JdbcClient jdbc;

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private String newKey(String role) {
        var created = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", role + "-key-" + java.util.UUID.randomUUID(), "role", role)));
        assertThat(created.status()).isEqualTo(201);
        return created.json().get("secret").asString();
    }

    @Test
    void health_isOpen_butEverythingElseNeedsAKey() {
        assertThat(api.get("/actuator/health", null).status()).isEqualTo(200);

        var denied = api.get("/api/v1/keys", null);
        assertThat(denied.status()).isEqualTo(401);
        assertThat(denied.header("WWW-Authenticate")).startsWith("Bearer");
        assertThat(denied.header("Content-Type")).startsWith("application/problem+json");
        assertThat(denied.json().get("type").asString()).isEqualTo("urn:cadre:problem:unauthenticated");

        assertThat(api.get("/actuator/prometheus", null).status()).isEqualTo(401);
        assertThat(api.get("/v3/api-docs", null).status()).isEqualTo(401);
    }

    @Test
    void wrongKey_isRejectedWith401_namingTheHeader() {
        var r = api.send("GET", "/api/v1/audit", null, null, Map.of("X-API-Key", "nope"));
        assertThat(r.status()).isEqualTo(401);
        assertThat(r.json().get("detail").asString()).contains("X-API-Key");
    }

    @Test
    void newKeySecret_isShownOnce_andNoPartOfItIsListed() {
        var created = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", "ci", "role", "viewer")));
        String secret = created.json().get("secret").asString();
        assertThat(secret).startsWith("cadre_").hasSize(38);

        var list = api.get("/api/v1/keys", Api.ADMIN_KEY);
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.body())
                .doesNotContain(secret.substring(6, 12))
                .contains(created.json().get("key").get("id").asString());
        assertThat(api.get("/api/v1/session", secret).json().get("role").asString())
                .isEqualTo("viewer");
    }

    @Test
    void revokedKey_stopsWorking_andTheRevocationIsAudited() {
        var created = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", "temp", "role", "operator")));
        String secret = created.json().get("secret").asString();
        String id = created.json().get("key").get("id").asString();
        assertThat(api.get("/api/v1/session", secret).status()).isEqualTo(200);

        assertThat(api.send("DELETE", "/api/v1/keys/" + id, Api.ADMIN_KEY, null, Map.of())
                        .status())
                .isEqualTo(204);

        assertThat(api.get("/api/v1/session", secret).status()).isEqualTo(401);
        var audit = api.get("/api/v1/audit?limit=500", Api.ADMIN_KEY).json().get("items");
        assertThat(audit.valueStream()
                        .anyMatch(e -> e.get("action").asString().equals("api_key.revoke")
                                && e.get("target").asString().equals(id)
                                && e.get("actor").asString().equals("bootstrap")))
                .isTrue();
    }

    @Test
    void aKeyRevokedByAnotherInstance_stopsWorkingHereOnceItsCacheEntryExpires() {
        var created = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", "elsewhere", "role", "viewer")));
        String secret = created.json().get("secret").asString();
        String id = created.json().get("key").get("id").asString();
        assertThat(api.get("/api/v1/session", secret).status()).isEqualTo(200);

        // Another instance revokes it: the database changes, this instance's cache is not told.
        jdbc.sql("UPDATE cadre_api_key SET revoked_at = CURRENT_TIMESTAMP WHERE id = ?")
                .param(id)
                .update();

        int status = dev.cadre.platform.support.Await.until(
                "the revoked key to be refused",
                () -> api.get("/api/v1/session", secret).status(),
                s -> s == 401);
        assertThat(status).isEqualTo(401);
    }

    @Test
    void onlyAdmins_manageKeys_andReadTheAudit() {
        String viewer = newKey("viewer");
        String operator = newKey("operator");
        for (String key : new String[] {viewer, operator}) {
            assertThat(api.get("/api/v1/keys", key).status()).isEqualTo(403);
            assertThat(api.get("/api/v1/audit", key).status()).isEqualTo(403);
            assertThat(api.post("/api/v1/keys", key, "{\"name\":\"x\",\"role\":\"admin\"}")
                            .status())
                    .isEqualTo(403);
        }
        assertThat(api.get("/api/v1/audit", Api.ADMIN_KEY).status()).isEqualTo(200);
    }

    @Test
    void consoleSession_isCookieBased_andUnsafeCallsNeedTheCsrfToken() {
        String operator = newKey("operator");
        Api browser = Api.browser(port);

        browser.get("/api/v1/session", null); // issues the XSRF-TOKEN cookie
        var bad = browser.send(
                "POST",
                "/api/v1/session",
                null,
                "{\"apiKey\":\"wrong\"}",
                Map.of("X-XSRF-TOKEN", String.valueOf(browser.cookie("XSRF-TOKEN"))));
        assertThat(bad.status()).isEqualTo(401);
        assertThat(bad.json().get("field").asString()).isEqualTo("apiKey");

        // Login needs the CSRF token too (the console reads one first).
        var login = browser.send(
                "POST",
                "/api/v1/session",
                null,
                Api.json(Map.of("apiKey", operator)),
                Map.of("X-XSRF-TOKEN", String.valueOf(browser.cookie("XSRF-TOKEN"))));
        assertThat(login.status()).isEqualTo(200);
        assertThat(login.json().get("role").asString()).isEqualTo("operator");
        assertThat(browser.get("/api/v1/session", null).json().get("name").asString())
                .startsWith("operator-key");

        // An unsafe call from the session without the CSRF header is refused …
        var noCsrf = browser.send("DELETE", "/api/v1/session", null, null, Map.of());
        assertThat(noCsrf.status()).isEqualTo(403);
        assertThat(noCsrf.json().get("detail").asString()).contains("CSRF");
        // … and accepted with it.
        String token = browser.cookie("XSRF-TOKEN");
        assertThat(token).isNotNull();
        var logout = browser.send("DELETE", "/api/v1/session", null, null, Map.of("X-XSRF-TOKEN", token));
        assertThat(logout.status()).isEqualTo(204);
        assertThat(browser.get("/api/v1/session", null).status()).isEqualTo(401);
    }

    @Test
    void createKey_withBadRole_namesTheField() {
        var r = api.post("/api/v1/keys", Api.ADMIN_KEY, "{\"name\":\"x\",\"role\":\"root\"}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("field").asString()).isEqualTo("role");
    }
}
