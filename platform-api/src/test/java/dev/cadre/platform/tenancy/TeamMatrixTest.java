package dev.cadre.platform.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.OpenApiWalk;
import dev.cadre.platform.support.PlatformTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * Every operation of the OpenAPI document × {own team, other team} × the people's roles: team blue
 * owns a finished run, a run waiting for a human and that approval; no operation called by any role
 * of team green, with blue's ids where the path takes an id, succeeds on them or shows any of them.
 * Blue itself reads them, so the oracle is not vacuous. The walk is the document's: a new endpoint
 * is in it without anyone adding it.
 */
@PlatformTest
class TeamMatrixTest {

    /** Operations the walk leaves out, and why. */
    private static final Map<String, String> LEFT_OUT = Map.of(
            "DELETE /api/v1/session", "logging out ends nothing of another team's",
            "POST /api/v1/session", "logging in takes a secret, not an object of a team",
            "GET /api/v1/incidents/events", "an open stream of incidents, which are not yet team-owned",
            "GET /api/v1/memory/{namespace}/events", "an open stream of a namespace, which is not yet team-owned");

    @Autowired
    TeamStore teams;

    @LocalServerPort
    int port;

    private String key(Api api, String team, String role) {
        var r = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of(
                        "name",
                        team + "-" + role + "-" + UUID.randomUUID().toString().substring(0, 8),
                        "role",
                        role,
                        "team",
                        team)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("secret").asString();
    }

    @Test
    void noOperation_readsOrWritesAnotherTeamsObjects_forAnyRole() {
        Api api = new Api(port);
        teams.create(new TeamId("matrix-blue"), "Blue", "test");
        teams.create(new TeamId("matrix-green"), "Green", "test");
        String blue = key(api, "matrix-blue", "operator");

        String finished = api.post("/api/v1/runs", blue, Api.json(Map.of("agent", "echoer", "input", "hello")))
                .json()
                .get("id")
                .asString();
        Await.until(
                "run " + finished + " to end",
                () -> api.get("/api/v1/runs/" + finished, blue).json(),
                j -> j.get("status").asString().equals("completed"));
        String waiting = api.post("/api/v1/runs", blue, Api.json(Map.of("agent", "fixer", "input", "restart api")))
                .json()
                .get("id")
                .asString();
        String approval = Await.until(
                        "a pending approval of " + waiting,
                        () -> api.get("/api/v1/approvals?status=pending&runId=" + waiting, blue)
                                .json()
                                .get("items"),
                        items -> items.size() == 1)
                .get(0)
                .get("id")
                .asString();
        Set<String> blueIds = Set.of(finished, waiting, approval);

        JsonNode doc = api.get("/v3/api-docs", Api.ADMIN_KEY).json();
        List<String> crossings = new ArrayList<>();
        Set<String> walked = new TreeSet<>();
        for (String role : List.of("viewer", "operator", "admin")) {
            String green = key(api, "matrix-green", role);
            for (OpenApiWalk.Operation op : OpenApiWalk.operations(doc)) {
                if (LEFT_OUT.containsKey(op.name())) {
                    continue;
                }
                for (String target : targets(op, finished, waiting, approval)) {
                    walked.add(op.name());
                    Api.Response r = call(api, op, target, green, doc);
                    String id = blueIds.stream()
                            .filter(target::contains)
                            .findFirst()
                            .orElse(null);
                    if (id == null) {
                        for (String shown : blueIds) {
                            if (r.body().contains(shown)) {
                                crossings.add(role + " " + op.method() + " " + target + " showed " + shown);
                            }
                        }
                        continue;
                    }
                    // Exactly as an object that never was: the same answer for an id nobody has.
                    String missing = id.startsWith("run_")
                            ? "run_" + UUID.randomUUID().toString().replace("-", "")
                            : UUID.randomUUID().toString();
                    Api.Response never = call(api, op, target.replace(id, missing), green, doc);
                    String seen = r.status() + " " + problem(r).replace(id, "<id>");
                    String unseen = never.status() + " " + problem(never).replace(missing, "<id>");
                    if (r.status() >= 200 && r.status() < 300 || !seen.equals(unseen)) {
                        crossings.add(role + " " + op.method() + " " + target + " answered " + seen
                                + " where an id nobody has answers " + unseen);
                    }
                }
            }
        }
        assertThat(crossings)
                .as("operations of team green that reached team blue's objects")
                .isEmpty();
        assertThat(walked).contains("GET /api/v1/runs/{id}", "POST /api/v1/approvals/{id}/approve", "GET /api/v1/runs");

        // The same reads by team blue see them: the oracle above can fail.
        String blueViewer = key(api, "matrix-blue", "viewer");
        assertThat(api.get("/api/v1/runs/" + finished, blueViewer).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/approvals/" + approval, blueViewer).status())
                .isEqualTo(200);
        assertThat(api.get("/api/v1/runs?limit=500", blueViewer).body()).contains(finished, waiting);
        assertThat(api.get("/api/v1/approvals?limit=500", blueViewer).body()).contains(approval);
        assertThat(api.get("/api/v1/approvals/" + approval, blueViewer)
                        .json()
                        .get("status")
                        .asString())
                .isEqualTo("pending");
    }

    /** The paths to call: with each of blue's ids where the path takes an id of that kind, else a sample. */
    private static List<String> targets(OpenApiWalk.Operation op, String finished, String waiting, String approval) {
        String path = op.path();
        List<String> out = new ArrayList<>();
        if (path.startsWith("/api/v1/runs/{id}")) {
            out.add(path.replace("{id}", finished));
            out.add(path.replace("{id}", waiting));
        } else if (path.startsWith("/api/v1/approvals/{id}")) {
            out.add(path.replace("{id}", approval));
        } else {
            out.add(path);
        }
        List<String> filled = new ArrayList<>();
        for (String p : out) {
            filled.add(p.replaceAll("\\{[^}]+}", "sample") + OpenApiWalk.requiredQuery(op.op()));
        }
        return filled;
    }

    /** What a refusal says: its problem type and detail (or the body when it is no problem document). */
    private static String problem(Api.Response r) {
        try {
            JsonNode p = r.json();
            return p.path("type").asString("") + " " + p.path("detail").asString("");
        } catch (RuntimeException notJson) {
            return r.body();
        }
    }

    private Api.Response call(Api api, OpenApiWalk.Operation op, String target, String key, JsonNode doc) {
        JsonNode schema = op.bodySchema(doc);
        String body = schema == null ? null : OpenApiWalk.sample(schema, doc).toString();
        Map<String, String> headers = new java.util.HashMap<>();
        if (body != null) {
            headers.put("Content-Type", "application/json");
        }
        if (op.produces().contains("text/event-stream")) {
            // A stream of one's own team stays open; Last-Event-ID far ahead and the run ended keep it short.
            headers.put("Accept", "text/event-stream");
        }
        return api.send(op.method(), target, key, body, headers);
    }
}
