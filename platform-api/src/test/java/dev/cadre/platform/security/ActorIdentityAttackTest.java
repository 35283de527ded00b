package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Issue 23, finding 9, tried as an attacker would: an actor is its API key's id, never its name.
 * A name is only a label — a reissued or renamed key could carry another key's name — so two keys
 * that show the same name are simulated here by giving one key another's name in the key table
 * (the unique index holds the normalised name, which stays: the table allows no such pair through
 * the API). Each key is renamed before its first request, so no cached principal predates it. A
 * stored name that no longer matches its key (a key renamed since it acted) is simulated by
 * changing the name a run or approval stored. Same properties as {@link SecurityAttackTest}, so
 * the two share a context.
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
            "server.forward-headers-strategy=native",
            "cadre.integrations.alertmanager.max-alerts-per-delivery=4",
            "cadre.integrations.alertmanager.new-incidents-per-minute=6",
            "cadre.integrations.alertmanager.agent=triage"
        })
class ActorIdentityAttackTest {

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    /** A key as created: its id (who it is), its name (what it is called) and its secret. */
    private record Key(String id, String name, String secret) {}

    private Key newKey(String role) {
        var r = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", "actor-" + role + "-" + UUID.randomUUID(), "role", role)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Key(
                r.json().at("/key/id").asString(),
                r.json().at("/key/name").asString(),
                r.json().get("secret").asString());
    }

    /** A new key that shows {@code other}'s name: another key (and person) under the same label. */
    private Key namesake(Key other, String role) {
        Key key = newKey(role);
        assertThat(jdbc.sql("UPDATE cadre_api_key SET name = ? WHERE id = ?")
                        .params(other.name(), key.id())
                        .update())
                .isEqualTo(1);
        var whoami = api.get("/api/v1/session", key.secret());
        assertThat(whoami.json().get("name").asString()).isEqualTo(other.name());
        return new Key(key.id(), other.name(), key.secret());
    }

    private static Api.Response login(Api browser, String secret) {
        browser.get("/api/v1/session", null); // issues the XSRF-TOKEN cookie, as the console does
        return browser.send(
                "POST",
                "/api/v1/session",
                null,
                Api.json(Map.of("apiKey", secret)),
                Map.of("X-XSRF-TOKEN", String.valueOf(browser.cookie("XSRF-TOKEN"))));
    }

    /** A POST from a logged-in console session (cookie and CSRF header, no key). */
    private static Api.Response consolePost(Api browser, String path, String body) {
        return browser.send(
                "POST", path, null, body, Map.of("X-XSRF-TOKEN", String.valueOf(browser.cookie("XSRF-TOKEN"))));
    }

    private static String rpc(String method, String params) {
        return "{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"method\":\"" + method + "\",\"params\":" + params + "}";
    }

    private static String send(String messageId, String agent, String text) {
        return rpc(
                "SendMessage",
                "{\"message\":{\"messageId\":\"" + messageId + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":"
                        + Api.json(text) + "}],\"metadata\":{\"agent\":\"" + agent + "\"}}}");
    }

    private JsonNode a2a(Key key, String body) {
        var r = api.post("/a2a", key.secret(), body);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    private static void assertTaskNotFound(JsonNode answer, String id) {
        assertThat(answer.has("result")).as(answer.toString()).isFalse();
        assertThat(answer.at("/error/code").asInt()).isEqualTo(-32001);
        assertThat(answer.at("/error/message").asString()).isEqualTo("Task not found: '" + id + "' does not exist");
    }

    private String stored(String sql, String id) {
        return jdbc.sql(sql).param(id).query(String.class).single();
    }

    @Test
    void anA2aPeerWithAnotherPeersName_cannotReadCancelListOrReuseItsTask() {
        Key peerA = newKey("agent");
        Key peerB = namesake(peerA, "agent");
        String messageId = UUID.randomUUID().toString();
        String task = a2a(peerA, send(messageId, "fixer", "restart api on web-1"))
                .at("/result/task/id")
                .asString();
        api.pendingApprovalOf(task);

        assertTaskNotFound(a2a(peerB, rpc("GetTask", "{\"id\":\"" + task + "\"}")), task);
        assertTaskNotFound(a2a(peerB, rpc("CancelTask", "{\"id\":\"" + task + "\"}")), task);
        assertThat(a2a(peerB, rpc("ListTasks", "{\"pageSize\":100}")).at("/result/tasks"))
                .extracting(t -> t.get("id").asString())
                .doesNotContain(task);
        // The same message id from the namesake is its own message: a new task, not A's back.
        String own = a2a(peerB, send(messageId, "fixer", "restart api on web-1"))
                .at("/result/task/id")
                .asString();
        assertThat(own).isNotEqualTo(task);
        assertThat(stored("SELECT submitted_by_key FROM cadre_run WHERE id = ?", own))
                .isEqualTo(peerB.id());
        assertThat(stored("SELECT submitted_by_key FROM cadre_run WHERE id = ?", task))
                .isEqualTo(peerA.id());

        // A's task is untouched by the namesake's cancel, and A still owns it.
        assertThat(a2a(peerA, rpc("GetTask", "{\"id\":\"" + task + "\"}"))
                        .at("/result/status/state")
                        .asString())
                .isEqualTo("TASK_STATE_INPUT_REQUIRED");
        assertThat(a2a(peerA, rpc("CancelTask", "{\"id\":\"" + task + "\"}"))
                        .at("/result/status/state")
                        .asString())
                .isEqualTo("TASK_STATE_CANCELED");
        assertThat(a2a(peerB, rpc("CancelTask", "{\"id\":\"" + own + "\"}"))
                        .at("/result/status/state")
                        .asString())
                .isEqualTo("TASK_STATE_CANCELED");
    }

    @Test
    void aKeyWithAnotherKeysName_cannotReuseItsIdempotencyKey_toGetItsRun() {
        Key alice = newKey("operator");
        Key namesake = namesake(alice, "operator");
        String body = Api.json(Map.of("agent", "echoer", "input", "idempotent by key id"));
        Map<String, String> idempotent = Map.of("Idempotency-Key", "actor-" + UUID.randomUUID());

        var first = api.send("POST", "/api/v1/runs", alice.secret(), body, idempotent);
        assertThat(first.status()).as(first.body()).isEqualTo(202);
        String aliceRun = first.json().get("id").asString();

        var other = api.send("POST", "/api/v1/runs", namesake.secret(), body, idempotent);
        assertThat(other.status()).as(other.body()).isEqualTo(202);
        assertThat(other.header("Idempotent-Replayed")).isNull();
        assertThat(other.json().get("id").asString()).isNotEqualTo(aliceRun);
        assertThat(other.json().get("submittedBy").asString()).isEqualTo(alice.name());

        // Each key still gets its own run back for its own key.
        var again = api.send("POST", "/api/v1/runs", alice.secret(), body, idempotent);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(again.json().get("id").asString()).isEqualTo(aliceRun);
        var otherAgain = api.send("POST", "/api/v1/runs", namesake.secret(), body, idempotent);
        assertThat(otherAgain.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(otherAgain.json().get("id").asString())
                .isEqualTo(other.json().get("id").asString());
    }

    @Test
    void theSubmittingKey_cannotDecideItsRunsApproval_evenThroughAConsoleSession_orAfterItsNameChanged() {
        Key submitter = newKey("operator");
        var submitted = api.post(
                "/api/v1/runs", submitter.secret(), Api.json(Map.of("agent", "fixer", "input", "restart api")));
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(202);
        String runId = submitted.json().get("id").asString();
        String approvalId = api.pendingApprovalOf(runId).get("id").asString();
        // The key has been renamed since it submitted: the run's stored name is no longer its name.
        jdbc.sql("UPDATE cadre_run SET submitted_by = ? WHERE id = ?")
                .params(submitter.name() + "-before-rename", runId)
                .update();

        Api console = Api.browser(port);
        assertThat(login(console, submitter.secret()).status()).isEqualTo(200);
        var bySession = consolePost(console, "/api/v1/approvals/" + approvalId + "/approve", "{}");
        assertThat(bySession.status()).as(bySession.body()).isEqualTo(403);
        assertThat(bySession.json().get("type").asString()).isEqualTo("urn:cadre:problem:separation-of-duties");
        var byKey = api.post("/api/v1/approvals/" + approvalId + "/reject", submitter.secret(), "{}");
        assertThat(byKey.status()).as(byKey.body()).isEqualTo(403);

        // A different key that carries the submitter's (current) name is another operator: it may decide.
        Key namesake = namesake(submitter, "operator");
        var decided = api.approve(approvalId, namesake.secret());
        assertThat(decided.status()).as(decided.body()).isEqualTo(200);
        assertThat(decided.json().get("decidedBy").asString()).isEqualTo(submitter.name());
        assertThat(stored("SELECT decided_by_key FROM cadre_approval WHERE id = ?", approvalId))
                .isEqualTo(namesake.id());
        assertThat(api.awaitRunEnd(runId).get("status").asString()).isEqualTo("completed");
    }

    @Test
    void anEditorsProposal_isTheirKeys_itsConsoleSessionCannotApproveIt_aNamesakeKeyCan() {
        // An A2A run: no person submitted it, so only the editor's key is excluded.
        Key peer = newKey("agent");
        String runId = a2a(peer, send(UUID.randomUUID().toString(), "runbook-asker", "how full is /tmp?"))
                .at("/result/task/id")
                .asString();
        String id = api.pendingApprovalOf(runId).get("id").asString();
        Key editor = newKey("operator");
        Api console = Api.browser(port);
        assertThat(login(console, editor.secret()).status()).isEqualTo(200);

        String shown = api.get("/api/v1/approvals/" + id, Api.ADMIN_KEY)
                .json()
                .get("argumentsHash")
                .asString();
        var proposed = consolePost(
                console,
                "/api/v1/approvals/" + id + "/approve",
                "{\"argumentsHash\":\"" + shown + "\",\"editedArguments\":{\"runbook\":\"disk-usage-report\","
                        + "\"arguments\":{\"path\":\"/etc\"}}}");
        assertThat(proposed.status()).as(proposed.body()).isEqualTo(200);
        assertThat(proposed.json().get("status").asString()).isEqualTo("pending");
        assertThat(stored("SELECT proposed_by_key FROM cadre_approval WHERE id = ?", id))
                .isEqualTo(editor.id());
        // Renamed since it proposed: the stored name no longer matches, the key id still does.
        jdbc.sql("UPDATE cadre_approval SET proposed_by = ? WHERE id = ?")
                .params(editor.name() + "-before-rename", id)
                .update();

        var ownBySession = consolePost(console, "/api/v1/approvals/" + id + "/approve", "{}");
        assertThat(ownBySession.status()).as(ownBySession.body()).isEqualTo(403);
        assertThat(ownBySession.json().get("type").asString()).isEqualTo("urn:cadre:problem:separation-of-duties");
        var ownByKey = api.approve(id, editor.secret());
        assertThat(ownByKey.status()).as(ownByKey.body()).isEqualTo(403);

        // Put the name back: a different key with the editor's very name is someone else, and approves.
        jdbc.sql("UPDATE cadre_approval SET proposed_by = ? WHERE id = ?")
                .params(editor.name(), id)
                .update();
        Key namesake = namesake(editor, "operator");
        var approved = api.approve(id, namesake.secret());
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
        assertThat(approved.json().get("status").asString()).isEqualTo("approved");
        assertThat(approved.json().get("proposedBy").asString()).isEqualTo(editor.name());
        assertThat(approved.json().get("decidedBy").asString()).isEqualTo(editor.name());
        assertThat(stored("SELECT decided_by_key FROM cadre_approval WHERE id = ?", id))
                .isEqualTo(namesake.id());
        api.awaitRunEnd(runId);
    }

    @Test
    void theStreamCapCountsPerKeyId_aNamesakeKeyIsNotHeldToAnotherKeysStreams() throws Exception {
        String runId = api.submitRun("fixer", "streams per key id").get("id").asString();
        api.pendingApprovalOf(runId); // from now on the run's stream is quiet
        Key viewer = newKey("viewer");
        Key namesake = namesake(viewer, "viewer");
        HttpClient client = HttpClient.newHttpClient();
        List<HttpResponse<InputStream>> open = new ArrayList<>();
        try {
            open.add(stream(client, runId, viewer));
            open.add(stream(client, runId, viewer));
            HttpResponse<InputStream> third = stream(client, runId, viewer);
            open.add(third);
            // Status first: an uncapped stream would never end, and reading it would hang.
            assertThat(third.statusCode()).isEqualTo(429);
            HttpResponse<InputStream> others = stream(client, runId, namesake);
            open.add(others);
            assertThat(others.statusCode()).isEqualTo(200);
        } finally {
            for (var r : open) {
                r.body().close();
            }
        }
        assertThat(api.post("/api/v1/runs/" + runId + "/cancel", Api.ADMIN_KEY, "{}")
                        .status())
                .isEqualTo(202);
    }

    private HttpResponse<InputStream> stream(HttpClient client, String runId, Key key) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/runs/" + runId + "/events"))
                        .header("Authorization", "Bearer " + key.secret())
                        .header("Accept", "text/event-stream")
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    }
}
