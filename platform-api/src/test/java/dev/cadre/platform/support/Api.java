package dev.cadre.platform.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small real HTTP client for tests: every call goes through the servlet container and filters. */
public final class Api {

    public static final String ADMIN_KEY = "test-admin-key-0123456789-abcdefghijk";

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient client;
    private final java.net.CookieManager cookies;
    private final String base;

    public Api(int port) {
        this(port, false);
    }

    private Api(int port, boolean withCookies) {
        this.base = "http://127.0.0.1:" + port;
        this.cookies = withCookies ? new java.net.CookieManager() : null;
        this.client =
                withCookies ? HttpClient.newBuilder().cookieHandler(cookies).build() : HttpClient.newHttpClient();
    }

    /** A client that keeps cookies, like a browser using the console. */
    public static Api browser(int port) {
        return new Api(port, true);
    }

    /** The value of a cookie this browser-like client holds, or null. */
    public String cookie(String name) {
        return cookies.getCookieStore().getCookies().stream()
                .filter(c -> c.getName().equals(name))
                .map(java.net.HttpCookie::getValue)
                .findFirst()
                .orElse(null);
    }

    /** A response with its body parsed as JSON when it is JSON. */
    public record Response(int status, Map<String, String> headers, String body) {
        public JsonNode json() {
            return JSON.readTree(body);
        }

        public String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    public Response get(String path, String key) {
        return send("GET", path, key, null, Map.of());
    }

    public Response post(String path, String key, String json) {
        return send("POST", path, key, json, Map.of());
    }

    /**
     * Approves as the console does: reads the approval with {@code key} and sends back the hashes of
     * what it shows ({@code argumentsHash}, and {@code editedArgumentsHash} when edits are proposed).
     */
    public Response approve(String approvalId, String key) {
        return approve(approvalId, key, "{}");
    }

    /** As {@link #approve(String, String)} with the other fields of {@code body} (a JSON object) added. */
    public Response approve(String approvalId, String key, String body) {
        Response read = get("/api/v1/approvals/" + approvalId, key);
        if (read.status() != 200) {
            return read;
        }
        var seen = read.json();
        var request = (tools.jackson.databind.node.ObjectNode) JSON.readTree(body == null ? "{}" : body);
        if (!request.has("argumentsHash")) {
            request.set("argumentsHash", seen.get("argumentsHash"));
        }
        if (!request.has("editedArgumentsHash") && seen.hasNonNull("editedArgumentsHash")) {
            request.set("editedArgumentsHash", seen.get("editedArgumentsHash"));
        }
        return post("/api/v1/approvals/" + approvalId + "/approve", key, request.toString());
    }

    public Response send(String method, String path, String key, String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        headers.forEach(b::header);
        if (body != null && !headers.containsKey("Content-Type")) {
            b.header("Content-Type", "application/json");
        }
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
            HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
            Map<String, String> h = new LinkedHashMap<>();
            r.headers().map().forEach((k, v) -> h.put(k.toLowerCase(java.util.Locale.ROOT), String.join(", ", v)));
            return new Response(r.statusCode(), h, r.body());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Submits a run with the admin key; fails the test unless it is accepted (202). */
    public JsonNode submitRun(String agent, String input) {
        Response r = post("/api/v1/runs", ADMIN_KEY, json(java.util.Map.of("agent", agent, "input", input)));
        if (r.status() != 202) {
            throw new AssertionError("run of " + agent + " not accepted: " + r.status() + " " + r.body());
        }
        return r.json();
    }

    /** Waits until the run has ended and returns its final representation. */
    public JsonNode awaitRunEnd(String runId) {
        return awaitRunEnd(runId, ADMIN_KEY);
    }

    /** The same, read with {@code key} (a run of another team than the admin key's is read by one of that team). */
    public JsonNode awaitRunEnd(String runId, String key) {
        return Await.until(
                "run " + runId + " to end",
                () -> get("/api/v1/runs/" + runId, key).json(),
                j -> j.path("status").asString("").matches(TERMINAL));
    }

    /**
     * Waits until the run waits for a human on a pending approval and returns that one approval. The
     * condition is the pending approval, not the status alone: right after an earlier approval of
     * the same run was decided the run still shows {@code input-required} (the decision has not
     * taken effect yet) while nothing is pending any more.
     */
    public JsonNode pendingApprovalOf(String runId) {
        JsonNode items = Await.until(
                "run " + runId + " to wait for a human on a pending approval",
                () -> {
                    String status = status(runId);
                    if (status.matches(TERMINAL)) {
                        throw new AssertionError(
                                "run " + runId + " ended " + status + " instead of waiting for a human");
                    }
                    return status.equals("input-required") ? pendingOf(runId) : null;
                },
                pending -> pending != null && !pending.isEmpty());
        if (items.size() != 1) {
            throw new AssertionError("expected one pending approval of " + runId + ", found " + items);
        }
        return items.get(0);
    }

    /**
     * Waits for what deciding the approvals {@code decided} of a waiting run causes: the run ends,
     * or it waits on a pending approval that is not one of them. The status right after a decision
     * is still {@code input-required} (the run has not taken the decision yet), so that status
     * alone never satisfies this wait. Returns the run.
     */
    public JsonNode awaitPastDecisions(String runId, java.util.Collection<String> decided) {
        return Await.until("run " + runId + " to go on after deciding " + decided, () -> run(runId), j -> {
            String status = j.get("status").asString();
            return status.matches(TERMINAL)
                    || status.equals("input-required")
                            && pendingOf(runId)
                                    .valueStream()
                                    .anyMatch(a -> !decided.contains(a.get("id").asString()));
        });
    }

    /**
     * Waits until the run's whole trace is in the trace store and returns it: spans reach the store
     * in batches after they end, children before their parent, so the trace is whole once the run's
     * own root span ({@code invoke_agent <agent>} or {@code invoke_workflow <workflow>}) is its one
     * root. A span count is not a condition: a partial trace of another run's size satisfies it.
     */
    public JsonNode awaitTrace(String runId) {
        String agent = run(runId).get("agent").asString();
        return Await.until(
                "the whole trace of " + runId + " (its root span) in the trace store",
                () -> get("/api/v1/runs/" + runId + "/trace", ADMIN_KEY).json(),
                t -> t.get("roots").size() == 1
                        && t.get("roots")
                                .get(0)
                                .get("name")
                                .asString()
                                .matches("invoke_(agent|workflow) " + java.util.regex.Pattern.quote(agent)));
    }

    private static final String TERMINAL = "completed|failed|canceled|rejected";

    private JsonNode run(String runId) {
        return get("/api/v1/runs/" + runId, ADMIN_KEY).json();
    }

    private String status(String runId) {
        return run(runId).get("status").asString();
    }

    private JsonNode pendingOf(String runId) {
        return get("/api/v1/approvals?status=pending&runId=" + runId, ADMIN_KEY)
                .json()
                .get("items");
    }

    public static String json(Object value) {
        return JSON.writeValueAsString(value);
    }
}
