package dev.cadre.platform.approvals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import dev.cadre.platform.support.TestTools;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

@PlatformTest
class ApprovalsTest {

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private String startFixer(String input) {
        return api.submitRun("fixer", input).get("id").asString();
    }

    private JsonNode pendingApprovalOf(String runId) {
        return api.pendingApprovalOf(runId);
    }

    private JsonNode awaitEnd(String id) {
        return api.awaitRunEnd(id);
    }

    private long restartsOf(String runId) {
        return TestTools.RESTARTS.stream()
                .filter(r -> r.startsWith(runId + " "))
                .count();
    }

    @Test
    void approveWithEditedArguments_runsTheToolOnceWithTheEdits_andAuditsTheDecision() {
        String run = startFixer("api is stuck (edit)");
        JsonNode approval = pendingApprovalOf(run);
        assertThat(approval.get("tool").asString()).isEqualTo("restart_service");
        assertThat(approval.get("arguments").get("service").asString()).isEqualTo("api");
        assertThat(approval.get("expiresInSeconds").asLong()).isPositive();
        assertThat(approval.get("what").asString()).isNotBlank();
        assertThat(restartsOf(run)).as("nothing runs before a decision").isZero();

        var decided = api.approve(
                approval.get("id").asString(),
                Api.ADMIN_KEY,
                "{\"editedArguments\":{\"service\":\"api\",\"host\":\"web-2\"},\"comment\":\"web-2 is the stuck one\"}");
        assertThat(decided.status()).isEqualTo(200);
        assertThat(decided.json().get("status").asString()).isEqualTo("approved");
        assertThat(decided.json().get("decidedBy").asString()).isEqualTo("bootstrap");

        JsonNode end = awaitEnd(run);
        assertThat(end.get("status").asString()).isEqualTo("completed");
        assertThat(end.get("result").asString()).contains("restarted api");
        assertThat(restartsOf(run)).isEqualTo(1);
        assertThat(TestTools.RESTARTS.stream()
                        .filter(r -> r.startsWith(run + " "))
                        .findFirst()
                        .orElseThrow())
                .contains("web-2");

        var audit = api.get("/api/v1/audit?limit=500", Api.ADMIN_KEY).json().get("items");
        assertThat(audit.valueStream()
                        .anyMatch(e -> e.get("action").asString().equals("approval.approve_with_edits")
                                && e.get("detail").asString().contains(run)))
                .isTrue();

        var again = api.post("/api/v1/approvals/" + approval.get("id").asString() + "/reject", Api.ADMIN_KEY, "{}");
        assertThat(again.status()).isEqualTo(409);
        // The problem's status member stays the HTTP status; the approval's state is an extension.
        assertThat(again.json().get("status").asInt()).isEqualTo(409);
        assertThat(again.json().get("approvalStatus").asString()).isEqualTo("approved");
    }

    @Test
    void reject_neverRunsTheTool_andTheModelReadsTheComment() {
        String run = startFixer("api is stuck (reject)");
        JsonNode approval = pendingApprovalOf(run);
        var r = api.post(
                "/api/v1/approvals/" + approval.get("id").asString() + "/reject",
                Api.ADMIN_KEY,
                "{\"comment\":\"not during business hours\"}");
        assertThat(r.status()).isEqualTo(200);
        JsonNode end = awaitEnd(run);
        assertThat(restartsOf(run)).isZero();
        assertThat(end.get("result").asString()).contains("not during business hours");
    }

    @Test
    void viewers_cannotDecide() {
        String viewer = api.post("/api/v1/keys", Api.ADMIN_KEY, "{\"name\":\"watcher\",\"role\":\"viewer\"}")
                .json()
                .get("secret")
                .asString();
        String run = startFixer("api is stuck (viewer)");
        JsonNode approval = pendingApprovalOf(run);
        assertThat(api.get("/api/v1/approvals?status=pending", viewer).status()).isEqualTo(200);
        assertThat(api.approve(approval.get("id").asString(), viewer).status()).isEqualTo(403);
        api.post("/api/v1/runs/" + run + "/cancel", Api.ADMIN_KEY, null);
        awaitEnd(run);
    }

    @Test
    void cancellingAWaitingRun_cancelsItsApproval_andNothingRuns() {
        String run = startFixer("api is stuck (cancel)");
        JsonNode approval = pendingApprovalOf(run);
        var canceled = api.post("/api/v1/runs/" + run + "/cancel", Api.ADMIN_KEY, null);
        assertThat(canceled.status()).isEqualTo(202);
        assertThat(awaitEnd(run).get("status").asString()).isEqualTo("canceled");
        // The run's end closes its approvals just after its status is stored: wait for that, not a read.
        assertThat(dev.cadre.platform.support.Await.until(
                        "the approval of canceled run " + run + " to close",
                        () -> api.get("/api/v1/approvals/" + approval.get("id").asString(), Api.ADMIN_KEY)
                                .json()
                                .get("status")
                                .asString(),
                        status -> !status.equals("pending")))
                .isEqualTo("canceled");
        assertThat(restartsOf(run)).isZero();
    }

    @Test
    void badDecisions_areClear4xx() {
        assertThat(api.post("/api/v1/approvals/nope/approve", Api.ADMIN_KEY, "{}")
                        .status())
                .isEqualTo(404);
        assertThat(api.get("/api/v1/approvals?status=maybe", Api.ADMIN_KEY)
                        .json()
                        .get("field")
                        .asString())
                .isEqualTo("status");
        String run = startFixer("api is stuck (bad args)");
        JsonNode approval = pendingApprovalOf(run);
        var notObject = api.approve(approval.get("id").asString(), Api.ADMIN_KEY, "{\"editedArguments\":[1]}");
        assertThat(notObject.status()).isEqualTo(400);
        assertThat(notObject.json().get("field").asString()).isEqualTo("editedArguments");
        api.post("/api/v1/runs/" + run + "/cancel", Api.ADMIN_KEY, null);
        awaitEnd(run);
    }
}
