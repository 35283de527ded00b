package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Issue #13 tried as an attacker would, against a running instance: one test per item of this
 * branch (1 revocation and sessions, 3 separation of duties, 7 bounded resources, 8 web hardening).
 * Runs with the production defaults for separation of duties, and small limits so they can be hit.
 */
@PlatformTest
@TestPropertySource(
        properties = {
            "cadre.approvals.separation-of-duties=true",
            "cadre.security.session.max-per-key=2",
            "cadre.security.rate-limit.requests-per-second=50",
            "cadre.security.rate-limit.burst=40",
            "cadre.sse.max-streams-per-key=2",
            "cadre.sse.idle-timeout=PT5S",
            "server.forward-headers-strategy=native"
        })
@ExtendWith(OutputCaptureExtension.class)
class SecurityAttackTest {

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private JsonNode newKey(String role) {
        var r = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", "attack-" + role + "-" + UUID.randomUUID(), "role", role)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json();
    }

    private static Api.Response login(Api browser, String key) {
        browser.get("/api/v1/session", null); // issues the XSRF-TOKEN cookie, as the console does
        return browser.send(
                "POST",
                "/api/v1/session",
                null,
                Api.json(Map.of("apiKey", key)),
                Map.of("X-XSRF-TOKEN", String.valueOf(browser.cookie("XSRF-TOKEN"))));
    }

    // Item 1 ------------------------------------------------------------------------------------

    @Test
    void item1_keyRequestsAreStateless_andRevokingTheKeyEndsTheKeyAndEverySessionMadeFromIt() {
        JsonNode created = newKey("operator");
        String key = created.get("secret").asString();
        String id = created.get("key").get("id").asString();

        var keyed = api.get("/api/v1/runs", key);
        assertThat(keyed.status()).isEqualTo(200);
        assertThat(keyed.header("Set-Cookie"))
                .as("a key request must not get a session")
                .isNull();

        Api browser = Api.browser(port);
        assertThat(login(browser, key).status()).isEqualTo(200);
        assertThat(browser.get("/api/v1/runs", null).status()).isEqualTo(200);

        assertThat(api.send("DELETE", "/api/v1/keys/" + id, Api.ADMIN_KEY, null, Map.of())
                        .status())
                .isEqualTo(204);

        assertThat(api.get("/api/v1/runs", key).status()).isEqualTo(401);
        assertThat(browser.get("/api/v1/runs", null).status()).isEqualTo(401);
        assertThat(browser.send(
                                "POST",
                                "/api/v1/runs",
                                null,
                                Api.json(Map.of("agent", "triage", "input", "after revocation")),
                                Map.of("X-XSRF-TOKEN", String.valueOf(browser.cookie("XSRF-TOKEN"))))
                        .status())
                .isEqualTo(401);
    }

    @Test
    void item1_aKeyHoldsAtMostItsCapOfSessions_theOldestEnds() {
        String key = newKey("viewer").get("secret").asString();
        Api first = Api.browser(port);
        Api second = Api.browser(port);
        Api third = Api.browser(port);
        assertThat(login(first, key).status()).isEqualTo(200);
        assertThat(login(second, key).status()).isEqualTo(200);
        assertThat(login(third, key).status()).isEqualTo(200);

        assertThat(first.get("/api/v1/runs", null).status()).isEqualTo(401);
        assertThat(second.get("/api/v1/runs", null).status()).isEqualTo(200);
        assertThat(third.get("/api/v1/runs", null).status()).isEqualTo(200);
    }

    // Item 3 ------------------------------------------------------------------------------------

    @Test
    void item3_theKeyThatSubmittedARun_cannotDecideItsApproval_anotherOperatorCan() {
        String submitter = newKey("operator").get("secret").asString();
        var submitted = api.post(
                "/api/v1/runs", submitter, Api.json(Map.of("agent", "fixer", "input", "separation of duties")));
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(202);
        String runId = submitted.json().get("id").asString();
        String approvalId = api.pendingApprovalOf(runId).get("id").asString();

        var own = api.post("/api/v1/approvals/" + approvalId + "/approve", submitter, "{}");
        assertThat(own.status()).isEqualTo(403);
        assertThat(own.json().get("type").asString()).isEqualTo("urn:cadre:problem:separation-of-duties");
        assertThat(own.json().get("detail").asString()).contains("submitted run " + runId);
        assertThat(api.post("/api/v1/approvals/" + approvalId + "/reject", submitter, "{}")
                        .status())
                .isEqualTo(403);

        assertThat(api.post("/api/v1/approvals/" + approvalId + "/approve", Api.ADMIN_KEY, "{}")
                        .status())
                .isEqualTo(200);
        assertThat(api.awaitRunEnd(runId).get("status").asString()).isEqualTo("completed");
    }

    @Test
    void item3_integrationKeys_submitThroughTheirDoor_butNeverDecideOrRead() {
        String intake = newKey("intake").get("secret").asString();
        String agent = newKey("agent").get("secret").asString();
        String approvalId = api.pendingApprovalOf(
                        api.submitRun("fixer", "integration roles").get("id").asString())
                .get("id")
                .asString();

        var alert = api.post(
                "/api/v1/integrations/alertmanager",
                intake,
                "{\"version\":\"4\",\"status\":\"resolved\",\"alerts\":[{\"status\":\"resolved\",\"labels\":"
                        + "{\"alertname\":\"AttackTest\"},\"fingerprint\":\"attack-" + UUID.randomUUID() + "\"}]}");
        assertThat(alert.status()).as(alert.body()).isEqualTo(200);
        var a2a = api.post(
                "/a2a", agent, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\",\"params\":{\"id\":\"nope\"}}");
        assertThat(a2a.status()).isNotIn(401, 403);

        for (String key : List.of(intake, agent)) {
            assertThat(api.post("/api/v1/approvals/" + approvalId + "/approve", key, "{}")
                            .status())
                    .isEqualTo(403);
            assertThat(api.get("/api/v1/runs", key).status()).isEqualTo(403);
            assertThat(api.post("/api/v1/runs", key, Api.json(Map.of("agent", "triage", "input", "x")))
                            .status())
                    .isEqualTo(403);
            Api browser = Api.browser(port);
            var login = login(browser, key);
            assertThat(login.status()).isEqualTo(403);
            assertThat(login.json().get("type").asString()).isEqualTo("urn:cadre:problem:integration-key");
        }
        assertThat(api.post("/api/v1/integrations/alertmanager", agent, "{\"alerts\":[]}")
                        .status())
                .isEqualTo(403);
        assertThat(api.post("/a2a", intake, "{}").status()).isEqualTo(403);
    }

    // Item 7 ------------------------------------------------------------------------------------

    @Test
    void item7_aKeyOverItsRateLimit_gets429WithRetryAfter() {
        String key = newKey("viewer").get("secret").asString();
        Api.Response limited = null;
        Api.Response first = null;
        for (int i = 0; i < 200 && limited == null; i++) {
            var r = api.get("/api/v1/agents", key);
            first = first == null ? r : first;
            if (r.status() == 429) {
                limited = r;
            }
        }
        assertThat(limited).as("a 429 within 200 quick requests").isNotNull();
        assertThat(limited.header("Retry-After")).matches("[1-9][0-9]*");
        // Every answer to the key says its limit and what is left of it (the burst here: 40).
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.header("X-RateLimit-Limit")).isEqualTo("40");
        assertThat(Long.parseLong(first.header("X-RateLimit-Remaining"))).isBetween(0L, 39L);
        assertThat(limited.header("X-RateLimit-Limit")).isEqualTo("40");
        assertThat(limited.header("X-RateLimit-Remaining")).isEqualTo("0");
        assertThat(limited.json().get("type").asString()).isEqualTo("urn:cadre:problem:rate-limited");
        // Another key is not affected.
        assertThat(api.get("/api/v1/agents", newKey("viewer").get("secret").asString())
                        .status())
                .isEqualTo(200);
    }

    @Test
    void item7_eventStreams_areCappedPerKey_andClosedWhenIdle() throws Exception {
        String runId = api.submitRun("fixer", "streams").get("id").asString();
        api.pendingApprovalOf(runId); // from now on the run's stream is quiet
        String key = newKey("viewer").get("secret").asString();
        HttpClient client = HttpClient.newHttpClient();
        List<HttpResponse<InputStream>> open = new ArrayList<>();
        try {
            open.add(stream(client, runId, key));
            open.add(stream(client, runId, key));
            HttpResponse<InputStream> third = stream(client, runId, key);
            open.add(third);
            // Status first: an uncapped stream would never end, and reading it would hang.
            assertThat(third.statusCode()).isEqualTo(429);
            String body = new String(third.body().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(third.headers().firstValue("Retry-After")).isPresent();
            assertThat(body).contains("too-many-streams");

            // Idle: no event for cadre.sse.idle-timeout, and the server ends the stream itself.
            CompletableFuture<byte[]> rest = CompletableFuture.supplyAsync(() -> {
                try {
                    return open.getFirst().body().readAllBytes();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until("the idle stream to be closed by the server", rest::isDone, done -> done);
            // The slots are free again.
            Await.until(
                    "a new stream to be allowed",
                    () -> {
                        try {
                            HttpResponse<InputStream> r = stream(client, runId, key);
                            r.body().close();
                            return r.statusCode();
                        } catch (Exception e) {
                            return -1;
                        }
                    },
                    s -> s == 200);
        } finally {
            for (var r : open) {
                r.body().close();
            }
        }
    }

    private HttpResponse<InputStream> stream(HttpClient client, String runId, String key) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/runs/" + runId + "/events"))
                        .header("Authorization", "Bearer " + key)
                        .header("Accept", "text/event-stream")
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    }

    @Test
    void item7_memoryNamespacesFromRequests_neverBecomeMetricLabels() {
        String namespace = "attacker-" + UUID.randomUUID();
        api.get("/api/v1/memory/" + namespace + "/k", Api.ADMIN_KEY);
        api.send("PUT", "/api/v1/memory/" + namespace + "/k", Api.ADMIN_KEY, "{}", Map.of("If-None-Match", "*"));
        String scrape = api.get("/actuator/prometheus", Api.ADMIN_KEY).body();
        assertThat(scrape).doesNotContain(namespace).contains("namespace=\"other\"");
    }

    @Test
    void item7_anAuthenticated404_isAProblem_withoutAStackTraceInTheLog(CapturedOutput output) {
        int before = output.getAll().length();
        var r = api.get("/api/v1/no-such-endpoint-" + UUID.randomUUID(), Api.ADMIN_KEY);
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        assertThat(r.json().get("type").asString()).isEqualTo("urn:cadre:problem:not-found");
        String logged = output.getAll().substring(before);
        assertThat(logged).doesNotContain("Failure in @ExceptionHandler").doesNotContain("\tat ");
    }

    // Item 8 ------------------------------------------------------------------------------------

    @Test
    void item8_theConsoleIsServedWithAStrictCsp_andHasNoInlineScriptOrStyleItWouldBreak() throws Exception {
        var page = api.get("/", null);
        assertThat(page.status()).isEqualTo(200);
        String csp = page.header("Content-Security-Policy");
        assertThat(csp).contains("script-src 'self'", "style-src 'self'", "frame-ancestors 'none'");
        assertThat(csp).doesNotContain("unsafe-inline").doesNotContain("unsafe-eval");
        assertThat(page.header("Referrer-Policy")).isEqualTo("no-referrer");

        var resolver = new PathMatchingResourcePatternResolver();
        List<String> inline = new ArrayList<>();
        for (var resource : resolver.getResources("classpath*:META-INF/resources/**/*.{html,js}")) {
            String path = resource.getURL().getPath();
            if (path.contains("/webjars/") || path.contains("/vendor/")) {
                continue;
            }
            String text = new String(resource.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (text.matches("(?s).*<script(?![^>]*\\bsrc=)[^>]*>.*")
                    || text.matches("(?s).*\\sstyle=['\"].*")
                    || text.contains("<style")
                    || text.matches("(?s).*\\son[a-z]+=['\"].*")) {
                inline.add(path);
            }
        }
        assertThat(inline).as("pages with inline script, style or handlers").isEmpty();
    }

    @Test
    void item8_sessionCookiesAreStrictAndHttpOnly_andSecureBehindTls() {
        String key = newKey("viewer").get("secret").asString();
        Api browser = Api.browser(port);
        browser.get("/api/v1/session", null);
        var login = browser.send(
                "POST",
                "/api/v1/session",
                null,
                Api.json(Map.of("apiKey", key)),
                Map.of("X-XSRF-TOKEN", String.valueOf(browser.cookie("XSRF-TOKEN")), "X-Forwarded-Proto", "https"));
        assertThat(login.status()).isEqualTo(200);
        String cookies = login.header("Set-Cookie");
        assertThat(cookies).contains("JSESSIONID").containsIgnoringCase("SameSite=Strict");
        assertThat(cookies).containsIgnoringCase("HttpOnly").containsIgnoringCase("Secure");
    }

    @Test
    void item8_loginNeedsTheCsrfToken() {
        String key = newKey("viewer").get("secret").asString();
        Api browser = Api.browser(port);
        var forged = browser.post("/api/v1/session", null, Api.json(Map.of("apiKey", key)));
        assertThat(forged.status()).isEqualTo(403);
        assertThat(forged.json().get("detail").asString()).contains("CSRF");
        assertThat(login(browser, key).status()).isEqualTo(200);
    }

    @Test
    void item8_anAgentCardBuiltFromTheHostHeader_isNeverCachedForOthers() {
        var card =
                api.send("GET", "/.well-known/agent-card.json", null, null, Map.of("X-Forwarded-Host", "evil.example"));
        assertThat(card.status()).isEqualTo(200);
        assertThat(card.json().get("url").asString()).contains("evil.example");
        assertThat(card.header("Cache-Control")).contains("no-store").doesNotContain("public");
    }

    @Test
    void item8_keyNames_areUniqueAndFreeOfControlCharacters() {
        String name = "unique-" + UUID.randomUUID();
        assertThat(api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", name, "role", "viewer")))
                        .status())
                .isEqualTo(201);
        var again = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", name, "role", "viewer")));
        assertThat(again.status()).isEqualTo(400);
        assertThat(again.json().get("field").asString()).isEqualTo("name");
        assertThat(again.json().get("detail").asString()).contains("already exists");

        var forged =
                api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", "ops\nadmin=yes", "role", "viewer")));
        assertThat(forged.status()).isEqualTo(400);
        assertThat(forged.json().get("detail").asString()).contains("control characters");
    }

    @Test
    void item8_theAuditLogRecords_loginsFailedAuthenticationsSubmissionsAndMemoryWrites() {
        JsonNode created = newKey("operator");
        String key = created.get("secret").asString();
        String name = created.get("key").get("name").asString();
        assertThat(login(Api.browser(port), key).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/runs", "cadre_not-a-key-" + UUID.randomUUID())
                        .status())
                .isEqualTo(401);
        String runId = api.post("/api/v1/runs", key, Api.json(Map.of("agent", "triage", "input", "audited")))
                .json()
                .get("id")
                .asString();
        String namespace = "audited-" + UUID.randomUUID();
        assertThat(api.send("PUT", "/api/v1/memory/" + namespace + "/k", key, "{}", Map.of("If-None-Match", "*"))
                        .status())
                .isEqualTo(201);

        JsonNode items =
                api.get("/api/v1/audit?limit=500", Api.ADMIN_KEY).json().get("items");
        assertThat(has(items, name, "session.login", null)).isTrue();
        assertThat(has(items, "anonymous", "auth.failed", "GET /api/v1/runs")).isTrue();
        assertThat(has(items, name, "run.submit", runId)).isTrue();
        assertThat(has(items, name, "memory.write", namespace + "/k")).isTrue();
        assertThat(items.toString()).doesNotContain("cadre_not-a-key");
    }

    private static boolean has(JsonNode items, String actor, String action, String target) {
        return items.valueStream()
                .anyMatch(e -> e.get("actor").asString().equals(actor)
                        && e.get("action").asString().equals(action)
                        && (target == null || e.get("target").asString().equals(target)));
    }
}
