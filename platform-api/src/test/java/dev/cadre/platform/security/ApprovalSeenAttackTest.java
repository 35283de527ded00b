package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * An approval covers exactly what its approver was shown, tried as two operators racing each other:
 * an edit made after the approver read the request makes the approval a 409 and nothing runs; an
 * approval without the hashes, or with a field the request does not have, is a 400 naming it. The
 * attack tests' context (separation of duties on).
 */
@AttackLimits
class ApprovalSeenAttackTest {

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private String operator() {
        var r = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", "racer-" + UUID.randomUUID(), "role", "operator")));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("secret").asString();
    }

    /** A run of the runbook-asker over A2A (no person submitted it) waiting on its runbook approval. */
    private String[] waitingRun() {
        String peer = api.post(
                        "/api/v1/keys",
                        Api.ADMIN_KEY,
                        Api.json(Map.of("name", "peer-" + UUID.randomUUID(), "role", "agent")))
                .json()
                .get("secret")
                .asString();
        var sent = api.post(
                "/a2a",
                peer,
                "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"SendMessage\",\"params\":{\"message\":{"
                        + "\"messageId\":\"" + UUID.randomUUID() + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":"
                        + "\"how full is /tmp?\"}],\"metadata\":{\"agent\":\"runbook-asker\"}}}}");
        assertThat(sent.status()).as(sent.body()).isEqualTo(200);
        String runId = sent.json().at("/result/task/id").asString();
        return new String[] {runId, api.pendingApprovalOf(runId).get("id").asString()};
    }

    private static String edit(int top) {
        return "{\"editedArguments\":{\"runbook\":\"disk-usage-report\",\"arguments\":{\"path\":\"/tmp\",\"top\":" + top
                + "}}}";
    }

    @Test
    void anEditAfterTheApproverReadTheRequest_makesTheirApprovalA409_andNothingRuns() {
        String[] waiting = waitingRun();
        String runId = waiting[0];
        String id = waiting[1];
        String a = operator();
        String b = operator();

        // A proposes P1 (top 10); B reads it.
        var p1 = api.approve(id, a, edit(10));
        assertThat(p1.status()).as(p1.body()).isEqualTo(200);
        assertThat(p1.json().get("status").asString()).isEqualTo("pending");
        JsonNode readByB = api.get("/api/v1/approvals/" + id, b).json();
        assertThat(readByB.at("/editedArguments/arguments/top").asInt()).isEqualTo(10);
        String h1 = readByB.get("editedArgumentsHash").asString();
        assertThat(h1).hasSize(64);

        // A re-edits to P2 (top 1): a new proposal with a new hash.
        var p2 = api.approve(id, a, edit(1));
        assertThat(p2.status()).as(p2.body()).isEqualTo(200);
        String h2 = p2.json().get("editedArgumentsHash").asString();
        assertThat(h2).isNotEqualTo(h1);

        // B approves what B saw (P1): refused, nothing decided, nothing run.
        var stale = api.post(
                "/api/v1/approvals/" + id + "/approve",
                b,
                "{\"argumentsHash\":\"" + readByB.get("argumentsHash").asString() + "\",\"editedArgumentsHash\":\"" + h1
                        + "\"}");
        assertThat(stale.status()).as(stale.body()).isEqualTo(409);
        assertThat(stale.json().get("type").asString()).isEqualTo("urn:cadre:problem:approval-changed");
        assertThat(stale.json().get("detail").asString()).contains("changed the proposed edits since you read them");
        assertThat(stale.json().get("editedArgumentsHash").asString()).isEqualTo(h2);
        // What the console used to send, and an approval that never saw the proposal.
        var blind = api.post("/api/v1/approvals/" + id + "/approve", b, "{}");
        assertThat(blind.status()).as(blind.body()).isEqualTo(400);
        assertThat(blind.json().get("field").asString()).isEqualTo("argumentsHash");
        var unseen = api.post(
                "/api/v1/approvals/" + id + "/approve",
                b,
                "{\"argumentsHash\":\"" + readByB.get("argumentsHash").asString() + "\"}");
        assertThat(unseen.status()).as(unseen.body()).isEqualTo(409);
        assertThat(unseen.json().get("detail").asString()).contains("proposed edits you were not shown");

        JsonNode still = api.get("/api/v1/approvals/" + id, b).json();
        assertThat(still.get("status").asString()).isEqualTo("pending");
        assertThat(still.get("decidedBy").isNull()).isTrue();
        assertThat(api.get("/api/v1/runs/" + runId, b).json().get("status").asString())
                .as("nothing ran")
                .isEqualTo("input-required");

        // B reads again and approves what it shows now: P2 runs.
        var approved = api.approve(id, b);
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
        assertThat(approved.json().get("status").asString()).isEqualTo("approved");
        assertThat(approved.json().get("executedHash").asString()).isEqualTo(h2);
        assertThat(api.awaitRunEnd(runId).get("status").asString()).isEqualTo("completed");
    }

    @Test
    void unknownFieldsInADecision_are400NamingTheField_andDecideNothing() {
        String[] waiting = waitingRun();
        String id = waiting[1];
        String b = operator();
        String hash = api.get("/api/v1/approvals/" + id, b)
                .json()
                .get("argumentsHash")
                .asString();

        // The old name of the edits: once silently ignored while the original arguments ran.
        var old = api.post(
                "/api/v1/approvals/" + id + "/approve",
                b,
                "{\"argumentsHash\":\"" + hash + "\",\"arguments\":{\"runbook\":\"disk-usage-report\"}}");
        assertThat(old.status()).as(old.body()).isEqualTo(400);
        assertThat(old.json().get("field").asString()).isEqualTo("arguments");
        assertThat(old.json().get("type").asString()).isEqualTo("urn:cadre:problem:unknown-field");
        assertThat(old.json().get("detail").asString()).contains("editedArguments");
        var typo = api.post("/api/v1/approvals/" + id + "/reject", b, "{\"coment\":\"not now\"}");
        assertThat(typo.status()).as(typo.body()).isEqualTo(400);
        assertThat(typo.json().get("field").asString()).isEqualTo("coment");
        // A rejection naming arguments it was not shown is refused as well.
        var wrong =
                api.post("/api/v1/approvals/" + id + "/reject", b, "{\"argumentsHash\":\"" + "0".repeat(64) + "\"}");
        assertThat(wrong.status()).as(wrong.body()).isEqualTo(409);
        assertThat(api.get("/api/v1/approvals/" + id, b).json().get("status").asString())
                .isEqualTo("pending");

        assertThat(api.post("/api/v1/approvals/" + id + "/reject", b, "{\"comment\":\"not now\"}")
                        .status())
                .isEqualTo(200);
        api.awaitRunEnd(waiting[0]);
    }
}
