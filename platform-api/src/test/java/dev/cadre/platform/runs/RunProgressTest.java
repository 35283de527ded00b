package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * Plain runs (not only workflows) report progress in their status events: the agent loop's
 * iteration out of its iteration budget, and an orchestrator's delegations done out of those it
 * started, each with the fraction; a live run's record shows the newest.
 */
@PlatformTest
class RunProgressTest {

    @LocalServerPort
    int port;

    @Test
    void anOrchestrator_reportsItsIterationsOutOfItsBudget_andItsDelegationsDone() {
        Api api = new Api(port);
        // triage: budget of 4 iterations; its first turn delegates to three workers at once.
        String id = api.submitRun("triage", "check all three").get("id").asString();
        assertThat(api.awaitRunEnd(id).get("status").asString()).isEqualTo("completed");

        List<JsonNode> statuses = mainStatuses(api, id);
        assertThat(statuses)
                .extracting(s -> s.get("message").asString())
                .containsExactly(
                        "iteration 1 of 4",
                        "1 of 3 delegations done",
                        "2 of 3 delegations done",
                        "3 of 3 delegations done",
                        "iteration 2 of 4");
        assertThat(statuses)
                .extracting(s -> s.get("progress").toString())
                .containsExactly(
                        "{\"unit\":\"iteration\",\"step\":1,\"of\":4,\"fraction\":0.0}",
                        "{\"unit\":\"delegation\",\"step\":1,\"of\":3,\"fraction\":" + (1 / 3.0) + "}",
                        "{\"unit\":\"delegation\",\"step\":2,\"of\":3,\"fraction\":" + (2 / 3.0) + "}",
                        "{\"unit\":\"delegation\",\"step\":3,\"of\":3,\"fraction\":1.0}",
                        "{\"unit\":\"iteration\",\"step\":2,\"of\":4,\"fraction\":0.25}");
        // The workers' own loops are not the run's progress: their status events carry none.
        var all = Sse.parse(api.get("/api/v1/runs/" + id + "/events?scope=all", Api.ADMIN_KEY)
                .body());
        assertThat(all)
                .filteredOn(e -> e.name().equals("status")
                        && !e.data().get("parentSessionId").isNull())
                .allSatisfy(e -> assertThat(e.data().has("progress")).isFalse());
    }

    @Test
    void aSingleAgent_reportsItsIterationOutOfItsBudget() {
        Api api = new Api(port);
        // fixer: budget of 4 iterations, two turns.
        String id =
                api.submitRun("fixer", "restart the api for progress").get("id").asString();
        String approval = api.pendingApprovalOf(id).get("id").asString();
        // Live (waiting for a human in its first iteration): the run record shows where it stands.
        assertThat(api.get("/api/v1/runs/" + id, Api.ADMIN_KEY)
                        .json()
                        .get("progress")
                        .toString())
                .isEqualTo("{\"unit\":\"iteration\",\"step\":1,\"of\":4,\"fraction\":0.0,"
                        + "\"message\":\"iteration 1 of 4\"}");
        api.approve(approval, Api.ADMIN_KEY);
        JsonNode end = api.awaitRunEnd(id);
        assertThat(end.get("status").asString()).isEqualTo("completed");
        assertThat(end.get("progress").isNull()).isTrue();

        assertThat(mainStatuses(api, id))
                .extracting(s ->
                        s.get("message").asString() + " " + s.get("progress").get("fraction"))
                .containsExactly("iteration 1 of 4 0.0", "iteration 2 of 4 0.25");
    }

    private static List<JsonNode> mainStatuses(Api api, String id) {
        return Sse.parse(
                        api.get("/api/v1/runs/" + id + "/events", Api.ADMIN_KEY).body())
                .stream()
                .filter(e -> e.name().equals("status"))
                .map(Sse.Event::data)
                .toList();
    }
}
