package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Every endpoint × every role: anonymous callers get 401, roles below the endpoint's minimum get
 * 403, and the minimum role and above get through (whatever the endpoint then answers). The two
 * integration roles (intake, agent) get through only their own door and 403 everywhere else.
 */
@PlatformTest
class AuthorizationMatrixTest {

    @LocalServerPort
    int port;

    enum Min {
        PUBLIC,
        VIEWER,
        OPERATOR,
        ADMIN
    }

    /** An integration role and the one door it opens. */
    enum Door {
        INTAKE,
        AGENT
    }

    record Endpoint(String method, String path, String body, Min min, Door door) {
        Endpoint(String method, String path, String body, Min min) {
            this(method, path, body, min, null);
        }
    }

    static final List<Endpoint> ENDPOINTS = List.of(
            new Endpoint("GET", "/actuator/health", null, Min.PUBLIC),
            new Endpoint("GET", "/", null, Min.PUBLIC),
            new Endpoint("GET", "/.well-known/agent-card.json", null, Min.PUBLIC),
            new Endpoint("GET", "/actuator/prometheus", null, Min.VIEWER),
            new Endpoint("GET", "/v3/api-docs", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/session", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/agents", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/agents/ops-orchestrator", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/runs", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/runs/run_x", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/runs/run_x/events", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/runs/run_x/tool-outputs/out_x", null, Min.VIEWER),
            new Endpoint("POST", "/api/v1/runs", "{\"agent\":\"nope\",\"input\":\"x\"}", Min.OPERATOR),
            new Endpoint("POST", "/api/v1/runs/run_x/cancel", "{}", Min.OPERATOR),
            new Endpoint("POST", "/api/v1/runs/run_x/case", "{}", Min.OPERATOR),
            new Endpoint("GET", "/api/v1/runs/run_x/case", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/approvals?status=pending", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/approvals/ap_x", null, Min.VIEWER),
            new Endpoint("POST", "/api/v1/approvals/ap_x/approve", "{}", Min.OPERATOR),
            new Endpoint("POST", "/api/v1/approvals/ap_x/reject", "{}", Min.OPERATOR),
            new Endpoint("GET", "/api/v1/memory/matrix", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/memory/matrix/k", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/memory/matrix/k/history", null, Min.VIEWER),
            new Endpoint("PUT", "/api/v1/memory/matrix/k", "{}", Min.OPERATOR),
            new Endpoint("DELETE", "/api/v1/memory/matrix/k", null, Min.OPERATOR),
            new Endpoint(
                    "POST",
                    "/a2a",
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\",\"params\":{\"id\":\"x\"}}",
                    Min.OPERATOR,
                    Door.AGENT),
            new Endpoint("POST", "/api/v1/integrations/alertmanager", "{\"alerts\":[]}", Min.OPERATOR, Door.INTAKE),
            new Endpoint("GET", "/api/v1/keys", null, Min.ADMIN),
            new Endpoint("POST", "/api/v1/keys", "{\"name\":\"m\",\"role\":\"viewer\"}", Min.ADMIN),
            new Endpoint("DELETE", "/api/v1/keys/k_x", null, Min.ADMIN),
            new Endpoint("GET", "/api/v1/audit", null, Min.ADMIN),
            new Endpoint("GET", "/api/v1/workflows", null, Min.VIEWER),
            new Endpoint("GET", "/api/v1/workflows/wf-incident", null, Min.VIEWER),
            new Endpoint("POST", "/api/v1/runs/run_x/retry", "{}", Min.OPERATOR),
            new Endpoint("POST", "/api/v1/approvals/ap_x/abort", "{}", Min.OPERATOR),
            new Endpoint("GET", "/api/v1/tools", null, Min.VIEWER),
            // MCP: viewers list Cadre's tools, agent keys call them (the role check of a call is in McpServerTest).
            new Endpoint("POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", Min.VIEWER, Door.AGENT));

    @Test
    void everyEndpoint_answersEachRoleAsItsMinimumRoleSays() {
        Api api = new Api(port);
        Map<Min, String> keys = Map.of(
                Min.VIEWER, newKey(api, "viewer"),
                Min.OPERATOR, newKey(api, "operator"),
                Min.ADMIN, Api.ADMIN_KEY);
        Map<Door, String> doors = Map.of(Door.INTAKE, newKey(api, "intake"), Door.AGENT, newKey(api, "agent"));
        List<String> wrong = new ArrayList<>();
        for (Endpoint e : ENDPOINTS) {
            check(api, e, null, e.min() == Min.PUBLIC, wrong, "anonymous");
            for (Min role : List.of(Min.VIEWER, Min.OPERATOR, Min.ADMIN)) {
                check(
                        api,
                        e,
                        keys.get(role),
                        role.ordinal() >= e.min().ordinal(),
                        wrong,
                        role.name().toLowerCase());
            }
            for (Door door : Door.values()) {
                check(
                        api,
                        e,
                        doors.get(door),
                        // Who-am-I answers any authenticated key, integration keys included.
                        e.min() == Min.PUBLIC || e.door() == door || e.path().equals("/api/v1/session"),
                        wrong,
                        door.name().toLowerCase());
            }
        }
        assertThat(wrong).isEmpty();
    }

    private static void check(Api api, Endpoint e, String key, boolean allowed, List<String> wrong, String who) {
        Map<String, String> headers =
                e.method().equals("PUT") || e.method().equals("DELETE") ? Map.of("If-Match", "\"1\"") : Map.of();
        int status = e.path().endsWith("/events")
                ? api.send(e.method(), e.path(), key, e.body(), headers).status()
                : api.send(e.method(), e.path(), key, e.body(), headers).status();
        boolean denied = status == 401 || status == 403;
        if (allowed == denied) {
            wrong.add(who + " " + e.method() + " " + e.path() + " -> " + status + " (expected "
                    + (allowed ? "access" : "denial") + ")");
        }
        if (!allowed && key == null && status != 401) {
            wrong.add(who + " " + e.method() + " " + e.path() + " -> " + status + " (expected 401)");
        }
        if (status >= 500) {
            wrong.add(who + " " + e.method() + " " + e.path() + " -> " + status);
        }
    }

    private static String newKey(Api api, String role) {
        return api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", "matrix-" + role, "role", role)))
                .json()
                .get("secret")
                .asString();
    }
}
