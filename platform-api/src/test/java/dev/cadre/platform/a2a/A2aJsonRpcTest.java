package dev.cadre.platform.a2a;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The A2A endpoint over raw JSON: the 1.0 method names and shapes, the card, and bad requests. */
@PlatformTest
class A2aJsonRpcTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private Api.Response rpc(String body) {
        return api.post("/a2a", Api.ADMIN_KEY, body);
    }

    private static String request(String method, String params) {
        return "{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"method\":\"" + method + "\",\"params\":" + params + "}";
    }

    private static String send(String agent, String text, String extra) {
        return "{\"message\":{\"messageId\":\"" + UUID.randomUUID() + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":"
                + Api.json(text) + "}],\"metadata\":{\"agent\":\"" + agent + "\"}" + extra + "}";
    }

    /** The JSON-RPC messages of an SSE body, one per {@code data:} line. */
    private static List<JsonNode> sse(String body) {
        List<JsonNode> items = new ArrayList<>();
        for (String line : body.split("\n")) {
            if (line.startsWith("data:")) {
                items.add(JSON.readTree(line.substring(5).strip()));
            }
        }
        return items;
    }

    /** Collects the lines of a streamed response as they arrive. */
    private record LineCollector(List<String> lines) implements Flow.Subscriber<String> {
        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            lines.add(line);
        }

        @Override
        public void onError(Throwable throwable) {}

        @Override
        public void onComplete() {}
    }

    private static JsonNode error(Api.Response r) {
        assertThat(r.status()).as(r.body()).isLessThan(500);
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("\tat ");
        JsonNode error = r.json().get("error");
        assertThat(error).as(r.body()).isNotNull();
        return error;
    }

    @Test
    void sendMessage_blocking_answersWithA1_0TaskUnion() {
        var r = rpc(request(
                "SendMessage",
                send("ops-orchestrator", "check host web-2", "},\"configuration\":{\"blocking\":true}")));
        assertThat(r.status()).isEqualTo(200);
        JsonNode body = r.json();
        assertThat(body.get("jsonrpc").asString()).isEqualTo("2.0");
        assertThat(body.get("id").asString()).as(r.body()).isEqualTo("r-1");
        JsonNode task = body.get("result").get("task");
        assertThat(task).as(r.body()).isNotNull();
        assertThat(task.has("kind")).isFalse();
        assertThat(task.get("status").get("state").asString()).isEqualTo("TASK_STATE_COMPLETED");
        assertThat(task.get("status").get("message").get("role").asString()).isEqualTo("ROLE_AGENT");
        assertThat(task.get("status").get("timestamp").asString())
                .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
        JsonNode part = task.get("artifacts").get(0).get("parts").get(0);
        assertThat(part.get("text").asString()).contains("Host check finished");
        assertThat(part.get("mediaType").asString()).isEqualTo("text/plain");
        assertThat(task.get("history").get(0).get("role").asString()).isEqualTo("ROLE_USER");
        assertThat(task.get("metadata").get("agent").asString()).isEqualTo("ops-orchestrator");
    }

    /** A 0.3 {@code message/send} params object; {@code extra} continues after the message. */
    private static String send03(String agent, String text, String extra) {
        return "{\"message\":{\"kind\":\"message\",\"messageId\":\"" + UUID.randomUUID()
                + "\",\"role\":\"user\",\"parts\":[{\"kind\":\"text\",\"text\":" + Api.json(text)
                + "}],\"metadata\":{\"agent\":\"" + agent + "\"}}" + extra + "}";
    }

    // Issue 26 item 4: the A2A JS SDK 1.3.0 got SUBMITTED after 82 ms from a SendMessage without configuration.
    @Test
    void sendMessage_withoutConfiguration_waitsForTheFinishedTask_asA2a1_0Says() {
        JsonNode task = rpc(request("SendMessage", send("ops-orchestrator", "check host web-5", "}")))
                .json()
                .get("result")
                .get("task");
        assertThat(task.get("status").get("state").asString())
                .as(task.toString())
                .isEqualTo("TASK_STATE_COMPLETED");
        assertThat(task.get("artifacts").get(0).get("parts").get(0).get("text").asString())
                .contains("Host check finished");
    }

    @Test
    void sendMessage_returnImmediately_answersAtOnce() {
        JsonNode task = rpc(request(
                        "SendMessage",
                        send("slow", "think long (at once)", "},\"configuration\":{\"returnImmediately\":true}")))
                .json()
                .get("result")
                .get("task");
        assertThat(task.get("status").get("state").asString()).isIn("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING");
        rpc(request("CancelTask", "{\"id\":\"" + task.get("id").asString() + "\"}"));
    }

    @Test
    void messageSend_0_3_waitsUnlessBlockingIsFalse() {
        JsonNode settled = rpc(request("message/send", send03("ops-orchestrator", "check host web-6", "")))
                .json()
                .get("result");
        assertThat(settled.get("kind").asString()).isEqualTo("task");
        assertThat(settled.get("status").get("state").asString())
                .as(settled.toString())
                .isEqualTo("completed");

        JsonNode atOnce = rpc(request(
                        "message/send", send03("slow", "think long (0.3)", ",\"configuration\":{\"blocking\":false}")))
                .json()
                .get("result");
        assertThat(atOnce.get("status").get("state").asString()).isIn("submitted", "working");
        rpc(request("CancelTask", "{\"id\":\"" + atOnce.get("id").asString() + "\"}"));
    }

    @Test
    void sendStreamingMessage_streamsStreamResponses_untilTheTerminalStatus() {
        var r = rpc(request("SendStreamingMessage", send("ops-orchestrator", "stream check web-3", "}")));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).startsWith("text/event-stream");
        List<JsonNode> items = sse(r.body());
        assertThat(items).allSatisfy(i -> {
            assertThat(i.get("jsonrpc").asString()).isEqualTo("2.0");
            assertThat(i.get("id").asString()).isEqualTo("r-1");
        });
        List<JsonNode> results = items.stream().map(i -> i.get("result")).toList();
        assertThat(results.getFirst().has("task")).isTrue();
        assertThat(results)
                .anySatisfy(x -> assertThat(x.path("statusUpdate")
                                .path("status")
                                .path("state")
                                .asString())
                        .isEqualTo("TASK_STATE_WORKING"));
        assertThat(results)
                .anySatisfy(x -> assertThat(x.path("artifactUpdate")
                                .path("artifact")
                                .path("parts")
                                .path(0)
                                .path("text")
                                .asString(""))
                        .contains("Host check finished"));
        JsonNode last = results.getLast().get("statusUpdate");
        assertThat(last.get("status").get("state").asString()).isEqualTo("TASK_STATE_COMPLETED");
        assertThat(last.has("final")).as("1.0 dropped 'final'").isFalse();
    }

    @Test
    void getTask_listTasks_andTheSameMessageAgain_meanTheSameTask() {
        String messageId = UUID.randomUUID().toString();
        String params = "{\"message\":{\"messageId\":\"" + messageId + "\",\"contextId\":\"ctx-" + messageId
                + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"check host db-1\"}]},\"configuration\":{\"blocking\":true}}";
        JsonNode first =
                rpc(request("SendMessage", params)).json().get("result").get("task");
        JsonNode again =
                rpc(request("SendMessage", params)).json().get("result").get("task");
        String id = first.get("id").asString();
        assertThat(again.get("id").asString())
                .as("messageId is the idempotency key")
                .isEqualTo(id);
        assertThat(first.get("contextId").asString()).isEqualTo("ctx-" + messageId);
        assertThat(first.get("metadata").get("agent").asString())
                .as("the default agent")
                .isEqualTo("ops-orchestrator");

        String reused = params.replace("check host db-1", "something else");
        JsonNode conflict = error(rpc(request("SendMessage", reused)));
        assertThat(conflict.get("code").asInt()).isEqualTo(-32602);
        assertThat(conflict.get("data").get("param").asString()).isEqualTo("message.messageId");

        // X-API-Key works as well as a bearer token.
        JsonNode got = api.send(
                        "POST",
                        "/a2a",
                        null,
                        request("GetTask", "{\"id\":\"" + id + "\",\"historyLength\":1}"),
                        Map.of("X-API-Key", Api.ADMIN_KEY, "Content-Type", "application/json"))
                .json()
                .get("result");
        assertThat(got.get("id").asString()).isEqualTo(id);
        assertThat(got.get("history")).hasSize(1);
        assertThat(got.get("history").get(0).get("role").asString()).isEqualTo("ROLE_AGENT");

        JsonNode page = rpc(request("ListTasks", "{\"contextId\":\"ctx-" + messageId + "\"}"))
                .json()
                .get("result");
        assertThat(page.get("tasks")).hasSize(1);
        assertThat(page.get("tasks").get(0).get("id").asString()).isEqualTo(id);
        assertThat(page.get("totalSize").asInt()).isEqualTo(1);
        assertThat(page.get("nextPageToken").asString()).isEmpty();

        JsonNode completed = rpc(request("ListTasks", "{\"status\":\"TASK_STATE_COMPLETED\",\"pageSize\":1}"))
                .json()
                .get("result");
        assertThat(completed.get("tasks")).hasSize(1);
        assertThat(completed.get("pageSize").asInt()).isEqualTo(1);
        assertThat(completed.get("tasks").get(0).get("status").get("state").asString())
                .isEqualTo("TASK_STATE_COMPLETED");
        if (completed.get("totalSize").asInt() > 1) {
            assertThat(completed.get("nextPageToken").asString()).isNotEmpty();
        }
        // No params at all is a valid ListTasks.
        assertThat(rpc("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ListTasks\"}")
                        .json()
                        .get("result")
                        .get("tasks")
                        .isArray())
                .isTrue();
    }

    @Test
    void subscribeToTask_andCancelTask_ofASlowTask() throws Exception {
        JsonNode task = rpc(request(
                        "SendMessage",
                        send("slow", "think long (1.0)", "},\"configuration\":{\"returnImmediately\":true}")))
                .json()
                .get("result")
                .get("task");
        String id = task.get("id").asString();
        Await.until(
                "the task to work",
                () -> rpc(request("GetTask", "{\"id\":\"" + id + "\"}"))
                        .json()
                        .get("result")
                        .get("status")
                        .get("state")
                        .asString(),
                "TASK_STATE_WORKING"::equals);

        // Follow the task as a stream and cancel only once the subscription has answered with the
        // task as it stands: then the cancel is certain to reach a live subscriber.
        List<String> lines = new CopyOnWriteArrayList<>();
        CompletableFuture<HttpResponse<Void>> subscription = HttpClient.newHttpClient()
                .sendAsync(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/a2a"))
                                .header("Authorization", "Bearer " + Api.ADMIN_KEY)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        request("SubscribeToTask", "{\"id\":\"" + id + "\"}")))
                                .build(),
                        HttpResponse.BodyHandlers.fromLineSubscriber(new LineCollector(lines)));
        await("the subscription's first item")
                .atMost(Duration.ofSeconds(30))
                .until(() -> lines.stream().anyMatch(l -> l.startsWith("data:")));
        JsonNode canceled =
                rpc(request("CancelTask", "{\"id\":\"" + id + "\"}")).json().get("result");
        assertThat(canceled.get("status").get("state").asString()).isEqualTo("TASK_STATE_CANCELED");
        assertThat(canceled.get("status")
                        .get("message")
                        .get("parts")
                        .get(0)
                        .get("text")
                        .asString())
                .contains("cancel");

        subscription.get(30, TimeUnit.SECONDS);
        List<JsonNode> results =
                sse(String.join("\n", lines)).stream().map(i -> i.get("result")).toList();
        assertThat(results.getFirst().get("task").get("status").get("state").asString())
                .isEqualTo("TASK_STATE_WORKING");
        assertThat(results.getLast()
                        .get("statusUpdate")
                        .get("status")
                        .get("state")
                        .asString())
                .isEqualTo("TASK_STATE_CANCELED");

        assertThat(error(rpc(request("CancelTask", "{\"id\":\"" + id + "\"}")))
                        .get("code")
                        .asInt())
                .isEqualTo(-32002);
        var late = rpc(request("SubscribeToTask", "{\"id\":\"" + id + "\"}"));
        assertThat(late.header("Content-Type")).startsWith("text/event-stream");
        assertThat(sse(late.body()).getFirst().get("error").get("code").asInt()).isEqualTo(-32004);
    }

    @Test
    void malformedRequests_areJsonRpcErrors_neverServerErrors() {
        Map<String, Integer> cases = new java.util.LinkedHashMap<>();
        cases.put("{not json", -32700);
        cases.put("", -32700);
        cases.put("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\",\"params\":{}} trailing", -32700);
        cases.put("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\"}]", -32600);
        cases.put("42", -32600);
        cases.put("{\"id\":1,\"method\":\"GetTask\",\"params\":{\"id\":\"x\"}}", -32600);
        cases.put("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"GetTask\",\"params\":{\"id\":\"x\"}}", -32600);
        cases.put("{\"jsonrpc\":\"2.0\",\"id\":1,\"params\":{\"id\":\"x\"}}", -32600);
        cases.put("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":42}", -32600);
        cases.put("{\"jsonrpc\":\"2.0\",\"method\":\"GetTask\",\"params\":{\"id\":\"x\"}}", -32600);
        cases.put("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"GetTask\",\"params\":{\"id\":\"x\"}}", -32600);
        cases.put(request("tasks/doSomething", "{}"), -32601);
        cases.put(request("GetTask", "[\"x\"]"), -32602);
        cases.put(request("GetTask", "{}"), -32602);
        cases.put(request("GetTask", "{\"id\":42}"), -32602);
        cases.put(request("GetTask", "{\"id\":\"x\",\"historyLength\":-1}"), -32602);
        cases.put(request("SendMessage", "{}"), -32602);
        cases.put(request("SendMessage", "{\"message\":\"hello\"}"), -32602);
        cases.put(request("ListTasks", "{\"pageSize\":\"ten\"}"), -32602);
        cases.put(request("ListTasks", "{\"status\":\"TASK_STATE_SLEEPING\"}"), -32602);
        cases.put(request("ListTasks", "{\"pageToken\":\"abc\"}"), -32602);
        cases.put(request("GetTask", "{\"id\":\"run_nope\"}"), -32001);
        cases.put(request("tasks/get", "{\"id\":\"run_nope\"}"), -32001);
        cases.put(request("CancelTask", "{\"id\":\"run_nope\"}"), -32001);
        cases.put(request("tasks/pushNotificationConfig/set", "{}"), -32003);
        cases.put(request("GetExtendedAgentCard", "{}"), -32007);
        cases.forEach((body, code) -> {
            var r = rpc(body);
            assertThat(r.status()).as(body).isEqualTo(200);
            JsonNode error = error(r);
            assertThat(error.get("code").asInt()).as(body + " → " + r.body()).isEqualTo(code);
            assertThat(error.get("message").asString()).isNotBlank();
        });
        // The id is echoed when it could be read, and null when it could not.
        assertThat(rpc(request("nope", "{}")).json().get("id").asString()).isEqualTo("r-1");
        assertThat(rpc("{oops").json().get("id").isNull()).isTrue();

        var wrongType = api.send(
                "POST",
                "/a2a",
                Api.ADMIN_KEY,
                request("GetTask", "{\"id\":\"x\"}"),
                Map.of("Content-Type", "text/plain"));
        assertThat(wrongType.status()).isEqualTo(415);
        assertThat(error(wrongType).get("code").asInt()).isEqualTo(-32600);
        // A Content-Type that does not even parse gets the same JSON-RPC answer, not a problem body.
        for (String unparseable : List.of("garbage", "application/", "application/json;;")) {
            var odd = api.send(
                    "POST",
                    "/a2a",
                    Api.ADMIN_KEY,
                    request("GetTask", "{\"id\":\"x\"}"),
                    Map.of("Content-Type", unparseable));
            assertThat(odd.status()).as(unparseable).isIn(200, 415);
            assertThat(odd.header("Content-Type")).as(unparseable).startsWith("application/json");
            assertThat(error(odd).get("code").asInt()).as(unparseable).isIn(-32600, -32001);
        }

        var anonymous = api.post("/a2a", null, request("GetTask", "{\"id\":\"x\"}"));
        assertThat(anonymous.status()).isBetween(401, 403);
    }

    @Test
    void invalidParams_nameTheParamAtFault() {
        record Case(String params, int code, String param) {}
        String msg = "{\"messageId\":\"m-1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}]";
        List<Case> cases = List.of(
                new Case(
                        "{\"message\":{\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}]}}",
                        -32602,
                        "message.messageId"),
                new Case(
                        "{\"message\":{\"messageId\":\"m\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"text\":\"hi\"}]}}",
                        -32602,
                        "message.role"),
                new Case("{\"message\":{\"messageId\":\"m\",\"role\":\"user\",\"parts\":{}}}", -32602, "message.parts"),
                new Case("{\"message\":{\"messageId\":\"m\",\"role\":\"user\",\"parts\":[]}}", -32602, "message.parts"),
                new Case(
                        "{\"message\":{\"messageId\":\"m\",\"role\":\"user\",\"parts\":[{\"text\":7}]}}",
                        -32602,
                        "message.parts[0].text"),
                new Case(
                        "{\"message\":{\"messageId\":\"m\",\"role\":\"user\",\"parts\":[{\"text\":\"  \"}]}}",
                        -32602,
                        "message.parts"),
                new Case(
                        "{\"message\":{\"messageId\":\"m\",\"role\":\"user\",\"parts\":[{\"kind\":\"file\",\"file\":{\"uri\":\"x\"}}]}}",
                        -32005,
                        "message.parts[0]"),
                new Case(
                        "{\"message\":{\"messageId\":\"m\",\"role\":\"user\",\"parts\":[{\"url\":\"https://x/y.pdf\"}]}}",
                        -32005,
                        "message.parts[0]"),
                new Case("{\"message\":" + msg + ",\"contextId\":\"has spaces\"}}", -32602, "message.contextId"),
                new Case(
                        "{\"message\":" + msg + ",\"metadata\":{\"agent\":\"nobody\"}}}",
                        -32602,
                        "message.metadata.agent"),
                new Case("{\"message\":" + msg + ",\"metadata\":{\"agent\":5}}}", -32602, "message.metadata.agent"),
                new Case("{\"message\":" + msg + "},\"metadata\":{\"skill\":\"nobody\"}}", -32602, "metadata.skill"),
                new Case("{\"message\":" + msg + ",\"taskId\":\"run_nope\"}}", -32001, null),
                new Case(
                        "{\"message\":" + msg + "},\"configuration\":{\"blocking\":\"yes\"}}",
                        -32602,
                        "configuration.blocking"),
                new Case(
                        "{\"message\":" + msg + "},\"configuration\":{\"acceptedOutputModes\":[\"image/png\"]}}",
                        -32005,
                        "configuration.acceptedOutputModes"),
                new Case(
                        "{\"message\":" + msg
                                + "},\"configuration\":{\"pushNotificationConfig\":{\"url\":\"http://x\"}}}",
                        -32003,
                        "configuration.pushNotificationConfig"));
        for (Case c : cases) {
            var r = rpc(request("SendMessage", c.params()));
            assertThat(r.status()).as(c.params()).isEqualTo(200);
            JsonNode error = error(r);
            assertThat(error.get("code").asInt())
                    .as(c.params() + " → " + r.body())
                    .isEqualTo(c.code());
            if (c.param() != null) {
                assertThat(error.get("data").get("param").asString())
                        .as(r.body())
                        .isEqualTo(c.param());
            }
        }
        // A streaming method reports a bad request as the one event of its stream.
        var stream =
                rpc(request("message/stream", "{\"message\":{\"messageId\":\"m\",\"role\":\"user\",\"parts\":[]}}"));
        assertThat(stream.header("Content-Type")).startsWith("text/event-stream");
        assertThat(sse(stream.body()).getFirst().get("error").get("code").asInt())
                .isEqualTo(-32602);
    }

    @Test
    void agentCard_isPublic_andDescribesTheJsonRpcInterfaceForBothVersions() {
        var r = api.get("/.well-known/agent-card.json", null);
        assertThat(r.status()).isEqualTo(200);
        JsonNode card = r.json();
        String url = "http://127.0.0.1:" + port + "/a2a";
        assertThat(card.get("url").asString()).isEqualTo(url);
        assertThat(card.get("protocolVersion").asString()).isEqualTo("0.3.0");
        assertThat(card.get("supportedInterfaces")
                        .valueStream()
                        .map(i -> i.get("protocolBinding").asString() + " "
                                + i.get("protocolVersion").asString() + " "
                                + i.get("url").asString()))
                .containsExactly("JSONRPC 1.0 " + url, "JSONRPC 0.3 " + url);
        assertThat(card.get("capabilities").get("streaming").asBoolean()).isTrue();
        assertThat(card.get("capabilities").get("pushNotifications").asBoolean())
                .isFalse();
        assertThat(card.get("securitySchemes")
                        .get("bearer")
                        .get("httpAuthSecurityScheme")
                        .get("scheme")
                        .asString())
                .isEqualTo("Bearer");
        assertThat(card.get("securitySchemes")
                        .get("apiKey")
                        .get("apiKeySecurityScheme")
                        .get("location")
                        .asString())
                .isEqualTo("header");
        assertThat(card.get("securityRequirements").get(0).get("schemes").has("bearer"))
                .isTrue();
        JsonNode fixer = card.get("skills")
                .valueStream()
                .filter(s -> s.get("id").asString().equals("fixer"))
                .findFirst()
                .orElseThrow();
        assertThat(fixer.get("description").asString()).contains("Restarts a service");
        assertThat(fixer.get("tags").valueStream().map(JsonNode::asString)).contains("restart_service");
    }

    @Test
    void aChunkedBodyOverTheLimit_isA413Problem_notA500() throws Exception {
        byte[] big = request("GetTask", "{\"id\":\"" + "x".repeat(70_000) + "\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/a2a"))
                .header("Authorization", "Bearer " + Api.ADMIN_KEY)
                .header("Content-Type", "application/json")
                // A stream of unknown length goes out chunked: no Content-Length to refuse up front.
                .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                        () -> new java.io.ByteArrayInputStream(big)))
                .build();
        var r = java.net.http.HttpClient.newHttpClient()
                .send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(413);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    }
}
