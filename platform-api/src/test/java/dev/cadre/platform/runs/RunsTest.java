package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

@PlatformTest
class RunsTest {

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private JsonNode submit(String agent, String input) {
        return api.submitRun(agent, input);
    }

    private JsonNode awaitEnd(String id) {
        return api.awaitRunEnd(id);
    }

    @Test
    void demoTeam_runsToCompletion_withEachWorkerOutcome() {
        JsonNode accepted = submit("ops-orchestrator", "check host web-1");
        String id = accepted.get("id").asString();
        assertThat(accepted.get("status").asString()).isEqualTo("submitted");
        assertThat(accepted.get("links").get("events").asString()).isEqualTo("/api/v1/runs/" + id + "/events");

        JsonNode run = awaitEnd(id);
        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(run.get("result").asString()).contains("Host check finished");
        // Inspectors in parallel on the real host_metrics, then the analyst, then the alerter; a plain
        // check never reaches the repair agent (only "triage" requests do).
        assertThat(run.get("subagents").valueStream().map(s -> s.get("worker").asString()))
                .containsExactly("cpu-inspector", "memory-inspector", "disk-inspector", "ops-analyst", "ops-alerter");
        assertThat(run.get("subagents").valueStream().map(s -> s.get("status").asString()))
                .containsOnly("ok");
        assertThat(run.get("usage").get("totalTokens").asLong()).isPositive();
        // One more turn than the workers: the orchestrator first asks host_target which host it is about.
        assertThat(run.get("iterations").asInt()).isEqualTo(6);
    }

    @Test
    void submit_badInput_isRejectedNamingTheField() {
        var unknown = api.post("/api/v1/runs", Api.ADMIN_KEY, "{\"agent\":\"nope\",\"input\":\"x\"}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json().get("field").asString()).isEqualTo("agent");
        assertThat(unknown.json().get("detail").asString()).contains("ops-orchestrator");

        var noInput = api.post("/api/v1/runs", Api.ADMIN_KEY, "{\"agent\":\"ops-orchestrator\"}");
        assertThat(noInput.status()).isEqualTo(400);
        assertThat(noInput.json().get("field").asString()).isEqualTo("input");

        var wrongType = api.post("/api/v1/runs", Api.ADMIN_KEY, "{\"agent\":\"ops-orchestrator\",\"input\":{\"a\":1}}");
        assertThat(wrongType.status()).isEqualTo(400);
        assertThat(wrongType.json().get("field").asString()).isEqualTo("input");

        assertThat(api.get("/api/v1/runs/run_missing", Api.ADMIN_KEY).status()).isEqualTo(404);
        assertThat(api.get("/api/v1/runs?status=sleeping", Api.ADMIN_KEY).status())
                .isEqualTo(400);
        assertThat(api.get("/api/v1/runs?from=yesterday", Api.ADMIN_KEY)
                        .json()
                        .get("field")
                        .asString())
                .isEqualTo("from");
    }

    @Test
    void idempotencyKey_returnsTheSameRun_andRefusesADifferentRequest() {
        String body = Api.json(Map.of("agent", "ops-orchestrator", "input", "idempotent check"));
        var first = api.send("POST", "/api/v1/runs", Api.ADMIN_KEY, body, Map.of("Idempotency-Key", "k-123"));
        var again = api.send("POST", "/api/v1/runs", Api.ADMIN_KEY, body, Map.of("Idempotency-Key", "k-123"));
        assertThat(first.status()).isEqualTo(202);
        assertThat(again.status()).isEqualTo(202);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(again.json().get("id").asString())
                .isEqualTo(first.json().get("id").asString());

        String other = Api.json(Map.of("agent", "ops-orchestrator", "input", "something else"));
        var reused = api.send("POST", "/api/v1/runs", Api.ADMIN_KEY, other, Map.of("Idempotency-Key", "k-123"));
        assertThat(reused.status()).isEqualTo(422);
        assertThat(reused.json().get("header").asString()).isEqualTo("Idempotency-Key");
        awaitEnd(first.json().get("id").asString());
    }

    @Test
    void eventStream_replaysFromLastEventId_andShowsSubagentsOnlyWithScopeAll() {
        String id = submit("ops-orchestrator", "stream check").get("id").asString();
        awaitEnd(id);

        var main = api.get("/api/v1/runs/" + id + "/events", Api.ADMIN_KEY);
        assertThat(main.status()).isEqualTo(200);
        assertThat(main.header("Content-Type")).startsWith("text/event-stream");
        var mainEvents = Sse.parse(main.body());
        assertThat(mainEvents).extracting(Sse.Event::name).contains("run_started", "subagent_started", "done");
        assertThat(mainEvents)
                .allSatisfy(e ->
                        assertThat(e.data().get("parentSessionId").isNull()).isTrue());

        var all = Sse.parse(api.get("/api/v1/runs/" + id + "/events?scope=all", Api.ADMIN_KEY)
                .body());
        assertThat(all.size()).isGreaterThan(mainEvents.size());
        assertThat(all)
                .anySatisfy(
                        e -> assertThat(e.data().get("sessionId").asString()).contains("/cpu-inspector#"));
        // ids are the run-wide sequence: strictly increasing
        assertThat(all).extracting(Sse.Event::id).isSorted().doesNotHaveDuplicates();

        long resumeFrom = all.get(all.size() / 2).id();
        var rest = Sse.parse(api.send(
                        "GET",
                        "/api/v1/runs/" + id + "/events?scope=all",
                        Api.ADMIN_KEY,
                        null,
                        Map.of("Last-Event-ID", Long.toString(resumeFrom)))
                .body());
        assertThat(rest).extracting(Sse.Event::id).allMatch(seq -> seq > resumeFrom);
        assertThat(rest.size() + all.size() / 2 + 1).isEqualTo(all.size());
    }

    @Test
    void list_filtersByStatusAndAgent_andPages() {
        String id = submit("ops-orchestrator", "list check").get("id").asString();
        awaitEnd(id);
        var page = api.get("/api/v1/runs?status=completed&agent=ops-orchestrator&limit=1", Api.ADMIN_KEY)
                .json();
        assertThat(page.get("items").size()).isEqualTo(1);
        assertThat(page.get("nextCursor").isNull() || page.get("hasMore").asBoolean())
                .isTrue();
        assertThat(page.get("items").get(0).get("status").asString()).isEqualTo("completed");
        var search = api.get("/api/v1/runs?q=list%20check", Api.ADMIN_KEY).json();
        assertThat(search.get("items").valueStream().map(r -> r.get("id").asString()))
                .contains(id);
    }

    @Test
    void cancel_ofAFinishedRun_isAConflict() {
        String id = submit("ops-orchestrator", "cancel check").get("id").asString();
        awaitEnd(id);
        var r = api.post("/api/v1/runs/" + id + "/cancel", Api.ADMIN_KEY, null);
        assertThat(r.status()).isEqualTo(409);
        // The problem's status member stays the HTTP status; the run's state is an extension.
        assertThat(r.json().get("status").asInt()).isEqualTo(409);
        assertThat(r.json().get("runStatus").asString()).isEqualTo("completed");
        assertThat(r.body().split("\"status\"", -1)).hasSize(2);
    }

    @Test
    void submit_asMultipart_isA415Problem_notA500() {
        var r = api.send(
                "POST",
                "/api/v1/runs",
                Api.ADMIN_KEY,
                "{\"agent\":\"probe-a\",\"input\":\"x\"}",
                Map.of("Content-Type", "multipart/form-data"));
        assertThat(r.status()).as(r.body()).isEqualTo(415);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    }

    @Test
    void list_fromAnInstantNoDatabaseCanStore_isA400NamingIt() {
        var r = api.get("/api/v1/runs?from=-999999999-01-01T00:00:00Z", Api.ADMIN_KEY);
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("field").asString()).isEqualTo("from");
        assertThat(r.json().get("detail").asString()).contains("0001 to 9999");
    }

    @Test
    void submit_withAnAcceptItCannotAnswer_isRefusedBeforeTheRunExists() {
        String input = "accept check " + java.util.UUID.randomUUID();
        var r = api.send(
                "POST",
                "/api/v1/runs",
                Api.ADMIN_KEY,
                Api.json(Map.of("agent", "probe-a", "input", input)),
                Map.of("Accept", "text/html"));
        assertThat(r.status()).as(r.body()).isEqualTo(406);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        // Before the fix the run was created and only the answer failed.
        assertThat(api.get("/api/v1/runs?q=" + input.replace(" ", "+"), Api.ADMIN_KEY)
                        .json()
                        .get("items")
                        .size())
                .isZero();
    }
}
