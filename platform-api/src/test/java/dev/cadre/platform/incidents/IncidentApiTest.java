package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalKind;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.memory.Writer;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * The incident REST API: the list (filters, cursor paging, no pointer keys), one incident with its
 * timeline, the human actions (operators only, audited, repeats change nothing, 400 naming the
 * field), and the live stream of timeline entries.
 */
@PlatformTest
class IncidentApiTest {

    private static final Writer ALERTMANAGER = Writer.apiClient("alertmanager");

    @LocalServerPort
    int port;

    @Autowired
    IncidentService incidents;

    @Autowired
    ApprovalService approvals;

    private Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private String open(String title, String severity, IncidentTarget target) {
        return incidents
                .open(
                        new IncidentService.OpenRequest(
                                "api-" + UUID.randomUUID(),
                                title,
                                severity,
                                "alertmanager",
                                Map.of("instance", target.instance() == null ? target.name() : target.instance()),
                                "summary of " + title,
                                null,
                                target),
                        ALERTMANAGER,
                        null)
                .incident()
                .id();
    }

    private String key(String role) {
        var r = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                "{\"name\":\"incidents-" + role + "-"
                        + UUID.randomUUID().toString().substring(0, 8) + "\",\"role\":\"" + role + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("secret").asString();
    }

    @Test
    void theListFiltersAndPages_andShowsNoPointerKeys() {
        String tag = UUID.randomUUID().toString().substring(0, 8);
        List<String> opened = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            opened.add(open(
                    "disk full " + tag + " " + i,
                    i % 2 == 0 ? "critical" : "warning",
                    new IncidentTarget(
                            IncidentTarget.Kind.HOST, "db-" + tag + "-" + i, null, "db-" + tag + "-" + i + ":9100")));
        }
        // All five by target, two per page, newest first, every one exactly once.
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            var r = api.get(
                    "/api/v1/incidents?target=db-" + tag + "&limit=2" + (cursor == null ? "" : "&cursor=" + cursor),
                    Api.ADMIN_KEY);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            for (JsonNode item : r.json().get("items")) {
                seen.add(item.get("id").asString());
                assertThat(item.get("id").asString()).startsWith("inc-");
            }
            cursor = r.json().get("nextCursor").isNull()
                    ? null
                    : r.json().get("nextCursor").asString();
            pages++;
        } while (cursor != null);
        assertThat(pages).isEqualTo(3);
        assertThat(seen).containsExactlyInAnyOrderElementsOf(opened);

        var critical = api.get("/api/v1/incidents?target=db-" + tag + "&severity=critical", Api.ADMIN_KEY)
                .json();
        assertThat(critical.get("items")).hasSize(3);
        assertThat(critical.get("items").get(0).path("target").path("name").asString())
                .startsWith("db-" + tag);

        var everything = api.get("/api/v1/incidents?limit=200", Api.ADMIN_KEY).json();
        for (JsonNode item : everything.get("items")) {
            assertThat(item.get("id").asString()).doesNotStartWith("fp:").doesNotStartWith("run:");
        }
        assertThat(api.get("/api/v1/incidents?status=closed", Api.ADMIN_KEY)
                        .json()
                        .get("field")
                        .asString())
                .isEqualTo("status");
        assertThat(api.get("/api/v1/incidents?since=yesterday", Api.ADMIN_KEY)
                        .json()
                        .get("field")
                        .asString())
                .isEqualTo("since");
        assertThat(api.get("/api/v1/incidents?cursor=nonsense", Api.ADMIN_KEY)
                        .json()
                        .get("field")
                        .asString())
                .isEqualTo("cursor");
        assertThat(api.get("/api/v1/incidents?since=2999-01-01T00:00:00Z", Api.ADMIN_KEY)
                        .json()
                        .get("items"))
                .isEmpty();
    }

    @Test
    void oneIncident_withItsTimeline_andUnknownOnesAre404() {
        String id = open(
                "HostHighCpu on web-9",
                "critical",
                new IncidentTarget(IncidentTarget.Kind.HOST, "web-9", null, "web-9:9100"));
        var r = api.get("/api/v1/incidents/" + id, Api.ADMIN_KEY);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode body = r.json();
        assertThat(body.path("summary").path("id").asString()).isEqualTo(id);
        assertThat(body.path("timeline").get(0).path("kind").asString()).isEqualTo("opened");
        assertThat(body.path("timeline").get(0).path("actor").asString()).isEqualTo("alertmanager");
        assertThat(body.path("incident").path("title").asString()).isEqualTo("HostHighCpu on web-9");

        assertThat(api.get("/api/v1/incidents/inc-doesnotexist", Api.ADMIN_KEY).status())
                .isEqualTo(404);
        assertThat(api.get("/api/v1/incidents/fp:something", Api.ADMIN_KEY).status())
                .isEqualTo(404);
        assertThat(api.post("/api/v1/incidents/inc-doesnotexist/acknowledge", Api.ADMIN_KEY, "{}")
                        .status())
                .isEqualTo(404);
    }

    @Test
    void actions_areAudited_idempotent_andNameTheFieldOnBadInput() {
        String id =
                open("api latency", "warning", new IncidentTarget(IncidentTarget.Kind.SERVICE, "api", "shop", null));
        String base = "/api/v1/incidents/" + id;

        var ack = api.post(base + "/acknowledge", Api.ADMIN_KEY, "{}");
        assertThat(ack.status()).as(ack.body()).isEqualTo(200);
        assertThat(ack.json().get("owner").asString()).isEqualTo("bootstrap");
        assertThat(api.post(base + "/acknowledge", Api.ADMIN_KEY, "{}").status())
                .isEqualTo(200);

        var badAssign = api.post(base + "/assign", Api.ADMIN_KEY, "{\"assignee\":\"\"}");
        assertThat(badAssign.status()).isEqualTo(400);
        assertThat(badAssign.body()).contains("assignee");
        assertThat(api.post(base + "/assign", Api.ADMIN_KEY, "{\"assignee\":\"bob\"}")
                        .json()
                        .get("owner")
                        .asString())
                .isEqualTo("bob");

        var comment = api.send(
                "POST",
                base + "/comments",
                Api.ADMIN_KEY,
                "{\"text\":\"p99 is 4 s\"}",
                Map.of("Idempotency-Key", "c-1"));
        assertThat(comment.status()).as(comment.body()).isEqualTo(200);
        api.send(
                "POST",
                base + "/comments",
                Api.ADMIN_KEY,
                "{\"text\":\"p99 is 4 s\"}",
                Map.of("Idempotency-Key", "c-1"));

        var noFix = api.post(base + "/resolve", Api.ADMIN_KEY, "{\"rootCause\":\"a slow query\"}");
        assertThat(noFix.status()).isEqualTo(400);
        assertThat(noFix.json().path("detail").asString()).contains("fix");
        String resolution = "{\"rootCause\":\"a slow query\",\"fix\":\"added an index\"}";
        assertThat(api.post(base + "/resolve", Api.ADMIN_KEY, resolution)
                        .json()
                        .get("status")
                        .asString())
                .isEqualTo("resolved");
        assertThat(api.post(base + "/resolve", Api.ADMIN_KEY, resolution).status())
                .isEqualTo(200);
        assertThat(api.post(base + "/resolve", Api.ADMIN_KEY, "{\"rootCause\":\"x\",\"fix\":\"y\"}")
                        .status())
                .isEqualTo(409);
        assertThat(api.post(base + "/reopen", Api.ADMIN_KEY, "{\"reason\":\"back again\"}")
                        .json()
                        .get("status")
                        .asString())
                .isEqualTo("open");

        JsonNode timeline = api.get(base + "/timeline", Api.ADMIN_KEY).json().get("items");
        List<String> kinds = new ArrayList<>();
        timeline.forEach(e -> kinds.add(e.get("kind").asString()));
        assertThat(kinds).containsExactly("opened", "acknowledged", "assigned", "commented", "resolved", "reopened");

        JsonNode audit =
                api.get("/api/v1/audit?limit=200", Api.ADMIN_KEY).json().get("items");
        List<String> actions = new ArrayList<>();
        audit.forEach(a -> {
            if (id.equals(a.path("target").asString())) {
                actions.add(a.path("action").asString());
            }
        });
        assertThat(actions)
                .containsExactlyInAnyOrder(
                        "incident.acknowledge",
                        "incident.assign",
                        "incident.comment",
                        "incident.resolve",
                        "incident.reopen");
    }

    @Test
    void aViewer_readsIncidents_butCannotResolveOrAcknowledge() {
        String id = open("viewer check", "warning", new IncidentTarget(IncidentTarget.Kind.HOST, "web-v", null, null));
        String viewer = key("viewer");
        assertThat(api.get("/api/v1/incidents/" + id, viewer).status()).isEqualTo(200);
        assertThat(api.post("/api/v1/incidents/" + id + "/resolve", viewer, "{\"rootCause\":\"x\",\"fix\":\"y\"}")
                        .status())
                .isEqualTo(403);
        assertThat(api.post("/api/v1/incidents/" + id + "/acknowledge", viewer, "{}")
                        .status())
                .isEqualTo(403);
        assertThat(incidents.get(id).orElseThrow().active()).isTrue();
    }

    @Test
    void theLiveStream_sendsEachNewTimelineEntry() throws Exception {
        String id =
                open("stream check", "critical", new IncidentTarget(IncidentTarget.Kind.POD, "web-0", "shop", null));
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/api/v1/incidents/events?incident=" + id))
                .header("Authorization", "Bearer " + Api.ADMIN_KEY)
                .header("Accept", "text/event-stream")
                .GET()
                .build();
        HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            assertThat(readUntil(lines, "event:ready")).isNotNull();
            api.post("/api/v1/incidents/" + id + "/comments", Api.ADMIN_KEY, "{\"text\":\"on it from the phone\"}");
            CompletableFuture<String> data = CompletableFuture.supplyAsync(() -> {
                readUntil(lines, "event:timeline");
                return readUntil(lines, "data:");
            });
            String event = data.get(30, TimeUnit.SECONDS);
            assertThat(event)
                    .contains("\"kind\":\"commented\"")
                    .contains("on it from the phone")
                    .contains(id);
        }
    }

    @Test
    void liveStreams_countInTheStreamCaps() throws Exception {
        String viewer = key("viewer");
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/api/v1/incidents/events"))
                .header("Authorization", "Bearer " + viewer)
                .GET()
                .build();
        List<HttpResponse<InputStream>> open = new ArrayList<>();
        try {
            // cadre.sse.max-streams-per-key defaults to 20.
            for (int i = 0; i < 20; i++) {
                HttpResponse<InputStream> r = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
                assertThat(r.statusCode()).as("stream " + (i + 1)).isEqualTo(200);
                open.add(r);
            }
            HttpResponse<String> refused = client.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            assertThat(refused.body()).contains("cadre.sse.max-streams-per-key");
        } finally {
            for (HttpResponse<InputStream> r : open) {
                r.body().close();
            }
        }
    }

    private static String readUntil(BufferedReader lines, String prefix) {
        try {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.replace(": ", ":").startsWith(prefix)) {
                    return line;
                }
            }
            return null;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void approvalsOfALinkedRunAreOnTheTimeline_requestedThenDecided() throws Exception {
        String id = open(
                "checkout crashloops",
                "critical",
                new IncidentTarget(IncidentTarget.Kind.DEPLOYMENT, "checkout", "shop", null));
        String runId = "run-" + UUID.randomUUID();
        incidents.linkRun(runId, id, ALERTMANAGER);
        var asked = approvals
                .request(new ApprovalRequest(
                        ApprovalKind.TOOL_CALL,
                        runId,
                        "session-1",
                        "ops-repairer",
                        "call_1_1",
                        "k8s_rollout_undo",
                        tools.jackson.databind.json.JsonMapper.builder()
                                .build()
                                .readTree("{\"namespace\":\"shop\",\"name\":\"checkout\"}"),
                        "Rolls a deployment back to an earlier revision (tool description for the model).",
                        "the new image crashloops",
                        0.9,
                        List.of("roll back", "verify")))
                .toCompletableFuture();
        String approvalId = approvals
                .list(dev.cadre.platform.tenancy.TeamScope.allTeams("test"), "pending", runId, null, 10)
                .getFirst()
                .id();
        approvals.decide(
                dev.cadre.platform.tenancy.TeamScope.allTeams("test"),
                approvalId,
                new ApprovalService.Decision.Approve(null, "the previous image was fine"),
                new ApprovalService.Seen(
                        approvals
                                .get(dev.cadre.platform.tenancy.TeamScope.allTeams("test"), approvalId)
                                .argumentsHash(),
                        null),
                new dev.cadre.platform.security.Actor(null, "alice"));
        assertThat(asked.get(30, TimeUnit.SECONDS)).isInstanceOf(ApprovalDecision.Approved.class);

        JsonNode items = api.get("/api/v1/incidents/" + id + "/timeline", Api.ADMIN_KEY)
                .json()
                .get("items");
        List<String> kinds = new ArrayList<>();
        items.forEach(e -> kinds.add(e.get("kind").asString()));
        assertThat(kinds).containsExactly("opened", "run_started", "approval_requested", "approval_decided");
        JsonNode requested = items.get(2);
        assertThat(requested.get("text").asString())
                .isEqualTo("approval requested: k8s_rollout_undo (namespace shop, name checkout)");
        assertThat(requested.get("actor").asString()).isEqualTo("ops-repairer");
        assertThat(requested.get("ref").asString()).isEqualTo(approvalId);
        assertThat(requested.get("runId").asString()).isEqualTo(runId);
        JsonNode decision = items.get(3);
        assertThat(decision.get("text").asString())
                .isEqualTo("approved: k8s_rollout_undo (namespace shop, name checkout) — the previous image was fine");
        assertThat(decision.get("actor").asString()).isEqualTo("alice");
        assertThat(decision.get("ref").asString()).isEqualTo(approvalId);
        assertThat(decision.path("data").path("status").asString()).isEqualTo("approved");
    }
}
