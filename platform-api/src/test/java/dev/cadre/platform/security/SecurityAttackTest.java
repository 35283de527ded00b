package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
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
import tools.jackson.databind.JsonNode;

/**
 * Issue #13 tried as an attacker would, against a running instance: one test per item of this
 * branch (1 revocation and sessions, 3 separation of duties, 7 bounded resources, 8 web hardening).
 * Runs with the production defaults for separation of duties, and small limits so they can be hit.
 */
@AttackLimits
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

        var own = api.approve(approvalId, submitter);
        assertThat(own.status()).isEqualTo(403);
        assertThat(own.json().get("type").asString()).isEqualTo("urn:cadre:problem:separation-of-duties");
        assertThat(own.json().get("detail").asString()).contains("submitted run " + runId);
        assertThat(api.post("/api/v1/approvals/" + approvalId + "/reject", submitter, "{}")
                        .status())
                .isEqualTo(403);

        assertThat(api.approve(approvalId, Api.ADMIN_KEY).status()).isEqualTo(200);
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
            assertThat(api.approve(approvalId, key).status()).isEqualTo(403);
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
        Api.Response first = api.get("/api/v1/agents", key);
        // 32 clients at once spend the key's 40-request burst faster than its 50 per second refill,
        // however slow each request is on a loaded machine (one client alone may not).
        List<Api.Response> burst;
        try (var clients = java.util.concurrent.Executors.newFixedThreadPool(32)) {
            List<java.util.concurrent.Future<Api.Response>> sent = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                sent.add(clients.submit(() -> api.get("/api/v1/agents", key)));
            }
            burst = new ArrayList<>();
            for (var f : sent) {
                burst.add(f.get());
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        Api.Response limited =
                burst.stream().filter(r -> r.status() == 429).findFirst().orElse(null);
        assertThat(limited)
                .as("a 429 within 400 requests from 32 clients at once")
                .isNotNull();
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

    /** An Alertmanager delivery of alerts {@code from} to {@code to} (inclusive) of the series {@code series}. */
    private static String alerts(String series, int from, int to) {
        StringBuilder alerts = new StringBuilder();
        for (int i = from; i <= to; i++) {
            alerts.append(i == from ? "" : ",")
                    .append("{\"status\":\"firing\",\"labels\":{\"alertname\":\"Flood\",\"instance\":\"host-")
                    .append(i)
                    .append("\"},\"startsAt\":\"2026-12-05T03:00:00Z\",\"fingerprint\":\"")
                    .append(series)
                    .append('-')
                    .append(i)
                    .append("\"}");
        }
        return "{\"version\":\"4\",\"status\":\"firing\",\"alerts\":[" + alerts + "]}";
    }

    private static List<String> actions(Api.Response r) {
        return r.json()
                .get("alerts")
                .valueStream()
                .map(a -> a.get("action").asString())
                .toList();
    }

    // Issue 23, finding 7: one 4 KB delivery opened 30 incidents, 30 runs and 30 approvals in 2 s.
    @Test
    void finding7_oneDeliveryCannotFanOutWithoutBound_andAKeyOpensAtMostItsRateOfIncidents() {
        String intake = newKey("intake").get("secret").asString();
        String series = "flood-" + UUID.randomUUID();
        // Other tests of this context deliver alerts too: the counters are compared with their values now.
        String before = api.get("/actuator/prometheus", Api.ADMIN_KEY).body();
        String path = "/api/v1/integrations/alertmanager";

        // Five alerts in one delivery, over the cap of 4: refused whole, nothing opened.
        var tooMany = api.post(path, intake, alerts(series, 0, 4));
        assertThat(tooMany.status()).as(tooMany.body()).isEqualTo(413);
        assertThat(tooMany.json().get("type").asString()).isEqualTo("urn:cadre:problem:too-many-alerts");
        assertThat(tooMany.json().get("detail").asString()).contains("max_alerts: 4");

        // Four of them now open four incidents: the refused delivery left nothing half-written.
        var first = api.post(path, intake, alerts(series, 0, 3));
        assertThat(first.status()).as(first.body()).isEqualTo(200);
        assertThat(actions(first)).containsOnly("incident-opened").hasSize(4);

        // Three more new ones: the key has 2 of its 6 per minute left, so the whole delivery waits.
        var over = api.post(path, intake, alerts(series, 4, 6));
        assertThat(over.status()).as(over.body()).isEqualTo(429);
        assertThat(over.json().get("type").asString()).isEqualTo("urn:cadre:problem:intake-rate-limited");
        assertThat(Long.parseLong(over.header("Retry-After"))).isBetween(1L, 60L);

        // Repeats of open incidents cost nothing; two new ones still fit.
        assertThat(actions(api.post(path, intake, alerts(series, 0, 3))))
                .containsOnly("duplicate")
                .hasSize(4);
        var two = api.post(path, intake, alerts(series, 4, 5));
        assertThat(two.status()).as(two.body()).isEqualTo(200);
        assertThat(actions(two)).containsOnly("incident-opened").hasSize(2);
        assertThat(api.post(path, intake, alerts(series, 6, 6)).status()).isEqualTo(429);

        String scrape = api.get("/actuator/prometheus", Api.ADMIN_KEY).body();
        assertThat(metric(scrape, "cadre_intake_rejections_total{reason=\"too-many-alerts\"}")
                        - metric(before, "cadre_intake_rejections_total{reason=\"too-many-alerts\"}"))
                .isEqualTo(1.0);
        assertThat(metric(scrape, "cadre_intake_rejections_total{reason=\"rate-limited\"}")
                        - metric(before, "cadre_intake_rejections_total{reason=\"rate-limited\"}"))
                .isEqualTo(2.0);
        assertThat(metric(scrape, "cadre_intake_alerts_total{outcome=\"incident-opened\"}")
                        - metric(before, "cadre_intake_alerts_total{outcome=\"incident-opened\"}"))
                .isEqualTo(6.0);
        assertThat(metric(scrape, "cadre_intake_alerts_total{outcome=\"duplicate\"}")
                        - metric(before, "cadre_intake_alerts_total{outcome=\"duplicate\"}"))
                .isEqualTo(4.0);
    }

    /** The value of one sample line of a Prometheus scrape ({@code name{labels}}), 0 when absent. */
    private static double metric(String scrape, String sample) {
        return scrape.lines()
                .filter(l -> l.startsWith(sample + " "))
                .mapToDouble(
                        l -> Double.parseDouble(l.substring(sample.length() + 1).strip()))
                .findFirst()
                .orElse(0.0);
    }

    /** One firing alert of {@code fingerprint}, notified at {@code startsAt} (each a new sighting). */
    private static String repeat(String fingerprint, String startsAt) {
        return "{\"version\":\"4\",\"status\":\"firing\",\"alerts\":[{\"status\":\"firing\",\"labels\":"
                + "{\"alertname\":\"Loop\",\"instance\":\"host-1\"},\"startsAt\":\"" + startsAt
                + "\",\"fingerprint\":\"" + fingerprint + "\"}]}";
    }

    // Repeated alerts filled the disk: 300 repeats of one alert in 3.5 s were all written.
    @Test
    void repeatsOfOneAlert_countAgainstTheKeysRepeatRate_andARefusedRepeatWritesNothing() {
        String intake = newKey("intake").get("secret").asString();
        String fingerprint = "loop-" + UUID.randomUUID();
        String path = "/api/v1/integrations/alertmanager";
        var opened = api.post(path, intake, repeat(fingerprint, "2026-12-05T03:00:00Z"));
        assertThat(actions(opened)).containsExactly("incident-opened");
        String incident = opened.json().get("alerts").get(0).get("incident").asString();

        // 8 repeats per minute: each a new notification, so each a sighting.
        for (int i = 1; i <= 8; i++) {
            var r = api.post(path, intake, repeat(fingerprint, "2026-12-05T03:0" + i + ":00Z"));
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            // (The third sighting escalates: cadre.incidents.escalate-after's default.)
            assertThat(actions(r)).singleElement().asString().startsWith("seen-again");
        }
        var over = api.post(path, intake, repeat(fingerprint, "2026-12-05T03:09:00Z"));
        assertThat(over.status()).as(over.body()).isEqualTo(429);
        assertThat(over.json().get("type").asString()).isEqualTo("urn:cadre:problem:intake-rate-limited");
        assertThat(over.json().get("detail").asString())
                .contains("repeats-per-minute")
                .contains("nothing of it was processed");
        assertThat(Long.parseLong(over.header("Retry-After"))).isBetween(1L, 8L);

        // The refused repeat left no sighting: Alertmanager's retry is the one that counts.
        var seen = api.get("/api/v1/incidents/" + incident, Api.ADMIN_KEY);
        assertThat(seen.json().get("summary").get("occurrences").asInt())
                .as(seen.body())
                .isEqualTo(9);
        assertThat(metric(
                        api.get("/actuator/prometheus", Api.ADMIN_KEY).body(),
                        "cadre_intake_rejections_total{reason=\"repeats-rate-limited\"}"))
                .isEqualTo(1.0);
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

    // Issue 23 (round three) -----------------------------------------------------------------------

    @org.springframework.beans.factory.annotation.Autowired
    ApiKeyService keyService;

    private String a2aSend(String key, String agent, String text) {
        return "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"SendMessage\",\"params\":{\"message\":{"
                + "\"messageId\":\"" + UUID.randomUUID() + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":"
                + Api.json(text) + "}],\"metadata\":{\"agent\":\"" + agent + "\"}}}}";
    }

    private JsonNode audit() {
        return api.get("/api/v1/audit?limit=500", Api.ADMIN_KEY).json().get("items");
    }

    @Test
    void round3_finding3_anEditIsANewProposal_theEditorCannotApproveIt_andItNeverSwapsTheRunbook() {
        // An A2A run: no person submitted it, so only the approvers are people.
        String peer = newKey("agent").get("secret").asString();
        var sent = api.post("/a2a", peer, a2aSend(peer, "runbook-asker", "how full is /tmp?"));
        assertThat(sent.status()).as(sent.body()).isEqualTo(200);
        String runId = sent.json().at("/result/task/id").asString();
        JsonNode approval = api.pendingApprovalOf(runId);
        String id = approval.get("id").asString();
        JsonNode editorKey = newKey("operator");
        String editor = editorKey.get("secret").asString();
        String editorName = editorKey.at("/key/name").asString();

        // Swapping the runbook is refused, naming the field; nothing is decided.
        var swap = api.approve(
                id,
                editor,
                "{\"editedArguments\":{\"runbook\":\"clear-tmp-cache\",\"arguments\":{\"dry_run\":false}}}");
        assertThat(swap.status()).as(swap.body()).isEqualTo(400);
        assertThat(swap.json().get("field").asString()).isEqualTo("editedArguments.runbook");
        assertThat(swap.json().get("detail").asString()).contains("may not change the runbook");

        // Editing the arguments proposes a new action: still pending, the editor its proposer.
        var proposed = api.approve(
                id,
                editor,
                "{\"editedArguments\":{\"runbook\":\"disk-usage-report\",\"arguments\":{\"path\":\"/etc\"}}}");
        assertThat(proposed.status()).as(proposed.body()).isEqualTo(200);
        assertThat(proposed.json().get("status").asString()).isEqualTo("pending");
        assertThat(proposed.json().get("proposedBy").asString()).isEqualTo(editorName);
        assertThat(proposed.json().at("/editedArguments/arguments/path").asString())
                .isEqualTo("/etc");

        // The editor cannot approve their own proposal; the refusal is audited.
        var own = api.approve(id, editor);
        assertThat(own.status()).as(own.body()).isEqualTo(403);
        assertThat(own.json().get("type").asString()).isEqualTo("urn:cadre:problem:separation-of-duties");
        assertThat(own.json().get("proposedBy").asString()).isEqualTo(editorName);
        assertThat(api.get("/api/v1/approvals/" + id, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString())
                .isEqualTo("pending");
        assertThat(has(audit(), editorName, "approval.refused", id)).isTrue();

        // Another operator approves the proposal: the edited action is what runs.
        var approved = api.approve(id, Api.ADMIN_KEY);
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
        assertThat(approved.json().get("status").asString()).isEqualTo("approved");
        assertThat(approved.json().get("decidedBy").asString()).isEqualTo("bootstrap");
        assertThat(approved.json().get("executedHash").asString())
                .isNotEqualTo(approved.json().get("argumentsHash").asString());
        api.awaitRunEnd(runId);
        assertThat(has(audit(), editorName, "approval.propose_edit", id)).isTrue();
        assertThat(has(audit(), "bootstrap", "approval.approve_proposal", id)).isTrue();
    }

    @Test
    void round3_finding8_placeholderOrShortBootstrapSecretsAreRefused_aNewOneRevokesTheOld_andNoSecretIsShown()
            throws Exception {
        for (String weak : List.of(
                "change-me", "change-me-to-a-long-random-admin-key-please", "x".repeat(40), "short-but-random-9f3k")) {
            try {
                keyService.bootstrap(weak);
                throw new AssertionError("bootstrap accepted a weak secret");
            } catch (IllegalStateException refused) {
                assertThat(refused.getMessage())
                        .contains("cadre.security.bootstrap-api-key")
                        .doesNotContain(weak);
            }
        }
        // The shipped manifest has no usable value: empty, or one the check refuses.
        String manifest = java.nio.file.Files.readString(java.nio.file.Path.of("../deploy/k8s/secret.yaml"));
        var line = java.util.regex.Pattern.compile("CADRE_BOOTSTRAP_API_KEY: \"([^\"]*)\"")
                .matcher(manifest);
        assertThat(line.find()).isTrue();
        assertThat(line.group(1)).isEmpty();

        String rotated = "rotated-" + UUID.randomUUID() + "-" + UUID.randomUUID();
        try {
            keyService.bootstrap(rotated);
            assertThat(api.get("/api/v1/session", Api.ADMIN_KEY).status()).isEqualTo(401);
            assertThat(api.get("/api/v1/session", rotated).status()).isEqualTo(200);
            var listed = api.get("/api/v1/keys", rotated);
            assertThat(listed.json()
                            .valueStream()
                            .filter(k -> k.get("name").asString().startsWith("bootstrap")
                                    && k.get("revokedAt").isNull())
                            .count())
                    .as(listed.body())
                    .isEqualTo(1);
            assertThat(listed.body())
                    .doesNotContain(rotated.substring(0, 8))
                    .doesNotContain(Api.ADMIN_KEY.substring(0, 8))
                    .doesNotContain("prefix");
        } finally {
            keyService.bootstrap(Api.ADMIN_KEY);
        }
        assertThat(api.get("/api/v1/session", rotated).status()).isEqualTo(401);
        assertThat(api.get("/api/v1/session", Api.ADMIN_KEY).status()).isEqualTo(200);
    }

    @Test
    void round3_finding9_twelveConcurrentCreatesOfOneName_makeOneKey_andLookAlikeOrReservedNamesAreRefused()
            throws Exception {
        String name = "race-" + UUID.randomUUID();
        List<CompletableFuture<Integer>> creates = new ArrayList<>();
        var start = new java.util.concurrent.CountDownLatch(1);
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(12)) {
            for (int i = 0; i < 12; i++) {
                creates.add(CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                start.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return api.post(
                                            "/api/v1/keys",
                                            Api.ADMIN_KEY,
                                            Api.json(Map.of("name", name, "role", "viewer")))
                                    .status();
                        },
                        pool));
            }
            start.countDown();
            List<Integer> statuses =
                    creates.stream().map(CompletableFuture::join).toList();
            assertThat(statuses).as(statuses.toString()).containsOnly(201, 400);
            assertThat(statuses.stream().filter(s -> s == 201).count()).isEqualTo(1);
        }
        assertThat(api.get("/api/v1/keys", Api.ADMIN_KEY)
                        .json()
                        .valueStream()
                        .filter(k -> k.get("name").asString().equals(name))
                        .count())
                .isEqualTo(1);

        for (String refused :
                List.of("system", "anonymous", "Bootstrap", "BOOTSTRAP", "sec-operat\u043er", "ops bot")) {
            var r = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", refused, "role", "operator")));
            assertThat(r.status()).as(refused + ": " + r.body()).isEqualTo(400);
            assertThat(r.json().get("field").asString()).isEqualTo("name");
        }
        // Upper case is folded, so a case variant of an existing name is the same name.
        String mixed = "Case-" + UUID.randomUUID();
        assertThat(api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", mixed, "role", "viewer")))
                        .json()
                        .at("/key/name")
                        .asString())
                .isEqualTo(mixed.toLowerCase(java.util.Locale.ROOT));
        assertThat(api.post(
                                "/api/v1/keys",
                                Api.ADMIN_KEY,
                                Api.json(Map.of("name", mixed.toLowerCase(java.util.Locale.ROOT), "role", "viewer")))
                        .status())
                .isEqualTo(400);
    }

    @Test
    void round3_finding10_thePlatformsIncidentNamespace_isReadOnlyOverRest_andTheAttemptIsAudited() {
        JsonNode created = newKey("operator");
        String operator = created.get("secret").asString();
        String name = created.at("/key/name").asString();
        String key = "inc-" + UUID.randomUUID();
        var put = api.send(
                "PUT",
                "/api/v1/memory/incidents/" + key,
                operator,
                "{\"status\":\"resolved\"}",
                Map.of("If-None-Match", "*"));
        assertThat(put.status()).as(put.body()).isEqualTo(403);
        assertThat(put.json().get("type").asString()).isEqualTo("urn:cadre:problem:read-only-namespace");
        assertThat(put.json().get("namespace").asString()).isEqualTo("incidents");
        assertThat(put.json().get("detail").asString()).contains("'incidents'");
        var delete = api.send("DELETE", "/api/v1/memory/incidents/" + key, operator, null, Map.of("If-Match", "\"1\""));
        assertThat(delete.status()).isEqualTo(403);
        assertThat(api.get("/api/v1/memory/incidents/" + key, operator).status())
                .isEqualTo(404);
        assertThat(has(audit(), name, "memory.write_refused", "incidents/" + key))
                .isTrue();
        // Any other namespace is still the operators'.
        assertThat(api.send(
                                "PUT",
                                "/api/v1/memory/notes-" + UUID.randomUUID() + "/k",
                                operator,
                                "{}",
                                Map.of("If-None-Match", "*"))
                        .status())
                .isEqualTo(201);
    }

    @Test
    void round3_finding11_refusalsLogoutsAndRevokedKeysAreAudited_andJunkFailuresHideNothingElse() {
        // Separation of duties refused: recorded.
        JsonNode submitterKey = newKey("operator");
        String submitter = submitterKey.get("secret").asString();
        String submitterName = submitterKey.at("/key/name").asString();
        String runId = api.post("/api/v1/runs", submitter, Api.json(Map.of("agent", "fixer", "input", "sod audit")))
                .json()
                .get("id")
                .asString();
        String approvalId = api.pendingApprovalOf(runId).get("id").asString();
        assertThat(api.post("/api/v1/approvals/" + approvalId + "/reject", submitter, "{}")
                        .status())
                .isEqualTo(403);
        assertThat(has(audit(), submitterName, "approval.refused", approvalId)).isTrue();
        api.post("/api/v1/approvals/" + approvalId + "/reject", Api.ADMIN_KEY, "{}");

        // A 403 by role.
        JsonNode viewerKey = newKey("viewer");
        String viewerName = viewerKey.at("/key/name").asString();
        assertThat(api.post(
                                "/api/v1/runs",
                                viewerKey.get("secret").asString(),
                                Api.json(Map.of("agent", "triage", "input", "x")))
                        .status())
                .isEqualTo(403);
        assertThat(has(audit(), viewerName, "access.denied", "POST /api/v1/runs"))
                .isTrue();

        // A CSRF refusal, then a logout.
        JsonNode personKey = newKey("operator");
        String personName = personKey.at("/key/name").asString();
        Api browser = Api.browser(port);
        assertThat(login(browser, personKey.get("secret").asString()).status()).isEqualTo(200);
        assertThat(browser.send("DELETE", "/api/v1/session", null, null, Map.of())
                        .status())
                .isEqualTo(403);
        assertThat(has(audit(), personName, "csrf.refused", "DELETE /api/v1/session"))
                .isTrue();
        assertThat(browser.send(
                                "DELETE",
                                "/api/v1/session",
                                null,
                                null,
                                Map.of("X-XSRF-TOKEN", String.valueOf(browser.cookie("XSRF-TOKEN"))))
                        .status())
                .isEqualTo(204);
        assertThat(has(audit(), personName, "session.logout", null)).isTrue();

        // Junk failures over the per-minute limit from one source, then a revoked key: still recorded,
        // naming the key's id.
        for (int i = 0; i < 70; i++) {
            api.get("/api/v1/runs", "cadre_junk-" + i);
        }
        JsonNode revokedKey = newKey("operator");
        String revokedId = revokedKey.at("/key/id").asString();
        assertThat(api.send("DELETE", "/api/v1/keys/" + revokedId, Api.ADMIN_KEY, null, Map.of())
                        .status())
                .isEqualTo(204);
        assertThat(api.get("/api/v1/runs", revokedKey.get("secret").asString()).status())
                .isEqualTo(401);
        assertThat(audit().valueStream()
                        .filter(e -> e.get("action").asString().equals("auth.failed"))
                        .anyMatch(e -> e.get("detail").asString().contains(revokedId)))
                .isTrue();
    }

    private static boolean has(JsonNode items, String actor, String action, String target) {
        return items.valueStream()
                .anyMatch(e -> e.get("actor").asString().equals(actor)
                        && e.get("action").asString().equals(action)
                        && (target == null || e.get("target").asString().equals(target)));
    }
}
