package dev.cadre.platform.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * Another team's run answers exactly as a run that never was (404 on REST, "task not found" on
 * A2A), for every role of the other team, its admin included; its own team sees it as before.
 */
@PlatformTest
class TeamIsolationTest {

    @Autowired
    TeamStore teams;

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
        teams.create(new TeamId("blue"), "Blue team", "test");
        teams.create(new TeamId("green"), "Green team", "test");
    }

    private String key(String team, String role) {
        var r = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", team + "-" + role + "-" + UUID.randomUUID(), "role", role, "team", team)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("secret").asString();
    }

    private String run(String key, String agent) {
        var r = api.post("/api/v1/runs", key, Api.json(Map.of("agent", agent, "input", "restart api")));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("id").asString();
    }

    private void assertRunNotFound(Api.Response r, String id) {
        assertThat(r.status()).as(r.body()).isEqualTo(404);
        assertThat(r.json().get("detail").asString()).isEqualTo("run '" + id + "' does not exist");
    }

    @Test
    void anotherTeamsRun_answers404_exactlyAsARunThatNeverWas() {
        String blueOperator = key("blue", "operator");
        String id = run(blueOperator, "echoer");
        awaitEnd(blueOperator, id);
        String missing = "run_" + UUID.randomUUID().toString().replace("-", "");

        for (String role : List.of("viewer", "operator", "admin")) {
            String green = key("green", role);
            for (String probe : List.of(id, missing)) {
                assertRunNotFound(api.get("/api/v1/runs/" + probe, green), probe);
                assertRunNotFound(api.get("/api/v1/runs/" + probe + "/trace", green), probe);
                assertRunNotFound(api.get("/api/v1/runs/" + probe + "/events", green), probe);
                assertRunNotFound(api.get("/api/v1/runs/" + probe + "/case", green), probe);
                assertRunNotFound(api.get("/api/v1/runs/" + probe + "/tool-outputs/out-1", green), probe);
                if (!role.equals("viewer")) {
                    assertRunNotFound(api.post("/api/v1/runs/" + probe + "/cancel", green, "{}"), probe);
                    assertRunNotFound(api.post("/api/v1/runs/" + probe + "/retry", green, "{}"), probe);
                }
            }
            JsonNode listed = api.get("/api/v1/runs?limit=500", green).json().get("items");
            assertThat(listed.valueStream().map(r -> r.get("id").asString()).toList())
                    .doesNotContain(id);
            JsonNode searched = api.get("/api/v1/runs?q=" + id, green).json().get("items");
            assertThat(searched.size()).isZero();
        }

        // Its own team sees it, and lists it.
        String blueViewer = key("blue", "viewer");
        assertThat(api.get("/api/v1/runs/" + id, blueViewer).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/runs?q=" + id, blueViewer)
                        .json()
                        .get("items")
                        .size())
                .isEqualTo(1);
    }

    @Test
    void anotherTeamsApproval_answers404_andIsNotListed_andCannotBeDecided() {
        String blueOperator = key("blue", "operator");
        String runId = run(blueOperator, "fixer");
        String id = dev.cadre.platform.support.Await.until(
                        "a pending approval of " + runId,
                        () -> api.get("/api/v1/approvals?status=pending&runId=" + runId, blueOperator)
                                .json()
                                .get("items"),
                        items -> items.size() == 1)
                .get(0)
                .get("id")
                .asString();

        for (String role : List.of("viewer", "operator", "admin")) {
            String green = key("green", role);
            var got = api.get("/api/v1/approvals/" + id, green);
            assertThat(got.status()).isEqualTo(404);
            assertThat(got.json().get("detail").asString()).isEqualTo("approval '" + id + "' does not exist");
            assertThat(api.get("/api/v1/approvals?status=pending&limit=500", green)
                            .json()
                            .get("items")
                            .valueStream()
                            .map(a -> a.get("id").asString())
                            .toList())
                    .doesNotContain(id);
            if (!role.equals("viewer")) {
                for (String decision : List.of("approve", "reject", "abort")) {
                    var decided = api.post("/api/v1/approvals/" + id + "/" + decision, green, "{}");
                    assertThat(decided.status())
                            .as(decision + " " + decided.body())
                            .isEqualTo(404);
                }
            }
        }
        // Still pending for its own team, which decides it.
        assertThat(api.get("/api/v1/approvals/" + id, blueOperator)
                        .json()
                        .get("status")
                        .asString())
                .isEqualTo("pending");
        var rejected = api.post("/api/v1/approvals/" + id + "/reject", key("blue", "operator"), "{}");
        assertThat(rejected.status()).as(rejected.body()).isEqualTo(200);
    }

    @Test
    void aPlatformAdmin_actsInAnotherTeam_byNamingIt_andNoOneElseMay() {
        String blueOperator = key("blue", "operator");
        String id = run(blueOperator, "echoer");
        awaitEnd(blueOperator, id);

        // The bootstrap key is a platform admin of team default: blue's run is not its team's...
        assertRunNotFound(api.get("/api/v1/runs/" + id, Api.ADMIN_KEY), id);
        // ...until it names team blue for the request.
        var asBlue = api.send("GET", "/api/v1/runs/" + id, Api.ADMIN_KEY, null, Map.of("X-Cadre-Team", "blue"));
        assertThat(asBlue.status()).as(asBlue.body()).isEqualTo(200);
        assertThat(api.send("GET", "/api/v1/session", Api.ADMIN_KEY, null, Map.of("X-Cadre-Team", "blue"))
                        .json()
                        .get("team")
                        .asString())
                .isEqualTo("blue");

        var unknown = api.send("GET", "/api/v1/runs", Api.ADMIN_KEY, null, Map.of("X-Cadre-Team", "nowhere"));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json().get("detail").asString()).isEqualTo("X-Cadre-Team: there is no team 'nowhere'");

        String greenAdmin = key("green", "admin");
        var refused = api.send("GET", "/api/v1/runs/" + id, greenAdmin, null, Map.of("X-Cadre-Team", "blue"));
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.json().get("detail").asString()).endsWith("only; a platform admin may act in another team");
        // Naming one's own team changes nothing.
        assertThat(api.send("GET", "/api/v1/runs/" + id, blueOperator, null, Map.of("X-Cadre-Team", "blue"))
                        .status())
                .isEqualTo(200);
    }

    @Test
    void aRunRetriedInItsTeam_staysInIt() {
        String blueOperator = key("blue", "operator");
        String id = run(blueOperator, "echoer");
        awaitEnd(blueOperator, id);
        var retried = api.post("/api/v1/runs/" + id + "/retry", blueOperator, "{}");
        assertThat(retried.status()).as(retried.body()).isEqualTo(202);
        String again = retried.json().get("id").asString();
        assertRunNotFound(api.get("/api/v1/runs/" + again, key("green", "admin")), again);
        assertThat(api.get("/api/v1/runs/" + again, blueOperator).status()).isEqualTo(200);
    }

    @Test
    void anotherTeamsA2aTask_isNotFound_andNotListed_evenForItsAdmin() {
        String blueAgent = key("blue", "agent");
        String send = "{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"method\":\"SendMessage\",\"params\":{\"message\":{"
                + "\"messageId\":\"" + UUID.randomUUID() + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}],"
                + "\"metadata\":{\"agent\":\"echoer\"}}}}";
        var sent = api.post("/a2a", blueAgent, send);
        assertThat(sent.status()).as(sent.body()).isEqualTo(200);
        String id = sent.json().get("result").get("task").get("id").asString();

        String greenAdmin = key("green", "admin");
        JsonNode got = api.post(
                        "/a2a",
                        greenAdmin,
                        "{\"jsonrpc\":\"2.0\",\"id\":\"r-2\",\"method\":\"GetTask\",\"params\":{\"id\":\"" + id
                                + "\"}}")
                .json();
        assertThat(got.get("error").get("code").asInt()).isEqualTo(-32001);
        assertThat(got.get("error").get("message").asString()).isEqualTo("Task not found: '" + id + "' does not exist");
        JsonNode listed = api.post(
                        "/a2a",
                        greenAdmin,
                        "{\"jsonrpc\":\"2.0\",\"id\":\"r-3\",\"method\":\"ListTasks\",\"params\":{\"pageSize\":100}}")
                .json()
                .get("result")
                .get("tasks");
        assertThat(listed.valueStream().map(t -> t.get("id").asString()).toList())
                .doesNotContain(id);
        // The blue team's admin sees it.
        JsonNode own = api.post(
                        "/a2a",
                        key("blue", "admin"),
                        "{\"jsonrpc\":\"2.0\",\"id\":\"r-4\",\"method\":\"GetTask\",\"params\":{\"id\":\"" + id
                                + "\"}}")
                .json();
        assertThat(own.get("result").get("id").asString()).isEqualTo(id);
    }

    private void awaitEnd(String key, String id) {
        dev.cadre.platform.support.Await.until(
                "run " + id + " to end",
                () -> api.get("/api/v1/runs/" + id, key).json(),
                j -> j.get("status").asString().matches("completed|failed|canceled|rejected"));
    }
}
