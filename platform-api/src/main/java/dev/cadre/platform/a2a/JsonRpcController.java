package dev.cadre.platform.a2a;

import dev.cadre.platform.a2a.A2aMethod.Call;
import dev.cadre.platform.a2a.A2aMethod.Dialect;
import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.web.SecretRedactor;
import dev.cadre.platform.web.SseHeartbeat;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The A2A JSON-RPC 2.0 endpoint, {@code POST /a2a}: the A2A 1.0 methods and their 0.3 names over
 * Cadre's runs. Every answer is a JSON-RPC response with HTTP 200 — errors included, because A2A
 * clients read the error object only from a successful HTTP response — except a body that is not
 * JSON at all by its declared type (415). Streaming methods answer {@code text/event-stream}, each
 * {@code data:} a JSON-RPC response. Nothing a client sends makes it answer 5xx or a stack trace.
 */
@RestController
class JsonRpcController {

    private static final Logger log = LoggerFactory.getLogger(JsonRpcController.class);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final A2aTasks tasks;
    private final TaskStreams streams;
    private final JsonMapper json;
    private final SecretRedactor redactor;

    JsonRpcController(A2aTasks tasks, TaskStreams streams, JsonMapper json, SecretRedactor redactor) {
        this.redactor = redactor;
        this.tasks = tasks;
        this.streams = streams;
        // "{…} trailing garbage" is not one JSON-RPC request.
        this.json = json.rebuild()
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
    }

    /** A request that passed the JSON-RPC envelope checks. */
    record Request(JsonNode id, Call call, @Nullable ObjectNode params) {}

    /** The messages are the A2A specification's, not described again here. */
    private static final String JSON_RPC = "A JSON-RPC 2.0 message; params and result as the A2A specification defines";

    @Operation(summary = "A2A JSON-RPC 2.0: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, …")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(
            required = true,
            description = "One JSON-RPC 2.0 request object (no batches)",
            content =
                    @Content(
                            mediaType = MediaType.APPLICATION_JSON_VALUE,
                            schema = @Schema(type = "object", description = JSON_RPC)))
    @ApiResponse(
            responseCode = "200",
            description = "A JSON-RPC response, errors included; the streaming methods answer server-sent events,"
                    + " each data line a JSON-RPC response",
            content = {
                @Content(
                        mediaType = MediaType.APPLICATION_JSON_VALUE,
                        schema = @Schema(type = "object", description = JSON_RPC)),
                @Content(mediaType = MediaType.TEXT_EVENT_STREAM_VALUE, schema = @Schema(type = "string"))
            })
    @ApiResponse(
            responseCode = "415",
            description = "The body is not JSON by its Content-Type: a JSON-RPC error response",
            content =
                    @Content(
                            mediaType = MediaType.APPLICATION_JSON_VALUE,
                            schema = @Schema(type = "object", description = JSON_RPC)))
    @PostMapping("/a2a")
    void handle(
            HttpServletRequest httpRequest,
            @AuthenticationPrincipal CadrePrincipal caller,
            HttpServletResponse response)
            throws IOException {
        // The body and its type are read here, not by Spring MVC: a Content-Type that does not even
        // parse ("garbage", "application/") would otherwise be refused before this method, with a
        // problem-details body instead of a JSON-RPC error.
        String contentType = httpRequest.getContentType();
        if (contentType != null && !isJson(contentType)) {
            writeJson(
                    response,
                    HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE,
                    error(
                            NODES.nullNode(),
                            new JsonRpcException(
                                    JsonRpcException.INVALID_REQUEST,
                                    "Invalid Request: Content-Type must be application/json, was '" + contentType
                                            + "'")));
            return;
        }
        byte[] body = httpRequest.getInputStream().readAllBytes();
        Request request;
        try {
            request = parse(body);
        } catch (Envelope e) {
            writeJson(response, HttpServletResponse.SC_OK, error(e.id, e.error));
            return;
        }
        if (request.call().method().streaming()) {
            stream(request, caller, response);
            return;
        }
        ObjectNode answer;
        try {
            answer = success(request.id(), call(request, caller));
        } catch (JsonRpcException e) {
            answer = error(request.id(), e);
        } catch (RuntimeException e) {
            answer = error(request.id(), internal(request, e));
        }
        writeJson(response, HttpServletResponse.SC_OK, answer);
    }

    private JsonNode call(Request request, CadrePrincipal caller) {
        Dialect dialect = request.call().dialect();
        ObjectNode params = request.params() == null ? NODES.objectNode() : request.params();
        return switch (request.call().method()) {
            case SEND -> {
                A2aTasks.SendRequest send = tasks.parseSend(params, caller);
                RunRecord run = tasks.submit(send, caller);
                if (send.blocking()) {
                    run = tasks.awaitSettled(run.id());
                }
                yield TaskWire.sendResult(
                        TaskWire.task(tasks.snapshot(run), dialect, send.historyLength(), true), dialect);
            }
            case GET -> {
                String id = A2aTasks.taskId(params);
                Integer historyLength = A2aTasks.historyLength(params); // a bad param first, then the lookup
                yield TaskWire.task(tasks.snapshot(tasks.find(id, caller)), dialect, historyLength, true);
            }
            case CANCEL -> {
                String id = tasks.find(A2aTasks.taskId(params), caller).id();
                yield TaskWire.task(tasks.snapshot(tasks.cancel(id, caller)), dialect, null, true);
            }
            case LIST -> {
                A2aTasks.ListRequest q = tasks.parseList(params);
                A2aTasks.Page page = tasks.list(q, caller);
                ObjectNode result = NODES.objectNode();
                var array = result.putArray("tasks");
                page.tasks()
                        .forEach(t -> array.add(TaskWire.task(t, dialect, q.historyLength(), q.includeArtifacts())));
                result.put("nextPageToken", page.nextPageToken());
                result.put("pageSize", page.pageSize());
                result.put("totalSize", page.totalSize());
                yield result;
            }
            case STREAM, SUBSCRIBE -> throw new IllegalStateException("streaming method " + request.call());
        };
    }

    private void stream(Request request, CadrePrincipal caller, HttpServletResponse response) throws IOException {
        // Counted with the run event streams (429 with Retry-After beyond the caps), before any task
        // is created, and held until the stream ends.
        try (SseHeartbeat.Slot slot = streams.admit()) {
            streamInSlot(request, caller, response);
        }
    }

    private void streamInSlot(Request request, CadrePrincipal caller, HttpServletResponse response) throws IOException {
        Dialect dialect = request.call().dialect();
        ObjectNode params = request.params() == null ? NODES.objectNode() : request.params();
        String taskId;
        long after;
        try {
            if (request.call().method() == A2aMethod.STREAM) {
                taskId = tasks.submit(tasks.parseSend(params, caller), caller).id();
                after = 0;
            } else {
                taskId = A2aTasks.taskId(params);
                RunRecord run = tasks.find(taskId, caller);
                if (run.status().terminal()) {
                    throw new JsonRpcException(
                                    JsonRpcException.UNSUPPORTED_OPERATION,
                                    "Unsupported operation: task " + taskId + " is already "
                                            + run.status().wire() + "; read it with GetTask")
                            .with("taskId", taskId);
                }
                after = streams.lastSeq(taskId);
            }
        } catch (JsonRpcException e) {
            startSse(response);
            sse(response, error(request.id(), e));
            return;
        } catch (RuntimeException e) {
            startSse(response);
            sse(response, error(request.id(), internal(request, e)));
            return;
        }
        startSse(response);
        try {
            streams.follow(taskId, dialect, after, new TaskStreams.Sink() {
                @Override
                public void send(ObjectNode result) throws IOException {
                    sse(response, success(request.id(), result));
                }

                @Override
                public void keepAlive() throws IOException {
                    OutputStream out = response.getOutputStream();
                    out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                    response.flushBuffer();
                }
            });
        } catch (IOException e) {
            log.debug("A2A stream of {} ended: client went away ({})", taskId, e.getMessage());
        } catch (JsonRpcException e) {
            sse(response, error(request.id(), e));
        } catch (RuntimeException e) {
            sse(response, error(request.id(), internal(request, e)));
        }
    }

    private Request parse(byte[] body) {
        if (body.length == 0) {
            throw new Envelope(
                    NODES.nullNode(),
                    new JsonRpcException(
                            JsonRpcException.PARSE_ERROR,
                            "Parse error: the body is empty; send one JSON-RPC 2.0 request object"));
        }
        JsonNode root;
        try {
            root = json.readTree(body);
        } catch (JacksonException e) {
            var at = e.getLocation();
            throw new Envelope(
                    NODES.nullNode(),
                    new JsonRpcException(
                            JsonRpcException.PARSE_ERROR,
                            "Parse error: the body is not valid JSON"
                                    + (at == null
                                            ? ""
                                            : " (at line " + at.getLineNr() + ", column " + at.getColumnNr() + ")")));
        }
        if (root == null || root.isMissingNode()) {
            throw new Envelope(
                    NODES.nullNode(),
                    new JsonRpcException(
                            JsonRpcException.PARSE_ERROR,
                            "Parse error: the body is empty; send one JSON-RPC 2.0 request object"));
        }
        if (root.isArray()) {
            throw new Envelope(
                    NODES.nullNode(),
                    new JsonRpcException(
                            JsonRpcException.INVALID_REQUEST,
                            "Invalid Request: batch requests are not supported; send one request object per call"));
        }
        if (!root.isObject()) {
            throw new Envelope(
                    NODES.nullNode(),
                    new JsonRpcException(
                            JsonRpcException.INVALID_REQUEST,
                            "Invalid Request: expected a JSON-RPC 2.0 request object, got " + Params.kind(root)));
        }
        JsonNode id = root.get("id");
        if (id == null) {
            // A notification expects no answer, but every A2A method has one to give.
            throw new Envelope(NODES.nullNode(), invalidRequest("id", "required: A2A requests are not notifications"));
        }
        if (!(id.isString() || id.isIntegralNumber() || id.isNull())) {
            throw new Envelope(
                    NODES.nullNode(),
                    invalidRequest("id", "must be a string, an integer or null, was " + Params.kind(id)));
        }
        JsonNode version = root.get("jsonrpc");
        if (version == null || !version.isString() || !version.asString().equals("2.0")) {
            throw new Envelope(id, invalidRequest("jsonrpc", "must be \"2.0\""));
        }
        JsonNode method = root.get("method");
        if (method == null || !method.isString() || method.asString().isBlank()) {
            throw new Envelope(id, invalidRequest("method", "required: the name of an A2A method, e.g. SendMessage"));
        }
        String name = method.asString();
        Call call = A2aMethod.resolve(name);
        if (call == null) {
            JsonRpcException known = A2aMethod.unsupported(name);
            throw new Envelope(
                    id,
                    known != null
                            ? known
                            : new JsonRpcException(
                                            JsonRpcException.METHOD_NOT_FOUND,
                                            "Method not found: '" + name
                                                    + "' (SendMessage, SendStreamingMessage, GetTask, ListTasks,"
                                                    + " CancelTask, SubscribeToTask; or the 0.3 names message/send, message/stream,"
                                                    + " tasks/get, tasks/cancel, tasks/resubscribe)")
                                    .with("method", name));
        }
        JsonNode params = root.get("params");
        if (params == null || params.isNull()) {
            if (call.method() != A2aMethod.LIST) {
                throw new Envelope(id, JsonRpcException.invalidParams("params", "required (an object)"));
            }
            return new Request(id, call, null);
        }
        if (!params.isObject()) {
            throw new Envelope(
                    id, JsonRpcException.invalidParams("params", "must be an object, was " + Params.kind(params)));
        }
        return new Request(id, call, (ObjectNode) params);
    }

    private static JsonRpcException invalidRequest(String member, String detail) {
        return new JsonRpcException(JsonRpcException.INVALID_REQUEST, "Invalid Request: " + member + ": " + detail)
                .with("member", member);
    }

    private static JsonRpcException internal(Request request, RuntimeException e) {
        // The cause goes to the log only: a client never sees internals.
        log.error("A2A {} failed", request.call(), e);
        return new JsonRpcException(
                JsonRpcException.INTERNAL_ERROR, "Internal error: the request could not be completed");
    }

    /** Every result an A2A client gets, answer or stream item, leaves through here: redacted as a whole. */
    private ObjectNode success(JsonNode id, JsonNode result) {
        ObjectNode o = NODES.objectNode();
        o.put("jsonrpc", "2.0");
        o.set("id", id);
        o.set("result", redactor.redact(result));
        return o;
    }

    private static ObjectNode error(JsonNode id, JsonRpcException e) {
        ObjectNode o = NODES.objectNode();
        o.put("jsonrpc", "2.0");
        o.set("id", id);
        ObjectNode err = o.putObject("error");
        err.put("code", e.code());
        err.put("message", e.getMessage());
        if (!e.data().isEmpty()) {
            ObjectNode data = err.putObject("data");
            e.data().forEach((k, v) -> data.put(k, String.valueOf(v)));
        }
        return o;
    }

    private void writeJson(HttpServletResponse response, int status, ObjectNode body) throws IOException {
        byte[] bytes = json.writeValueAsBytes(body);
        response.setStatus(status);
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }

    private static void startSse(HttpServletResponse response) throws IOException {
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType("text/event-stream;charset=UTF-8");
        response.setHeader("Cache-Control", "no-cache");
        // Tells nginx-like proxies not to buffer the stream.
        response.setHeader("X-Accel-Buffering", "no");
        response.flushBuffer();
    }

    private void sse(HttpServletResponse response, ObjectNode message) throws IOException {
        OutputStream out = response.getOutputStream();
        out.write("data: ".getBytes(StandardCharsets.UTF_8));
        out.write(json.writeValueAsBytes(message));
        out.write("\n\n".getBytes(StandardCharsets.UTF_8));
        response.flushBuffer();
    }

    private static boolean isJson(String contentType) {
        try {
            MediaType type = MediaType.parseMediaType(contentType);
            return type.isCompatibleWith(MediaType.APPLICATION_JSON)
                    || type.getSubtype().endsWith("+json");
        } catch (IllegalArgumentException e) { // includes InvalidMediaTypeException
            return false;
        }
    }

    /** A request rejected before dispatch, with the id to answer under (null when unknown). */
    private static final class Envelope extends RuntimeException {
        private final JsonNode id;
        private final JsonRpcException error;

        Envelope(JsonNode id, JsonRpcException error) {
            super(error.getMessage(), null, false, false);
            this.id = id;
            this.error = error;
        }
    }
}
