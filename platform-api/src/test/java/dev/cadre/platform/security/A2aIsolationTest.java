package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 13 for A2A: a task belongs to the key that created it (others, admins aside, get "task not
 * found" for every method, as for an id that does not exist), and A2A streams count against the
 * same per-key cap and idle timeout as run event streams. Same limits as {@link SecurityAttackTest}
 * (so the two share a context).
 */
@PlatformTest
@TestPropertySource(
        properties = {
            "cadre.approvals.separation-of-duties=true",
            "cadre.security.session.max-per-key=2",
            "cadre.security.rate-limit.requests-per-second=50",
            "cadre.security.rate-limit.burst=40",
            "cadre.sse.max-streams-per-key=2",
            "cadre.sse.idle-timeout=PT5S",
            "server.forward-headers-strategy=native"
        })
class A2aIsolationTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private String newKey(String role) {
        var r = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", "a2a-" + role + "-" + UUID.randomUUID(), "role", role)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("secret").asString();
    }

    private static String request(String method, String params) {
        return "{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"method\":\"" + method + "\",\"params\":" + params + "}";
    }

    private static String send(String agent, String text, String extra) {
        return "{\"message\":{\"messageId\":\"" + UUID.randomUUID() + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":"
                + Api.json(text) + "}],\"metadata\":{\"agent\":\"" + agent + "\"}" + extra + "}";
    }

    private JsonNode rpc(String key, String body) {
        var r = api.post("/a2a", key, body);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    /** A task of {@code key} that waits for a human (so it stays open and its stream quiet). */
    private String waitingTask(String key) {
        String id = rpc(key, request("SendMessage", send("fixer", "restart api", "}")))
                .get("result")
                .get("task")
                .get("id")
                .asString();
        api.pendingApprovalOf(id);
        return id;
    }

    private static void assertTaskNotFound(JsonNode answer, String id) {
        assertThat(answer.has("result")).as(answer.toString()).isFalse();
        assertThat(answer.get("error").get("code").asInt()).isEqualTo(-32001);
        assertThat(answer.get("error").get("message").asString())
                .isEqualTo("Task not found: '" + id + "' does not exist");
    }

    @Test
    void aTask_isVisibleOnlyToTheKeyThatCreatedIt_orAnAdmin() throws Exception {
        String owner = newKey("agent");
        String other = newKey("agent");
        String operator = newKey("operator");
        String id = waitingTask(owner);
        String missing = "run_" + UUID.randomUUID().toString().replace("-", "");

        for (String stranger : List.of(other, operator)) {
            assertTaskNotFound(rpc(stranger, request("GetTask", "{\"id\":\"" + id + "\"}")), id);
            assertTaskNotFound(rpc(stranger, request("CancelTask", "{\"id\":\"" + id + "\"}")), id);
            assertTaskNotFound(
                    rpc(
                            stranger,
                            request(
                                    "SendMessage",
                                    send("fixer", "more", "}")
                                            .replace("\"metadata\"", "\"taskId\":\"" + id + "\",\"metadata\""))),
                    id);
            String subscribed = api.post("/a2a", stranger, request("SubscribeToTask", "{\"id\":\"" + id + "\"}"))
                    .body();
            JsonNode item = JSON.readTree(subscribed
                    .lines()
                    .filter(l -> l.startsWith("data:"))
                    .findFirst()
                    .orElseThrow()
                    .substring(5)
                    .strip());
            assertTaskNotFound(item, id);
            JsonNode listed = rpc(stranger, request("ListTasks", "{\"pageSize\":100}"))
                    .get("result")
                    .get("tasks");
            assertThat(listed).extracting(t -> t.get("id").asString()).doesNotContain(id);
        }
        // Indistinguishable from an id that does not exist.
        assertTaskNotFound(rpc(other, request("GetTask", "{\"id\":\"" + missing + "\"}")), missing);

        // The stranger's cancel changed nothing; the owner and an admin see the task.
        assertThat(rpc(owner, request("GetTask", "{\"id\":\"" + id + "\"}"))
                        .get("result")
                        .get("status")
                        .get("state")
                        .asString())
                .isEqualTo("TASK_STATE_INPUT_REQUIRED");
        assertThat(rpc(Api.ADMIN_KEY, request("GetTask", "{\"id\":\"" + id + "\"}"))
                        .get("result")
                        .get("id")
                        .asString())
                .isEqualTo(id);
        assertThat(rpc(owner, request("ListTasks", "{\"pageSize\":100}"))
                        .get("result")
                        .get("tasks"))
                .extracting(t -> t.get("id").asString())
                .contains(id);
        assertThat(rpc(owner, request("CancelTask", "{\"id\":\"" + id + "\"}"))
                        .get("result")
                        .get("status")
                        .get("state")
                        .asString())
                .isEqualTo("TASK_STATE_CANCELED");
    }

    @Test
    void a2aStreams_areCappedPerKey_with429AndRetryAfter_andClosedWhenIdle() throws Exception {
        String key = newKey("agent");
        String id = waitingTask(key);
        HttpClient client = HttpClient.newHttpClient();
        List<HttpResponse<InputStream>> open = new ArrayList<>();
        try {
            open.add(subscribe(client, key, id));
            open.add(subscribe(client, key, id));
            assertThat(open).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(200));

            HttpResponse<InputStream> third = subscribe(client, key, id);
            open.add(third);
            // Status first: an uncapped stream would never end, and reading it would hang.
            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.headers().firstValue("Retry-After")).isPresent();
            assertThat(new String(third.body().readAllBytes(), StandardCharsets.UTF_8))
                    .contains("too-many-streams");
            // A streaming send over the cap is refused before it creates a task.
            long tasksBefore = tasks(key);
            HttpResponse<InputStream> streamingSend =
                    post(client, key, request("SendStreamingMessage", send("fixer", "restart db", "}")));
            open.add(streamingSend);
            assertThat(streamingSend.statusCode()).isEqualTo(429);
            assertThat(tasks(key)).isEqualTo(tasksBefore);

            // Another key is not affected by this key's cap.
            HttpResponse<InputStream> others = subscribe(client, Api.ADMIN_KEY, id);
            open.add(others);
            assertThat(others.statusCode()).isEqualTo(200);

            // Idle: no event for cadre.sse.idle-timeout, and the server ends the stream itself.
            CompletableFuture<byte[]> rest = CompletableFuture.supplyAsync(() -> {
                try {
                    return open.getFirst().body().readAllBytes();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until("the idle A2A stream to be closed by the server", rest::isDone, done -> done);
            Await.until(
                    "a new A2A stream to be allowed",
                    () -> {
                        try {
                            HttpResponse<InputStream> r = subscribe(client, key, id);
                            r.body().close();
                            return r.statusCode();
                        } catch (Exception e) {
                            return -1;
                        }
                    },
                    s -> s == 200);
        } finally {
            for (var r : open) {
                r.body().close();
            }
        }
    }

    private long tasks(String key) {
        return rpc(key, request("ListTasks", "{\"pageSize\":100}"))
                .get("result")
                .get("totalSize")
                .asLong();
    }

    private HttpResponse<InputStream> subscribe(HttpClient client, String key, String id) throws Exception {
        return post(client, key, request("SubscribeToTask", "{\"id\":\"" + id + "\"}"));
    }

    private HttpResponse<InputStream> post(HttpClient client, String key, String body) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/a2a"))
                        .header("Authorization", "Bearer " + key)
                        .header("Content-Type", "application/json")
                        .header("Accept", "text/event-stream")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    }
}
