package dev.cadre.platform.web;

import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A seeded generator of malformed requests for every route of the REST and A2A APIs. Each request
 * starts from a valid one and breaks one or two things — its JSON, a field's type, a header, a path
 * segment, a query parameter, the method or the credentials — so the server gets far enough to
 * show how it handles the fault. Same seed, same fixture: same requests.
 */
final class FuzzRequests {

    /** Ids and keys of things that exist, so some requests reach past the lookup. */
    record Fixture(
            String adminKey,
            String operatorKey,
            String viewerKey,
            String runId,
            String approvalId,
            String memoryNamespace,
            String memoryKey) {}

    static final String MEMORY_NAMESPACE = "fuzz";

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Memory keys the fuzzer writes to; a handful, so the after-check can read each one's history. */
    static final List<String> MEMORY_KEYS = List.of("k1", "k2", "k3", "seeded");

    private final Random rnd;
    private final Fixture fx;
    private final List<Route> routes = new ArrayList<>();
    private int serial;

    private record Route(String family, int weight, Supplier<FuzzHttp.Request> generate) {}

    FuzzRequests(Random rnd, Fixture fx) {
        this.rnd = rnd;
        this.fx = fx;
        route("runs.submit", 10, this::runSubmit);
        route("runs.get", 3, () -> simple("runs.get", "GET", "/api/v1/runs/" + id(fx.runId()), Role.VIEWER));
        route("runs.list", 5, this::runList);
        route(
                "runs.cancel",
                3,
                () -> simple("runs.cancel", "POST", "/api/v1/runs/" + id("run_x") + "/cancel", Role.OPERATOR));
        route("runs.events", 4, this::runEvents);
        route(
                "runs.trace",
                3,
                () -> simple("runs.trace", "GET", "/api/v1/runs/" + id(fx.runId()) + "/trace", Role.VIEWER));
        route("approvals.list", 4, this::approvalList);
        route(
                "approvals.get",
                2,
                () -> simple("approvals.get", "GET", "/api/v1/approvals/" + id(fx.approvalId()), Role.VIEWER));
        route("approvals.decide", 6, this::approvalDecide);
        route("memory.get", 4, this::memoryGet);
        route("memory.put", 10, this::memoryPut);
        route("memory.delete", 4, this::memoryDelete);
        route("memory.history", 2, this::memoryHistory);
        route("memory.list", 3, this::memoryList);
        route("memory.events", 3, this::memoryEvents);
        route(
                "memory.namespaces",
                1,
                () -> simple("memory.namespaces", "GET", "/api/v1/memory" + query(), Role.VIEWER));
        route("agents", 3, this::agents);
        route("keys", 5, this::keys);
        route("audit", 3, this::audit);
        route("stats", 3, this::stats);
        route("alertmanager", 6, this::alertmanager);
        route("session", 5, this::session);
        route("a2a.card", 2, this::agentCard);
        route("a2a.rpc", 18, this::a2a);
        route("wrong-method", 6, this::wrongMethod);
        route("unknown-path", 2, this::unknownPath);
    }

    private void route(String family, int weight, Supplier<FuzzHttp.Request> generate) {
        routes.add(new Route(family, weight, generate));
    }

    FuzzHttp.Request next() {
        serial++;
        int total = routes.stream().mapToInt(Route::weight).sum();
        int pick = rnd.nextInt(total);
        for (Route r : routes) {
            pick -= r.weight();
            if (pick < 0) {
                return r.generate().get();
            }
        }
        throw new IllegalStateException();
    }

    // ---------------------------------------------------------------- credentials

    private enum Role {
        VIEWER,
        OPERATOR,
        ADMIN
    }

    /**
     * Headers for the credentials: mostly a key good enough for the route, sometimes a weaker one,
     * none, or a broken Authorization / X-API-Key header.
     */
    private Map<String, String> auth(Role needed, List<String> mutations) {
        Map<String, String> h = new LinkedHashMap<>();
        int p = rnd.nextInt(100);
        if (p < 62) {
            h.put("Authorization", "Bearer " + keyFor(needed));
        } else if (p < 70) {
            h.put("X-API-Key", needed == Role.ADMIN ? fx.adminKey() : fx.operatorKey());
        } else if (p < 78) {
            h.put("Authorization", "Bearer " + fx.viewerKey());
            mutations.add("auth:viewer");
        } else if (p < 83) {
            h.put("Authorization", "Bearer " + fx.operatorKey());
            mutations.add("auth:operator");
        } else if (p < 90) {
            mutations.add("auth:anonymous");
        } else {
            String[][] bad = {
                {"Authorization", "Bearer cadre_notARealKey0123456789"},
                {"Authorization", "Bearer"},
                {"Authorization", "Bearer "},
                {"Authorization", "Basic YWRtaW46YWRtaW4="},
                {"Authorization", "bearer  " + fx.adminKey() + "  "},
                {"Authorization", "Bearer " + "k".repeat(4000)},
                {"Authorization", "Token " + fx.adminKey()},
                {"Authorization", "Bearer " + fx.adminKey() + "\u00e9"},
                {"X-API-Key", " "},
                {"X-API-Key", "nope"},
                {"X-API-Key", fx.adminKey().toUpperCase(java.util.Locale.ROOT)},
                {"Authorization", "Bearer \u0001\u0002"},
                {"Authorization", "Bearer " + fx.adminKey() + "\u0000"},
            };
            String[] b = pick(bad);
            h.put(b[0], b[1]);
            mutations.add("auth:broken");
        }
        return h;
    }

    private String keyFor(Role role) {
        return switch (role) {
            case VIEWER -> rnd.nextBoolean() ? fx.viewerKey() : fx.adminKey();
            case OPERATOR -> rnd.nextBoolean() ? fx.operatorKey() : fx.adminKey();
            case ADMIN -> fx.adminKey();
        };
    }

    // ---------------------------------------------------------------- routes

    private FuzzHttp.Request runSubmit() {
        ObjectNode valid = NODES.objectNode();
        valid.put("agent", "probe-a");
        valid.put("input", "fuzz run " + serial);
        if (rnd.nextBoolean()) {
            valid.put("context", "ctx-" + serial);
        }
        List<String> m = new ArrayList<>();
        Map<String, String> h = auth(Role.OPERATOR, m);
        if (rnd.nextInt(4) == 0) {
            h.put("Idempotency-Key", idempotencyKey(m));
        }
        return withBody("runs.submit", "POST", "/api/v1/runs", h, valid, m, null);
    }

    private FuzzHttp.Request runList() {
        String q = query(
                "status", pick("submitted", "working", "completed", "COMPLETED", "bogus", "", "input-required", "%00"),
                "agent", pick("probe-a", "", "%F0%9F%94%A5", "x".repeat(3000)),
                "from", badTime(),
                "to", badTime(),
                "q", pick("fuzz", "%", "_", "'; drop table runs; --", "%25", "\\", "x".repeat(5000)),
                "cursor",
                        pick(
                                "",
                                "x",
                                "%00",
                                "YzE6MTox",
                                "YzE6OTk5OTk5OTk5OTk5OTk5OTk5OTk6MDp4",
                                "Yz" + "A".repeat(4000)),
                "offset", badInt(),
                "limit", badInt());
        return simple("runs.list", "GET", "/api/v1/runs" + q, Role.VIEWER);
    }

    private FuzzHttp.Request runEvents() {
        List<String> m = new ArrayList<>();
        Map<String, String> h = auth(Role.VIEWER, m);
        maybe(
                h,
                m,
                "Last-Event-ID",
                "",
                " ",
                "-1",
                "0",
                "abc",
                "1.5",
                "99999999999999999999",
                "9223372036854775807",
                " 3 ",
                "\u00e9");
        maybe(
                h,
                m,
                "Accept",
                "text/event-stream",
                "application/json",
                "text/html",
                "application/problem+json",
                "image/png");
        String path = "/api/v1/runs/" + id(fx.runId()) + "/events"
                + query("scope", pick("main", "all", "", "ALL", "subagents", "%00"));
        return request("runs.events", "GET", path, h, null, m, false, null);
    }

    private FuzzHttp.Request approvalList() {
        String q = query(
                "status", pick("pending", "approved", "PENDING", "bogus", "", "expired"),
                "runId", pick(fx.runId(), "", "x".repeat(3000), "%00"),
                "offset", badInt(),
                "limit", badInt());
        return simple("approvals.list", "GET", "/api/v1/approvals" + q, Role.VIEWER);
    }

    private FuzzHttp.Request approvalDecide() {
        boolean approve = rnd.nextBoolean();
        ObjectNode valid = NODES.objectNode();
        if (approve && rnd.nextBoolean()) {
            valid.putObject("editedArguments").put("service", "api").put("host", "web-1");
        }
        valid.put("comment", "fuzz " + serial);
        List<String> m = new ArrayList<>();
        Map<String, String> h = auth(Role.OPERATOR, m);
        // Most decisions aim at the one real pending approval; the fuzzed bodies must not decide it.
        String target = rnd.nextInt(3) == 0 ? id(fx.approvalId()) : fx.approvalId();
        String path = "/api/v1/approvals/" + target + (approve ? "/approve" : "/reject");
        if (rnd.nextInt(8) == 0) {
            m.add("no-body");
            return request("approvals.decide", "POST", path, h, null, m, false, null);
        }
        return withBody("approvals.decide", "POST", path, h, valid, m, null);
    }

    private String memoryTarget() {
        return rnd.nextInt(10) == 0 ? fx.memoryKey() : pick(MEMORY_KEYS);
    }

    private String memoryPath(String key, List<String> m) {
        if (rnd.nextInt(5) == 0) {
            m.add("odd-path");
            return "/api/v1/memory/" + pick(MEMORY_NAMESPACE, segment()) + "/" + segment();
        }
        return "/api/v1/memory/" + fx.memoryNamespace() + "/" + key;
    }

    private FuzzHttp.Request memoryGet() {
        List<String> m = new ArrayList<>();
        Map<String, String> h = auth(Role.VIEWER, m);
        maybe(h, m, "If-None-Match", "\"1\"", "*", "", "garbage", "W/\"1\"", "\"1\", \"2\"");
        String path = memoryPath(memoryTarget(), m) + query("consistent", pick("true", "false", "maybe", "", "1"));
        return request("memory.get", "GET", path, h, null, m, false, null);
    }

    private FuzzHttp.Request memoryPut() {
        String key = memoryTarget();
        List<String> m = new ArrayList<>();
        Map<String, String> h = auth(Role.OPERATOR, m);
        preconditions(h, m, true);
        String path = memoryPath(key, m);
        ObjectNode valid = NODES.objectNode();
        valid.put("note", "fuzz " + serial);
        valid.putArray("hosts").add("web-1").add("web-2");
        valid.put("count", serial);
        return withBody(
                "memory.put",
                "PUT",
                path,
                h,
                valid,
                m,
                m.contains("odd-path") ? null : fx.memoryNamespace() + "/" + key);
    }

    private FuzzHttp.Request memoryDelete() {
        String key = memoryTarget();
        List<String> m = new ArrayList<>();
        Map<String, String> h = auth(Role.OPERATOR, m);
        preconditions(h, m, false);
        String path = memoryPath(key, m);
        return request(
                "memory.delete",
                "DELETE",
                path,
                h,
                null,
                m,
                false,
                m.contains("odd-path") ? null : fx.memoryNamespace() + "/" + key);
    }

    /** If-Match / If-None-Match / Idempotency-Key: mostly plausible, often wrong. */
    private void preconditions(Map<String, String> h, List<String> m, boolean mayCreate) {
        int p = rnd.nextInt(10);
        if (p < 5) {
            h.put(
                    "If-Match",
                    pick(
                            "\"1\"",
                            "\"2\"",
                            "\"3\"",
                            "W/\"1\"",
                            "1",
                            "\"0\"",
                            "\"-1\"",
                            "\"abc\"",
                            "*",
                            "",
                            "\"99999999999999999999\"",
                            "\"1\", \"2\"",
                            "\"",
                            "\"\"",
                            "\"9223372036854775807\""));
            m.add("if-match");
        } else if (p < 7) {
            h.put("If-None-Match", pick("*", "\"1\"", "", "garbage", " * "));
            m.add("if-none-match");
        } else if (p < 8) {
            h.put("If-Match", "\"1\"");
            h.put("If-None-Match", "*");
            m.add("both-preconditions");
        } else {
            m.add("no-precondition");
        }
        if (rnd.nextInt(4) == 0) {
            h.put("Idempotency-Key", idempotencyKey(m));
        }
    }

    /** Never reused: a replayed write answers 2xx without writing, which would blur the after-check. */
    private String idempotencyKey(List<String> m) {
        int p = rnd.nextInt(8);
        String unique = "fz-" + serial + "-" + rnd.nextInt(1_000_000);
        m.add("idempotency-key");
        return switch (p) {
            case 0 -> "";
            case 1 -> " ";
            case 2 -> unique + "x".repeat(250);
            case 3 -> unique + "\u00e9\u00fc";
            case 4 -> unique + "\u0001";
            case 5 -> unique + "x".repeat(6000);
            default -> unique;
        };
    }

    private FuzzHttp.Request memoryHistory() {
        List<String> m = new ArrayList<>();
        Map<String, String> h = auth(Role.VIEWER, m);
        return request("memory.history", "GET", memoryPath(memoryTarget(), m) + "/history", h, null, m, false, null);
    }

    private FuzzHttp.Request memoryList() {
        String ns = rnd.nextInt(4) == 0 ? segment() : fx.memoryNamespace();
        String q = query(
                "prefix", pick("k", "", "%", "%00", "x".repeat(3000), "%E2%80%AE"),
                "after", pick("k1", "", "zzz", "%FF", "x".repeat(3000)),
                "limit", badInt());
        return simple("memory.list", "GET", "/api/v1/memory/" + ns + q, Role.VIEWER);
    }

    private FuzzHttp.Request memoryEvents() {
        List<String> m = new ArrayList<>();
        Map<String, String> h = auth(Role.VIEWER, m);
        maybe(h, m, "Last-Event-ID", "", "-1", "abc", "99999999999999999999", "0", " 7 ", "1e3");
        maybe(h, m, "Accept", "text/event-stream", "application/json", "text/html");
        String ns = rnd.nextInt(4) == 0 ? segment() : fx.memoryNamespace();
        String q = query("cursor", pick("0", "-1", "abc", "99999999999999999999", "", "1.5", "9223372036854775807"));
        return request("memory.events", "GET", "/api/v1/memory/" + ns + "/events" + q, h, null, m, false, null);
    }

    private FuzzHttp.Request agents() {
        String path = rnd.nextBoolean() ? "/api/v1/agents" + query() : "/api/v1/agents/" + id("probe-a");
        return simple("agents", "GET", path, Role.VIEWER);
    }

    private FuzzHttp.Request keys() {
        int p = rnd.nextInt(5);
        if (p == 0) {
            return simple("keys", "GET", "/api/v1/keys" + query(), Role.ADMIN);
        }
        if (p == 1) {
            return simple("keys", "DELETE", "/api/v1/keys/" + id("k_nonexistent"), Role.ADMIN);
        }
        ObjectNode valid = NODES.objectNode();
        valid.put("name", "fuzz-key-" + serial);
        valid.put("role", pick("viewer", "operator", "VIEWER"));
        List<String> m = new ArrayList<>();
        return withBody("keys", "POST", "/api/v1/keys", auth(Role.ADMIN, m), valid, m, null);
    }

    private FuzzHttp.Request audit() {
        String q = query("before", pick("1", "-1", "0", "abc", "", "99999999999999999999", "1.5"), "limit", badInt());
        return simple("audit", "GET", "/api/v1/audit" + q, Role.ADMIN);
    }

    private FuzzHttp.Request stats() {
        String q = query("hours", pick("24", "0", "-1", "abc", "", "99999999999", "2147483647", "1e2", "8760", "8761"));
        return simple("stats", "GET", "/api/v1/stats/" + pick("overview", "agents") + q, Role.VIEWER);
    }

    private FuzzHttp.Request alertmanager() {
        ObjectNode valid = NODES.objectNode();
        valid.put("version", "4");
        valid.put("status", "firing");
        valid.put("receiver", "cadre");
        ArrayNode alerts = valid.putArray("alerts");
        ObjectNode alert = alerts.addObject();
        alert.put("status", pick("firing", "resolved"));
        alert.putObject("labels")
                // One incident: each new one starts an ops-orchestrator run that may wait for a human,
                // and a run waiting for a human holds one of the queue's execution slots.
                .put("alertname", "FuzzAlert")
                .put("instance", "web-1")
                .put("severity", "warning");
        alert.putObject("annotations").put("summary", "fuzzed");
        alert.put("startsAt", "2026-12-01T00:00:00Z");
        alert.put("fingerprint", "fuzz-alert");
        List<String> m = new ArrayList<>();
        return withBody(
                "alertmanager", "POST", "/api/v1/integrations/alertmanager", auth(Role.OPERATOR, m), valid, m, null);
    }

    private FuzzHttp.Request session() {
        int p = rnd.nextInt(6);
        if (p == 0) {
            return simple("session", "GET", "/api/v1/session", Role.VIEWER);
        }
        if (p == 1) {
            return simple("session", "DELETE", "/api/v1/session", Role.VIEWER);
        }
        ObjectNode valid = NODES.objectNode();
        valid.put("apiKey", pick("wrong-key", fx.viewerKey(), "", "x".repeat(5000)));
        List<String> m = new ArrayList<>();
        Map<String, String> h = new LinkedHashMap<>();
        if (rnd.nextInt(4) == 0) {
            h.put(
                    "Cookie",
                    pick("JSESSIONID=bogus", "XSRF-TOKEN=x", "JSESSIONID=" + "a".repeat(3000), "JSESSIONID=\u00e9"));
            m.add("cookie");
        }
        return withBody("session", "POST", "/api/v1/session", h, valid, m, null);
    }

    private FuzzHttp.Request agentCard() {
        List<String> m = new ArrayList<>();
        Map<String, String> h = new LinkedHashMap<>();
        maybe(h, m, "Accept", "text/html", "application/xml", "application/json", "*/*", "garbage", "image/png");
        String path = pick(
                "/.well-known/agent-card.json",
                "/.well-known/agent-card.json" + query("x", "%00"),
                "/.well-known/agent.json",
                "/.well-known/agent-card.json/" + segment());
        return request("a2a.card", "GET", path, h, null, m, false, null);
    }

    // ---------------------------------------------------------------- A2A JSON-RPC

    private static final String[] A2A_METHODS = {
        "SendMessage",
        "message/send",
        "SendStreamingMessage",
        "message/stream",
        "GetTask",
        "tasks/get",
        "CancelTask",
        "tasks/cancel",
        "ListTasks",
        "SubscribeToTask",
        "tasks/resubscribe",
        "GetExtendedAgentCard",
        "agent/getAuthenticatedExtendedCard",
        "tasks/pushNotificationConfig/set",
        "CreateTaskPushNotificationConfig",
        "tasks/doSomething",
        "sendmessage",
        "",
        " SendMessage"
    };

    private FuzzHttp.Request a2a() {
        String method = pick(A2A_METHODS);
        boolean v03 = method.contains("/");
        ObjectNode params = a2aParams(method.trim(), v03);
        ObjectNode envelope = NODES.objectNode();
        envelope.put("jsonrpc", "2.0");
        envelope.put("id", rnd.nextBoolean() ? "fz-" + serial : String.valueOf(serial));
        envelope.put("method", method);
        envelope.set("params", params);
        List<String> m = new ArrayList<>();
        m.add(v03 ? "a2a-0.3" : "a2a-1.0");
        Map<String, String> h = auth(Role.OPERATOR, m);
        byte[] body;
        int p = rnd.nextInt(10);
        if (p < 3) {
            // Break the envelope.
            ObjectNode broken = envelope.deepCopy();
            m.add("envelope");
            switch (rnd.nextInt(7)) {
                case 0 -> broken.remove(pick("jsonrpc", "id", "method", "params"));
                case 1 -> broken.set("jsonrpc", wrongValue());
                case 2 -> broken.set("id", wrongValue());
                case 3 -> broken.set("method", wrongValue());
                case 4 -> broken.set("params", wrongValue());
                case 5 -> broken.put("extra", "field");
                default -> broken.put("id", pick(1.5, 1e300, -1.0));
            }
            body = bytes(broken);
        } else if (p < 8) {
            // Break the params.
            ObjectNode mutated = envelope.deepCopy();
            mutated.set("params", mutateTree(params, m));
            body = bytes(mutated);
        } else {
            body = mutateText(bytes(envelope), m);
        }
        contentType(h, m, 6);
        maybe(h, m, "Accept", "text/event-stream", "text/html", "application/xml", "*/*");
        return request("a2a.rpc", "POST", rnd.nextInt(30) == 0 ? "/a2a/" + segment() : "/a2a", h, body, m, false, null);
    }

    private ObjectNode a2aParams(String method, boolean v03) {
        ObjectNode params = NODES.objectNode();
        switch (method) {
            case "SendMessage", "message/send", "SendStreamingMessage", "message/stream", "sendmessage" -> {
                ObjectNode msg = params.putObject("message");
                msg.put("messageId", "fz-msg-" + serial + "-" + rnd.nextInt(1_000_000));
                msg.put("role", v03 ? "user" : "ROLE_USER");
                if (v03) {
                    msg.put("kind", "message");
                }
                ObjectNode part = msg.putArray("parts").addObject();
                if (v03) {
                    part.put("kind", "text");
                }
                part.put("text", "fuzz task " + serial);
                // probe-a answers at once; never 'slow' or 'fixer', whose runs a blocking send would wait for.
                msg.putObject("metadata").put("agent", pick("probe-a", "probe-a", "no-such-agent", ""));
                if (rnd.nextBoolean()) {
                    msg.put("contextId", pick("ctx-1", "bad context!", "x".repeat(300), "ctx/\u00e9"));
                }
                if (rnd.nextInt(4) == 0) {
                    msg.put("taskId", fx.runId());
                }
                ObjectNode config = params.putObject("configuration");
                config.put("blocking", rnd.nextInt(5) == 0);
                if (rnd.nextBoolean()) {
                    config.putArray("acceptedOutputModes").add(pick("text/plain", "image/png", ""));
                }
                if (rnd.nextBoolean()) {
                    config.put("historyLength", pick(0, 1, -1, 5000));
                }
            }
            case "GetTask", "tasks/get", "CancelTask", "tasks/cancel", "SubscribeToTask", "tasks/resubscribe" -> {
                params.put("id", rnd.nextBoolean() ? fx.runId() : idValue());
                if (rnd.nextBoolean()) {
                    params.put("historyLength", pick(0, 3, -1, 100_000));
                }
            }
            case "ListTasks" -> {
                if (rnd.nextBoolean()) {
                    params.put("contextId", pick("ctx-1", "", "x".repeat(300)));
                }
                if (rnd.nextBoolean()) {
                    params.put("status", pick("TASK_STATE_COMPLETED", "completed", "bogus", ""));
                }
                if (rnd.nextBoolean()) {
                    params.put(
                            "statusTimestampAfter",
                            pick("2026-01-01T00:00:00Z", "yesterday", "", "2026-13-45T99:00:00Z"));
                }
                if (rnd.nextBoolean()) {
                    params.put("pageSize", pick(1, 0, -5, 100, 101, Integer.MAX_VALUE));
                }
                if (rnd.nextBoolean()) {
                    params.put("pageToken", pick("", "abc", "MTA=", "LTE=", "x".repeat(500), "%%%"));
                }
                if (rnd.nextBoolean()) {
                    params.put("historyLength", pick(0, -1, 1001));
                }
                if (rnd.nextBoolean()) {
                    params.put("includeArtifacts", rnd.nextBoolean());
                }
            }
            default -> params.put("id", fx.runId());
        }
        return params;
    }

    private String idValue() {
        return pick("run_nope", "", " ", "../../etc/passwd", "x".repeat(5000), "run_\u0000", "\u202e", "%2F");
    }

    // ---------------------------------------------------------------- wrong methods, unknown paths

    private FuzzHttp.Request wrongMethod() {
        String path = pick(
                "/api/v1/runs",
                "/api/v1/runs/" + fx.runId(),
                "/api/v1/runs/" + fx.runId() + "/cancel",
                "/api/v1/runs/" + fx.runId() + "/events",
                "/api/v1/runs/" + fx.runId() + "/trace",
                "/api/v1/approvals",
                "/api/v1/approvals/" + fx.approvalId(),
                "/api/v1/approvals/" + fx.approvalId() + "/approve",
                "/api/v1/memory",
                "/api/v1/memory/" + MEMORY_NAMESPACE,
                "/api/v1/memory/" + MEMORY_NAMESPACE + "/k1/history",
                "/api/v1/agents",
                "/api/v1/keys",
                "/api/v1/audit",
                "/api/v1/stats/overview",
                "/api/v1/integrations/alertmanager",
                "/api/v1/session",
                "/.well-known/agent-card.json",
                "/a2a");
        String method = pick("PATCH", "PUT", "DELETE", "POST", "GET", "HEAD", "OPTIONS", "TRACE", "PROPFIND", "FOO");
        List<String> m = new ArrayList<>();
        m.add("method:" + method);
        Map<String, String> h = auth(Role.ADMIN, m);
        byte[] body = rnd.nextBoolean() ? "{}".getBytes(StandardCharsets.UTF_8) : null;
        if (body != null) {
            h.put("Content-Type", "application/json");
        }
        // HttpClient refuses TRACE and unknown methods with a body; the socket sends them anyway.
        boolean raw = method.equals("TRACE") || method.equals("PROPFIND") || method.equals("FOO");
        return request("wrong-method", method, path, h, body, m, raw, null);
    }

    private FuzzHttp.Request unknownPath() {
        String path = pick(
                "/api/v1/nothing",
                "/api/v2/runs",
                "/api/v1/runs/" + fx.runId() + "/nothing",
                "/api/v1/" + segment(),
                "/api/v1/memory/a/b/c/d",
                "/api/v1//runs",
                "/api/v1/runs/",
                "/api/v1/runs/%2e%2e/%2e%2e/actuator/env",
                "/api/v1/runs;x=y",
                "/api/v1/%2e%2e/v1/runs",
                "/api/v1/runs/..;/keys",
                "/api/v1/./runs",
                "/api/v1/RUNS");
        return simple("unknown-path", pick("GET", "POST", "DELETE"), path, Role.ADMIN);
    }

    // ---------------------------------------------------------------- building blocks

    private FuzzHttp.Request simple(String family, String method, String path, Role role) {
        List<String> m = new ArrayList<>();
        Map<String, String> h = auth(role, m);
        maybe(
                h,
                m,
                "Accept",
                "text/html",
                "application/xml",
                "image/png",
                "application/problem+json",
                "garbage/",
                "*/*");
        return request(family, method, path, h, null, m, false, null);
    }

    private FuzzHttp.Request withBody(
            String family,
            String method,
            String path,
            Map<String, String> h,
            ObjectNode valid,
            List<String> m,
            @Nullable String memoryTarget) {
        byte[] body = rnd.nextInt(3) == 0 ? mutateText(bytes(valid), m) : bytes(mutateTree(valid, m));
        contentType(h, m, 5);
        maybe(h, m, "Accept", "text/html", "application/xml", "text/event-stream", "application/problem+json");
        return request(family, method, path, h, body, m, false, memoryTarget);
    }

    private FuzzHttp.Request request(
            String family,
            String method,
            String path,
            Map<String, String> h,
            byte @Nullable [] body,
            List<String> m,
            boolean raw,
            @Nullable String memoryTarget) {
        if (body != null && !h.containsKey("Content-Type") && !m.contains("content-type:absent")) {
            h.put("Content-Type", "application/json");
        }
        if (rnd.nextInt(40) == 0) {
            // Bytes no HTTP client would put in a header.
            h.put(
                    pick("X-Fuzz", "Idempotency-Key", "If-Match", "Last-Event-ID"),
                    pick("a\u0000b", "\u00ff\u00fe", "\u65e5\u672c", "a\u0007b"));
            m.add("header-bytes");
            raw = true;
        }
        if (rnd.nextInt(60) == 0) {
            h.put("X-Huge", "h".repeat(9000));
            m.add("huge-header");
        }
        boolean chunked = body != null && !raw && rnd.nextInt(15) == 0;
        if (chunked) {
            m.add("chunked");
        }
        if (m.isEmpty()) {
            m.add("valid-shape");
        }
        return new FuzzHttp.Request(family, String.join(",", m), method, path, h, body, raw, chunked, memoryTarget);
    }

    /** Content-Type: usually JSON, one time in {@code oneIn} something else or nothing. */
    private void contentType(Map<String, String> h, List<String> m, int oneIn) {
        if (rnd.nextInt(oneIn) != 0) {
            return;
        }
        String ct = pick(
                null,
                "text/plain",
                "application/xml",
                "application/x-www-form-urlencoded",
                "multipart/form-data",
                "application/json; charset=ISO-8859-1",
                "application/json; charset=bogus",
                "application/json;;",
                "garbage",
                "application/",
                "application/merge-patch+json",
                "*/*",
                "application/json, text/plain",
                "APPLICATION/JSON",
                "application/json; charset=utf-16");
        if (ct == null) {
            h.remove("Content-Type");
            m.add("content-type:absent");
        } else {
            h.put("Content-Type", ct);
            m.add("content-type:" + ct);
        }
    }

    private void maybe(Map<String, String> h, List<String> m, String header, String... values) {
        if (rnd.nextInt(4) == 0) {
            String v = pick(values);
            h.put(header, v);
            m.add(header.toLowerCase(java.util.Locale.ROOT) + ":" + abbreviate(v));
        }
    }

    private static String abbreviate(String v) {
        return v.length() > 12 ? v.substring(0, 12) + "…" : v;
    }

    /** A path segment that is already encoded: ids that do not exist, traversal, encodings, sizes. */
    private String segment() {
        return pick(
                "nope",
                "",
                "..",
                ".",
                "%2e%2e",
                "%2F",
                "a%2Fb",
                "%5C",
                "..%2F..%2Fetc%2Fpasswd",
                "%00",
                "%0A",
                "%0d%0a",
                "%",
                "%zz",
                "%C3%28",
                "%FF%FE",
                "%E2%80%AE",
                "%E6%97%A5%E6%9C%AC",
                "%F0%9F%94%A5",
                ";",
                ";jsessionid=1",
                "a;b=c",
                "%3B",
                "*",
                "~",
                "%20",
                "+",
                "@",
                "a:b",
                "%25",
                "%252F",
                "%3F",
                "%23",
                "a".repeat(300),
                "a".repeat(5000),
                "a".repeat(9000),
                "%ED%A0%80",
                "%C0%AF",
                "CON",
                "null",
                "undefined",
                "-1",
                "0",
                "9223372036854775808",
                "run_" + "x".repeat(200));
    }

    /** The given id most of the time only when it matters; otherwise an odd segment. */
    private String id(String real) {
        return rnd.nextInt(4) == 0 ? real : segment();
    }

    private String query(String... namesAndValues) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (rnd.nextInt(3) == 0) {
                sb.append(sb.isEmpty() ? '?' : '&')
                        .append(namesAndValues[i])
                        .append('=')
                        .append(encodeQuery(namesAndValues[i + 1]));
            }
        }
        int p = rnd.nextInt(12);
        if (p == 0) {
            sb.append(sb.isEmpty() ? '?' : '&').append("limit=1&limit=2");
        } else if (p == 1) {
            sb.append(sb.isEmpty() ? '?' : '&').append("unknown=").append(encodeQuery("\u00e9x"));
        } else if (p == 2) {
            sb.append(sb.isEmpty() ? '?' : '&').append("%zz=1&=&&a");
        }
        return sb.toString();
    }

    /** Values written as %xx stay as they are (they are the point); everything else is encoded. */
    private static String encodeQuery(String v) {
        return v.contains("%") && !v.equals("%") && !v.startsWith("%%")
                ? v
                : URLEncoder.encode(v, StandardCharsets.UTF_8);
    }

    private String badInt() {
        return pick(
                "0",
                "-1",
                "1",
                "500",
                "501",
                "abc",
                "",
                "1.5",
                "99999999999999999999",
                "2147483648",
                "-2147483649",
                "1e3",
                " 5",
                "0x10");
    }

    private String badTime() {
        return pick(
                "2026-12-01T00:00:00Z",
                "yesterday",
                "",
                "2026-13-45T00:00:00Z",
                "2026-12-01",
                "1733011200",
                "+999999999-12-31T23:59:59Z",
                "-999999999-01-01T00:00:00Z",
                "2026-12-01T00:00:00+25:00");
    }

    // ---------------------------------------------------------------- JSON mutations

    private ObjectNode mutateTree(ObjectNode valid, List<String> m) {
        ObjectNode copy = valid.deepCopy();
        List<String> paths = fieldPaths(copy, "");
        int p = rnd.nextInt(10);
        if (p == 0 || paths.isEmpty()) {
            m.add("json:extra-fields");
            copy.put(pick("unknown", "__proto__", "constructor", "agent ", "AGENT", "\u00e9"), "x");
            copy.set("nested", wrongValue());
            return copy;
        }
        String path = pick(paths);
        switch (p) {
            case 1, 2, 3 -> {
                m.add("json:wrong-type:" + path);
                set(copy, path, wrongValue());
            }
            case 4 -> {
                m.add("json:missing:" + path);
                remove(copy, path);
            }
            case 5 -> {
                m.add("json:null:" + path);
                set(copy, path, NODES.nullNode());
            }
            case 6 -> {
                m.add("json:empty:" + path);
                set(copy, path, NODES.stringNode(pick("", " ", "\t\n")));
            }
            case 7 -> {
                m.add("json:huge:" + path);
                set(copy, path, huge());
            }
            case 8 -> {
                m.add("json:control-chars:" + path);
                set(
                        copy,
                        path,
                        NODES.stringNode(pick(
                                "a\u0000b",
                                "\u0001\u001f\u007f",
                                "\u202eevil",
                                "\ufeffbom",
                                "line\r\nInjected: yes",
                                "\ud800",
                                "\udfff\ud800",
                                "\u2028\u2029",
                                "emoji \ud83d\udd25",
                                "<script>alert(1)</script>")));
            }
            default -> {
                m.add("json:unicode-key");
                copy.put(pick("\u0000", "", "a".repeat(2000), "\ud83d\udd25"), "x");
            }
        }
        return copy;
    }

    private JsonNode wrongValue() {
        return switch (rnd.nextInt(11)) {
            case 0 -> NODES.numberNode(42);
            case 1 -> NODES.numberNode(-1);
            case 2 -> NODES.booleanNode(true);
            case 3 -> NODES.arrayNode().add("a").add(1);
            case 4 -> NODES.objectNode().put("a", 1);
            case 5 -> NODES.nullNode();
            case 6 -> NODES.numberNode(new java.math.BigInteger("123456789012345678901234567890"));
            case 7 -> NODES.numberNode(1.5e300);
            case 8 -> NODES.stringNode("42");
            case 9 -> NODES.arrayNode();
            default -> NODES.objectNode();
        };
    }

    private JsonNode huge() {
        return switch (rnd.nextInt(4)) {
            case 0 -> NODES.stringNode("x".repeat(pick(10_001, 20_000, 70_000)));
            case 1 -> {
                ArrayNode a = NODES.arrayNode();
                for (int i = 0; i < 5000; i++) {
                    a.add(i);
                }
                yield a;
            }
            case 2 -> NODES.stringNode("\u00e9".repeat(9000));
            default -> NODES.numberNode(new java.math.BigDecimal("1e999999"));
        };
    }

    /** Mutations of the serialized text: truncation, invalid UTF-8, not JSON at all, nesting. */
    private byte[] mutateText(byte[] valid, List<String> m) {
        switch (rnd.nextInt(10)) {
            case 0, 1 -> {
                int cut = rnd.nextInt(Math.max(1, valid.length - 1));
                m.add("text:truncated@" + cut);
                return java.util.Arrays.copyOf(valid, cut);
            }
            case 2, 3 -> {
                m.add("text:invalid-utf8");
                byte[][] bad = {
                    {(byte) 0xFF},
                    {(byte) 0xC3, 0x28},
                    {(byte) 0xC0, (byte) 0xAF},
                    {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                    {(byte) 0xE2, (byte) 0x82},
                    {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80}
                };
                // Inside a string value: after the first '":"'.
                String s = new String(valid, StandardCharsets.UTF_8);
                int at = s.indexOf("\":\"");
                at = at < 0 ? rnd.nextInt(valid.length) : at + 3;
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.write(valid, 0, at);
                out.writeBytes(pick(bad));
                out.write(valid, at, valid.length - at);
                return out.toByteArray();
            }
            case 4 -> {
                String body = pick(
                        "",
                        " ",
                        "null",
                        "[]",
                        "42",
                        "\"text\"",
                        "true",
                        "<xml/>",
                        "a=b&c=d",
                        "{",
                        "}",
                        "{}",
                        "[{}]",
                        "{\"a\":1}{\"b\":2}",
                        "{'agent':'x'}",
                        "{\"a\":1,}",
                        "{\"a\":NaN}",
                        "{/*c*/}",
                        "\u0000",
                        "{\"a\":\"\\ud800\"}",
                        "{\"a\":\"\\u00\"}",
                        "{\"a\":01}",
                        "{\"a\":-}");
                m.add("text:not-json:" + abbreviate(body));
                return body.getBytes(StandardCharsets.UTF_8);
            }
            case 5 -> {
                int depth = pick(600, 1200, 5000);
                m.add("text:deep-nesting:" + depth);
                return ("{\"a\":" + "[".repeat(depth) + "]".repeat(depth) + "}").getBytes(StandardCharsets.UTF_8);
            }
            case 6 -> {
                m.add("text:duplicate-keys");
                String s = new String(valid, StandardCharsets.UTF_8);
                int colon = s.indexOf(':');
                String firstKey = colon > 0 ? s.substring(1, colon) : "\"a\"";
                return ("{" + firstKey + ":1," + s.substring(1)).getBytes(StandardCharsets.UTF_8);
            }
            case 7 -> {
                m.add("text:bom");
                byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
                byte[] out = java.util.Arrays.copyOf(bom, bom.length + valid.length);
                System.arraycopy(valid, 0, out, bom.length, valid.length);
                return out;
            }
            case 8 -> {
                m.add("text:utf16");
                return new String(valid, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_16);
            }
            default -> {
                m.add("text:trailing-garbage");
                return (new String(valid, StandardCharsets.UTF_8) + pick(" x", "}", ",", "\u0000", "\n{}"))
                        .getBytes(StandardCharsets.UTF_8);
            }
        }
    }

    private static List<String> fieldPaths(JsonNode node, String prefix) {
        List<String> out = new ArrayList<>();
        if (node instanceof ObjectNode o) {
            for (var e : o.properties()) {
                String p = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
                out.add(p);
                out.addAll(fieldPaths(e.getValue(), p));
            }
        } else if (node instanceof ArrayNode a && !a.isEmpty()) {
            out.addAll(fieldPaths(a.get(0), prefix + ".0"));
        }
        return out;
    }

    private static void set(ObjectNode root, String path, JsonNode value) {
        int dot = path.lastIndexOf('.');
        JsonNode parent = dot < 0 ? root : at(root, path.substring(0, dot));
        String last = path.substring(dot + 1);
        if (parent instanceof ObjectNode o) {
            o.set(last, value);
        } else if (parent instanceof ArrayNode a) {
            a.set(Integer.parseInt(last), value);
        }
    }

    private static void remove(ObjectNode root, String path) {
        int dot = path.lastIndexOf('.');
        JsonNode parent = dot < 0 ? root : at(root, path.substring(0, dot));
        String last = path.substring(dot + 1);
        if (parent instanceof ObjectNode o) {
            o.remove(last);
        } else if (parent instanceof ArrayNode a) {
            a.remove(Integer.parseInt(last));
        }
    }

    private static JsonNode at(JsonNode root, String path) {
        JsonNode n = root;
        for (String part : path.split("\\.")) {
            n = n.isArray() ? n.path(Integer.parseInt(part)) : n.path(part);
        }
        return n;
    }

    private static byte[] bytes(JsonNode node) {
        return JSON.writeValueAsBytes(node);
    }

    @SafeVarargs
    private <T> T pick(T... options) {
        return options[rnd.nextInt(options.length)];
    }

    private <T> T pick(List<T> options) {
        return options.get(rnd.nextInt(options.size()));
    }
}
