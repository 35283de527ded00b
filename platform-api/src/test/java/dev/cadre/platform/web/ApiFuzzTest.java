package dev.cadre.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Fuzzes every route of the REST and A2A APIs with thousands of seeded, malformed requests over
 * real HTTP and checks each answer: never a 5xx; every REST error an RFC 9457 problem (type,
 * title, status, detail); every A2A JSON-RPC answer a JSON-RPC response whose error object follows
 * the spec. Then checks that the platform still works and that no rejected request left anything
 * behind (runs, memory versions, API keys, approval decisions).
 *
 * <p>Rerun a failure with {@code -Dcadre.fuzz.seed=<seed>}; {@code -Dcadre.fuzz.requests=<n>}
 * changes how many requests are sent.
 */
@PlatformTest
class ApiFuzzTest {

    static final long DEFAULT_SEED = 20261202L;
    static final int DEFAULT_REQUESTS = 3000;
    /** Concurrent clients: the server handles requests side by side, and the run takes less wall time. */
    static final int CLIENTS = 4;

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern RUN_ID = Pattern.compile("run_[A-Za-z0-9_-]+");
    private static final Pattern SEND_METHOD = Pattern.compile(
            "\"method\"\\s*:\\s*\"\\s*(SendMessage|SendStreamingMessage|message/send|message/stream|sendmessage)");

    private static final Pattern GENERIC_DETAIL = Pattern.compile(
            "(?s)(Bad Request|Unsupported Media Type|Method Not Allowed|Not Acceptable) for (\\S+ )?/.*");

    @LocalServerPort
    int port;

    @Test
    void malformedRequests_getA4xxProblemOrAJsonRpcError_neverA5xx_andLeaveNothingBehind() throws Exception {
        long seed = Long.getLong("cadre.fuzz.seed", DEFAULT_SEED);
        int count = Integer.getInteger("cadre.fuzz.requests", DEFAULT_REQUESTS);
        System.out.println("ApiFuzzTest: seed " + seed + ", " + count + " requests (rerun: -Dcadre.fuzz.seed=" + seed
                + " -Dcadre.fuzz.requests=" + count + ")");

        Api api = new Api(port);
        FuzzRequests.Fixture fx = fixture(api);
        Instant start = Instant.now();
        Set<String> keysBefore = keyIds(api);
        Map<String, Integer> historyBefore = new HashMap<>();
        for (String key : FuzzRequests.MEMORY_KEYS) {
            historyBefore.put(key, historySize(api, fx.memoryNamespace(), key));
        }

        FuzzRequests generator = new FuzzRequests(new Random(seed), fx);
        List<String> violations = new ArrayList<>();
        Map<String, Integer> byFamily = new TreeMap<>();
        Map<String, Integer> byMutation = new TreeMap<>();
        Map<Integer, Integer> byStatus = new TreeMap<>();
        Map<String, Long> millisByFamily = new TreeMap<>();
        Map<String, Set<String>> details = new TreeMap<>();
        Map<String, Integer> problemTypes = new TreeMap<>();
        Set<String> createdRuns = new HashSet<>(Set.of(fx.runId()));
        Set<String> createdKeys = new HashSet<>();
        Map<String, Integer> memoryWrites = new HashMap<>();
        boolean approvalDecided = false;
        long began = System.nanoTime();

        // Generated up front from the seed alone, so the requests are the same whatever the
        // timing; sent by a few clients at once, as a server meets them.
        List<FuzzHttp.Request> requests = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            requests.add(generator.next());
        }
        FuzzHttp.Response[] responses = new FuzzHttp.Response[count];
        String[] failures = new String[count];
        long[] took = new long[count];
        try (FuzzHttp http = new FuzzHttp(port);
                ExecutorService clients = Executors.newFixedThreadPool(CLIENTS)) {
            List<Future<?>> lanes = new ArrayList<>();
            for (int lane = 0; lane < CLIENTS; lane++) {
                int first = lane;
                lanes.add(clients.submit(() -> {
                    for (int i = first; i < count; i += CLIENTS) {
                        long sent = System.nanoTime();
                        try {
                            responses[i] = http.send(requests.get(i));
                        } catch (java.io.IOException e) {
                            failures[i] = "no answer: " + e;
                        }
                        took[i] = (System.nanoTime() - sent) / 1_000_000;
                    }
                    return null;
                }));
            }
            for (Future<?> lane : lanes) {
                lane.get();
            }
        }
        for (int i = 0; i < count; i++) {
            FuzzHttp.Request q = requests.get(i);
            FuzzHttp.Response r = responses[i];
            if (r == null) {
                violations.add(describe(i, q, null, failures[i]));
                continue;
            }
            millisByFamily.merge(q.family(), took[i], Long::sum);
            byFamily.merge(q.family(), 1, Integer::sum);
            for (String m : q.mutation().split(",")) {
                byMutation.merge(m.replaceAll("[:@].*", ""), 1, Integer::sum);
            }
            byStatus.merge(r.status(), 1, Integer::sum);
            for (String problem : check(q, r)) {
                violations.add(describe(i, q, r, problem));
            }
            if (r.contentType().startsWith("application/problem+json")) {
                String type = r.status() + " " + field(r.body(), "type");
                problemTypes.merge(type, 1, Integer::sum);
                details.computeIfAbsent(type, t -> new java.util.TreeSet<>())
                        .add(prefix(field(r.body(), "detail").replaceAll("[0-9a-f-]{36}|run_[0-9a-f]{32}", "…"), 90));
            }
            boolean ok = r.status() >= 200 && r.status() < 300;
            if (ok && creates(q, r)) {
                Matcher m = RUN_ID.matcher(r.body());
                while (m.find()) {
                    createdRuns.add(m.group());
                }
            }
            if (ok && q.family().equals("keys") && q.method().equals("POST")) {
                createdKeys.add(JSON.readTree(r.body()).path("key").path("id").asString());
            }
            if (ok && q.memoryTarget() != null) {
                memoryWrites.merge(q.memoryTarget(), 1, Integer::sum);
            }
            if (ok && q.family().equals("approvals.decide") && q.path().contains(fx.approvalId())) {
                approvalDecided = true;
            }
        }
        long millis = (System.nanoTime() - began) / 1_000_000;
        System.out.println("ApiFuzzTest: " + count + " requests in " + millis + " ms");
        System.out.println("  by route family: " + byFamily);
        System.out.println("  by mutation class: " + byMutation);
        System.out.println("  by status: " + byStatus);
        System.out.println("  problem types: " + problemTypes);
        System.out.println("  ms by route family: " + millisByFamily);
        if (Boolean.getBoolean("cadre.fuzz.details")) {
            details.forEach((type, ds) -> System.out.println("  " + type + ": " + ds.size() + " distinct details, e.g. "
                    + ds.stream().limit(4).toList()));
        }

        // Still healthy, and still working.
        var health = api.get("/actuator/health", null);
        if (health.status() != 200 || !health.body().contains("UP")) {
            violations.add("after fuzzing, /actuator/health answers " + health.status() + " " + health.body());
        }

        // Nothing half-written: every run, memory version, key and decision comes from a 2xx.
        for (String run : runsSince(api, start)) {
            if (!createdRuns.contains(run)) {
                violations.add("run " + run + " exists but no successful request created it: "
                        + api.get("/api/v1/runs/" + run, Api.ADMIN_KEY).body());
            }
        }
        for (String key : FuzzRequests.MEMORY_KEYS) {
            int expected = historyBefore.get(key) + memoryWrites.getOrDefault(fx.memoryNamespace() + "/" + key, 0);
            int actual = historySize(api, fx.memoryNamespace(), key);
            if (actual != expected) {
                violations.add("memory " + fx.memoryNamespace() + "/" + key + " has " + actual + " versions, but only "
                        + expected + " writes succeeded");
            }
        }
        Set<String> newKeys = keyIds(api);
        newKeys.removeAll(keysBefore);
        newKeys.removeAll(createdKeys);
        if (!newKeys.isEmpty()) {
            violations.add("API keys " + newKeys + " exist but no successful request created them");
        }
        JsonNode approvalView =
                api.get("/api/v1/approvals/" + fx.approvalId(), Api.ADMIN_KEY).json();
        String approval = approvalView.get("status").asString();
        createdRuns.add(approvalView.get("runId").asString());
        if (approvalDecided == approval.equals("pending")) {
            violations.add("approval " + fx.approvalId() + " is " + approval + " but a successful decision was "
                    + (approvalDecided ? "" : "not ") + "seen");
        }

        // Cancel what the fuzz left running (alert triage may wait for a human, and a waiting run
        // holds an execution slot), then check a plain run still goes through.
        for (String run : createdRuns) {
            api.post("/api/v1/runs/" + run + "/cancel", Api.ADMIN_KEY, null);
        }
        String after = api.submitRun("probe-a", "still working after the fuzz?")
                .get("id")
                .asString();
        try {
            if (!api.awaitRunEnd(after).get("status").asString().equals("completed")) {
                violations.add("after fuzzing, a plain run does not complete");
            }
        } catch (AssertionError e) {
            violations.add("after fuzzing, a plain run does not end: " + e.getMessage());
        }

        assertThat(violations)
                .as("seed " + seed + ": " + violations.size() + " violations\n" + String.join("\n", violations))
                .isEmpty();
    }

    // ---------------------------------------------------------------- the oracle

    /** What is wrong with the answer to one request (empty: nothing). */
    static List<String> check(FuzzHttp.Request q, FuzzHttp.Response r) {
        List<String> out = new ArrayList<>();
        if (r.status() >= 500) {
            out.add("5xx");
        }
        if (r.body().contains("\tat ")
                || r.body().matches("(?s).*\\bat (dev\\.cadre|org\\.springframework|java\\.).*")) {
            out.add("stack trace in the body");
        }
        boolean rpc = q.method().equals("POST") && isA2aEndpoint(q.path()) && r.status() != 404;
        if (rpc && (r.status() == 200 || r.status() == 415)) {
            out.addAll(checkJsonRpc(r));
        } else if (r.status() >= 400) {
            out.addAll(checkProblem(q, r));
        }
        return out;
    }

    private static boolean isA2aEndpoint(String path) {
        return path.equals("/a2a");
    }

    /** RFC 9457: problem+json with type, title, status (the HTTP status) and a detail. */
    private static List<String> checkProblem(FuzzHttp.Request q, FuzzHttp.Response r) {
        List<String> out = new ArrayList<>();
        if (!r.contentType().startsWith("application/problem+json")) {
            out.add("error without application/problem+json (Content-Type '" + r.contentType() + "')");
            return out;
        }
        if (q.method().equals("HEAD")) {
            return out; // no body by definition
        }
        JsonNode pd;
        try {
            pd = JSON.readTree(r.body());
        } catch (RuntimeException e) {
            out.add("problem body is not JSON");
            return out;
        }
        for (String member : List.of("type", "title", "detail")) {
            if (!pd.path(member).isString() || pd.path(member).asString().isBlank()) {
                out.add("problem without '" + member + "'");
            }
        }
        // "Bad Request for /x" restates the status: the detail must say what was wrong.
        if (r.status() != 404
                && GENERIC_DETAIL.matcher(pd.path("detail").asString("")).matches()) {
            out.add("problem detail does not say what was wrong");
        }
        if (pd.path("status").asInt(-1) != r.status()) {
            out.add("problem status " + pd.path("status") + " is not the HTTP status");
        }
        return out;
    }

    /**
     * JSON-RPC 2.0 as A2A uses it: HTTP 200 (415 for a non-JSON Content-Type), a response object
     * with {@code jsonrpc: "2.0"}, an id, and either a result or an error with an integer code
     * and a message — never -32603, the code of Cadre's own faults. A stream's first event is one.
     */
    private static List<String> checkJsonRpc(FuzzHttp.Response r) {
        List<String> out = new ArrayList<>();
        String body = r.body();
        if (r.contentType().startsWith("text/event-stream")) {
            int data = body.indexOf("data:");
            if (data < 0) {
                out.add("A2A stream without a first event");
                return out;
            }
            int end = body.indexOf('\n', data);
            body = body.substring(data + 5, end < 0 ? body.length() : end).strip();
        } else if (!r.contentType().startsWith("application/json")) {
            out.add("A2A answer neither JSON nor an event stream (Content-Type '" + r.contentType() + "')");
            return out;
        }
        JsonNode msg;
        try {
            msg = JSON.readTree(body);
        } catch (RuntimeException e) {
            out.add("A2A answer is not JSON");
            return out;
        }
        if (!"2.0".equals(msg.path("jsonrpc").asString(null))) {
            out.add("A2A answer without jsonrpc: \"2.0\"");
        }
        if (!msg.has("id")) {
            out.add("A2A answer without id");
        }
        boolean hasResult = msg.has("result");
        JsonNode error = msg.get("error");
        if (hasResult == (error != null)) {
            out.add("A2A answer needs exactly one of result and error");
        }
        if (error != null) {
            if (!error.path("code").isIntegralNumber() || !error.path("message").isString()) {
                out.add("A2A error object without integer code and string message");
            } else if (error.path("code").asInt() == -32603) {
                out.add("A2A internal error (-32603)");
            }
        }
        if (r.status() == 415 && error == null) {
            out.add("A2A 415 without a JSON-RPC error");
        }
        return out;
    }

    /** Requests whose success creates a run: their answers name it. */
    private static boolean creates(FuzzHttp.Request q, FuzzHttp.Response r) {
        return switch (q.family()) {
            case "runs.submit", "alertmanager" -> q.method().equals("POST");
            case "a2a.rpc" ->
                q.body() != null
                        && SEND_METHOD
                                .matcher(new String(q.body(), StandardCharsets.UTF_8))
                                .find()
                        && !r.body().contains("\"error\"");
            default -> false;
        };
    }

    private static String describe(int i, FuzzHttp.Request q, FuzzHttp.Response r, String problem) {
        String body = q.body() == null ? "" : new String(q.body(), StandardCharsets.UTF_8);
        return "#" + i + " " + problem + "\n    " + q.method() + " " + prefix(q.path(), 160) + "  [" + q.family() + ": "
                + prefix(q.mutation(), 160) + "]" + (q.raw() ? " (raw socket)" : "")
                + "\n    headers " + prefix(String.valueOf(q.headers()), 200)
                + "\n    body    " + prefix(body, 200)
                + (r == null ? "" : "\n    -> " + r.status() + " " + r.contentType() + " " + prefix(r.body(), 300));
    }

    private static String prefix(String s, int max) {
        String flat = s.replace("\n", "\\n").replace("\r", "\\r");
        return flat.length() <= max ? flat : flat.substring(0, max) + "…(" + s.length() + " chars)";
    }

    private static String field(String body, String name) {
        try {
            return JSON.readTree(body).path(name).asString("?");
        } catch (RuntimeException e) {
            return "?";
        }
    }

    // ---------------------------------------------------------------- fixture and after-checks

    private static FuzzRequests.Fixture fixture(Api api) {
        String viewer = newKey(api, "viewer");
        String operator = newKey(api, "operator");
        String runId = api.submitRun("probe-a", "fuzz fixture").get("id").asString();
        api.awaitRunEnd(runId);
        String waiting =
                api.submitRun("fixer", "restart api on web-1").get("id").asString();
        String approvalId = api.pendingApprovalOf(waiting).get("id").asString();
        var put = api.send(
                "PUT",
                "/api/v1/memory/" + FuzzRequests.MEMORY_NAMESPACE + "/seeded",
                Api.ADMIN_KEY,
                "{\"seeded\":true}",
                Map.of("If-None-Match", "*"));
        assertThat(put.status()).as(put.body()).isEqualTo(201);
        return new FuzzRequests.Fixture(
                Api.ADMIN_KEY, operator, viewer, runId, approvalId, FuzzRequests.MEMORY_NAMESPACE, "seeded");
    }

    private static String newKey(Api api, String role) {
        var r = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", "fuzz-" + role, "role", role)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("secret").asString();
    }

    private static Set<String> keyIds(Api api) {
        Set<String> ids = new HashSet<>();
        api.get("/api/v1/keys", Api.ADMIN_KEY)
                .json()
                .forEach(k -> ids.add(k.get("id").asString()));
        return ids;
    }

    private static int historySize(Api api, String namespace, String key) {
        var r = api.get("/api/v1/memory/" + namespace + "/" + key + "/history", Api.ADMIN_KEY);
        if (r.status() == 404) {
            return 0;
        }
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("versions").size();
    }

    private static List<String> runsSince(Api api, Instant start) {
        List<String> ids = new ArrayList<>();
        String cursor = "";
        while (true) {
            JsonNode page = api.get("/api/v1/runs?limit=500&cursor=" + cursor + "&from=" + start, Api.ADMIN_KEY)
                    .json();
            page.get("items").forEach(run -> ids.add(run.get("id").asString()));
            if (!page.get("hasMore").asBoolean()) {
                return ids;
            }
            cursor = page.get("nextCursor").asString();
        }
    }
}
