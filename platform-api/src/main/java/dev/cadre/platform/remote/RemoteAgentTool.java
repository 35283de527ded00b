package dev.cadre.platform.remote;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.platform.observability.OutboundTraceContext;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Delegation to an agent of another A2A server, as a tool: the task is sent with A2A 0.3's
 * {@code message/send}, followed with {@code tasks/get} (back-off 50 ms to 1 s) until it ends, and its answer
 * artifact comes back as the tool result. The message id is derived from the run, session and tool
 * call, so a run resumed after a crash asks the remote server again with the same id and gets the
 * same task back (A2A servers that honour message ids, Cadre among them, start it only once). The
 * tool span's W3C trace context travels in the request headers, so the remote run joins this trace.
 */
final class RemoteAgentTool implements Tool, dev.cadre.platform.agents.Outward {

    private static final Set<String> TERMINAL = Set.of("completed", "failed", "canceled", "rejected");
    private static final long FIRST_POLL_MILLIS = 50;
    private static final long MAX_POLL_MILLIS = 1_000;

    private final String name;
    private final RemoteAgentsProperties.Remote remote;
    private final HttpClient http;
    private final JsonMapper json;
    private final OutboundTraceContext trace;
    private final JsonNode schema;

    RemoteAgentTool(
            String name,
            RemoteAgentsProperties.Remote remote,
            HttpClient http,
            JsonMapper json,
            OutboundTraceContext trace) {
        this.name = toolName(name);
        this.remote = remote;
        this.http = http;
        this.json = json;
        this.trace = trace;
        this.schema = json.readTree("""
                {"type":"object","required":["task"],"additionalProperties":false,
                 "properties":{"task":{"type":"string","minLength":1,"maxLength":100000,
                   "description":"What the remote agent should do, self-contained: it sees nothing else of this run."}}}
                """);
    }

    static String toolName(String remoteName) {
        String n = ("a2a_" + remoteName).replaceAll("[^A-Za-z0-9_-]", "_");
        return n.length() <= 64 ? n : n.substring(0, 64);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        String what = remote.description() == null
                ? "Delegates a task to the remote agent" + (remote.skill() == null ? "" : " '" + remote.skill() + "'")
                        + " at " + remote.url()
                : remote.description();
        return what + " (remote A2A agent; returns its final answer)";
    }

    @Override
    public JsonNode parametersSchema() {
        return schema;
    }

    @Override
    public Risk risk() {
        return remote.risk();
    }

    @Override
    public String execute(JsonNode arguments, ToolContext context) throws Exception {
        long deadline = System.nanoTime() + remote.timeout().toNanos();
        JsonNode task = call("message/send", sendParams(arguments.get("task").asString(), context), deadline);
        String id = task.path("id").asString("");
        if (id.isEmpty()) {
            throw new ToolException(
                    FailureCategory.COMMUNICATION_ERROR,
                    "remote_malformed",
                    "remote agent " + remote.url() + " answered message/send without a task id");
        }
        long pause = FIRST_POLL_MILLIS;
        try {
            while (!TERMINAL.contains(state(task))) {
                if (System.nanoTime() + pause * 1_000_000 > deadline) {
                    cancelQuietly(id);
                    throw new ToolException(
                            FailureCategory.TIMEOUT_ERROR,
                            "remote_timeout",
                            "remote task " + id + " at " + remote.url() + " did not end within " + remote.timeout()
                                    + " (last state: " + state(task) + "); it was asked to cancel");
                }
                Thread.sleep(pause);
                pause = Math.min(MAX_POLL_MILLIS, pause * 2);
                ObjectNode get = json.createObjectNode().put("id", id).put("historyLength", 0);
                task = call("tasks/get", get, deadline);
            }
        } catch (InterruptedException e) {
            // This run was cancelled or timed out: the remote task should not go on alone.
            cancelQuietly(id);
            throw e;
        }
        return outcome(id, task);
    }

    private ObjectNode sendParams(String text, ToolContext context) {
        ObjectNode params = json.createObjectNode();
        ObjectNode message = params.putObject("message");
        message.put("kind", "message");
        message.put("role", "user");
        message.put("messageId", messageId(context));
        message.putArray("parts").addObject().put("kind", "text").put("text", text);
        if (remote.skill() != null) {
            message.putObject("metadata").put("skill", remote.skill());
        }
        ObjectNode config = params.putObject("configuration");
        // Not blocking: the task id comes back at once, so a timeout or cancellation here can
        // cancel the remote task, and no HTTP request is held open for minutes.
        config.put("blocking", false);
        config.putArray("acceptedOutputModes").add("text/plain");
        return params;
    }

    /** Stable for one tool call of one run: a resumed run re-sends the same id, never a new task. */
    static String messageId(ToolContext c) {
        String key = c.runId() + "\n" + c.sessionId() + "\n" + c.callId();
        return "cadre-" + UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8));
    }

    private String outcome(String id, JsonNode task) throws ToolException {
        String state = state(task);
        if (state.equals("completed")) {
            StringBuilder out = new StringBuilder();
            for (JsonNode artifact : task.path("artifacts")) {
                for (JsonNode part : artifact.path("parts")) {
                    if (part.path("text").isString()) {
                        out.append(out.isEmpty() ? "" : "\n")
                                .append(part.get("text").asString());
                    }
                }
            }
            if (out.isEmpty()) {
                out.append(statusText(task));
            }
            return out.toString();
        }
        JsonNode error = task.path("metadata").path("error");
        FailureCategory category = category(error.path("category").asString(""));
        String detail = statusText(task);
        throw new ToolException(
                state.equals("failed") ? category : FailureCategory.EXECUTION_ERROR,
                "remote_" + state,
                "remote task " + id + " at " + remote.url() + " ended " + state
                        + (detail.isEmpty() ? "" : ": " + detail));
    }

    private static FailureCategory category(String name) {
        for (FailureCategory c : FailureCategory.values()) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return FailureCategory.EXECUTION_ERROR;
    }

    private static String state(JsonNode task) {
        return task.path("status").path("state").asString("").toLowerCase(Locale.ROOT);
    }

    private static String statusText(JsonNode task) {
        StringBuilder out = new StringBuilder();
        for (JsonNode part : task.path("status").path("message").path("parts")) {
            if (part.path("text").isString()) {
                out.append(out.isEmpty() ? "" : " ").append(part.get("text").asString());
            }
        }
        return out.toString();
    }

    private void cancelQuietly(String id) {
        try {
            call("tasks/cancel", json.createObjectNode().put("id", id), System.nanoTime() + 5_000_000_000L);
        } catch (Exception ignored) {
            // Best effort: the remote server's own budgets end the task otherwise.
        }
    }

    /** One JSON-RPC call; the result object, or a ToolException that says what went wrong. */
    private JsonNode call(String method, ObjectNode params, long deadline) throws ToolException, InterruptedException {
        ObjectNode body = json.createObjectNode();
        body.put("jsonrpc", "2.0");
        body.put("id", HexFormat.of().toHexDigits(System.nanoTime()));
        body.put("method", method);
        body.set("params", params);
        long left = Math.max(1, deadline - System.nanoTime());
        HttpRequest.Builder request = HttpRequest.newBuilder(remote.url())
                .timeout(Duration.ofNanos(left))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (remote.apiKey() != null && !remote.apiKey().isBlank()) {
            request.header("Authorization", "Bearer " + remote.apiKey());
        }
        trace.headers().forEach(request::header);
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new ToolException(
                    FailureCategory.TIMEOUT_ERROR,
                    "remote_timeout",
                    "remote agent " + remote.url() + " did not answer " + method + " within " + remote.timeout());
        } catch (IOException e) {
            throw new ToolException(
                    FailureCategory.COMMUNICATION_ERROR,
                    "remote_unreachable",
                    "remote agent " + remote.url() + " is unreachable: " + e);
        }
        if (response.statusCode() != 200) {
            throw new ToolException(
                    FailureCategory.COMMUNICATION_ERROR,
                    "remote_http_" + response.statusCode(),
                    "remote agent " + remote.url() + " answered " + method + " with HTTP " + response.statusCode()
                            + summary(response.body()));
        }
        JsonNode answer;
        try {
            answer = json.readTree(response.body());
        } catch (RuntimeException e) {
            throw new ToolException(
                    FailureCategory.COMMUNICATION_ERROR,
                    "remote_malformed",
                    "remote agent " + remote.url() + " answered " + method + " with something that is not JSON"
                            + summary(response.body()));
        }
        if (answer.has("error")) {
            JsonNode e = answer.get("error");
            throw new ToolException(
                    FailureCategory.COMMUNICATION_ERROR,
                    "remote_rpc_" + e.path("code").asInt(0),
                    "remote agent " + remote.url() + " refused " + method + ": "
                            + e.path("message").asString("(no message)"));
        }
        JsonNode result = answer.path("result");
        // 1.0 servers wrap the task ({"task": …}); 0.3 servers answer the task itself.
        JsonNode task = result.has("task") ? result.get("task") : result;
        if (!task.isObject()) {
            throw new ToolException(
                    FailureCategory.COMMUNICATION_ERROR,
                    "remote_malformed",
                    "remote agent " + remote.url() + " answered " + method + " without a task");
        }
        return task;
    }

    private static String summary(@Nullable String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        String b = body.strip().replaceAll("\\s+", " ");
        return ": " + (b.length() <= 200 ? b : b.substring(0, 200) + "…");
    }
}
