package dev.cadre.platform.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import dev.cadre.platform.web.SseHeartbeat;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.JsonNode;

@PlatformTest
class MemoryApiTest {

    @LocalServerPort
    int port;

    Api api;
    String ns;

    @BeforeEach
    void setUp() {
        api = new Api(port);
        ns = "t" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Autowired
    SseHeartbeat heartbeat;

    /**
     * The live set of streams the heartbeat keeps open. A stream leaves it when the server notices its
     * client has gone; there is no public view of it, so the test reads the field.
     */
    @SuppressWarnings("unchecked")
    private Set<SseEmitter> openStreams() {
        Map<SseEmitter, Runnable> open = (Map<SseEmitter, Runnable>) ReflectionTestUtils.getField(heartbeat, "open");
        return open.keySet();
    }

    private Api.Response put(String key, String body, Map<String, String> headers) {
        return api.send("PUT", "/api/v1/memory/" + ns + "/" + key, Api.ADMIN_KEY, body, headers);
    }

    @Test
    void versionsMapOntoHttpPreconditions() {
        var created = put("svc", "{\"owner\":\"team-a\"}", Map.of("If-None-Match", "*"));
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.header("ETag")).isEqualTo("\"1\"");
        assertThat(put("svc", "{}", Map.of("If-None-Match", "*")).status())
                .as("create twice")
                .isEqualTo(412);

        var read = api.get("/api/v1/memory/" + ns + "/svc", Api.ADMIN_KEY);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.header("ETag")).isEqualTo("\"1\"");
        assertThat(read.json().get("value").get("owner").asString()).isEqualTo("team-a");
        assertThat(read.json().get("updatedBy").get("id").asString()).isEqualTo("bootstrap");

        var updated = put("svc", "{\"owner\":\"team-b\"}", Map.of("If-Match", "\"1\""));
        assertThat(updated.status()).isEqualTo(200);
        assertThat(updated.header("ETag")).isEqualTo("\"2\"");

        var stale = put("svc", "{\"owner\":\"team-c\"}", Map.of("If-Match", "\"1\""));
        assertThat(stale.status()).isEqualTo(412);
        assertThat(stale.json().get("currentVersion").asLong()).isEqualTo(2);
        assertThat(stale.json().get("current").get("value").get("owner").asString())
                .isEqualTo("team-b");

        var blind = put("svc", "{}", Map.of());
        assertThat(blind.status()).isEqualTo(428);
        assertThat(blind.json().get("header").asString()).isEqualTo("If-Match");
        assertThat(api.send("DELETE", "/api/v1/memory/" + ns + "/svc", Api.ADMIN_KEY, null, Map.of())
                        .status())
                .isEqualTo(428);

        assertThat(api.send(
                                "GET",
                                "/api/v1/memory/" + ns + "/svc",
                                Api.ADMIN_KEY,
                                null,
                                Map.of("If-None-Match", "\"2\""))
                        .status())
                .isEqualTo(304);

        var deleted =
                api.send("DELETE", "/api/v1/memory/" + ns + "/svc", Api.ADMIN_KEY, null, Map.of("If-Match", "\"2\""));
        assertThat(deleted.status()).isEqualTo(204);
        assertThat(deleted.header("ETag")).isEqualTo("\"3\"");
        assertThat(api.get("/api/v1/memory/" + ns + "/svc", Api.ADMIN_KEY).status())
                .isEqualTo(404);

        JsonNode history =
                api.get("/api/v1/memory/" + ns + "/svc/history", Api.ADMIN_KEY).json();
        assertThat(history.get("versions")
                        .valueStream()
                        .map(v -> v.get("version").asLong()))
                .containsExactly(1L, 2L, 3L);
        assertThat(history.get("versions").get(2).get("deleted").asBoolean()).isTrue();
        assertThat(history.get("versions").get(0).get("value").get("owner").asString())
                .isEqualTo("team-a");
    }

    @Test
    void badInput_isA4xxNamingWhatIsWrong() {
        assertThat(put("k", "{not json", Map.of("If-None-Match", "*")).status()).isEqualTo(400);
        var badEtag = put("k", "{}", Map.of("If-Match", "three"));
        assertThat(badEtag.status()).isEqualTo(400);
        assertThat(badEtag.json().get("header").asString()).isEqualTo("If-Match");
        var zero = put("k", "{}", Map.of("If-Match", "\"0\""));
        assertThat(zero.status()).isEqualTo(400);
        var longKey = put("k".repeat(600), "{}", Map.of("If-None-Match", "*"));
        assertThat(longKey.status()).isEqualTo(400);
        assertThat(longKey.json().get("field").asString()).isEqualTo("key");
        assertThat(api.get("/api/v1/memory/" + ns + "/absent", Api.ADMIN_KEY).status())
                .isEqualTo(404);
        assertThat(api.get("/api/v1/memory/" + ns + "/absent/history", Api.ADMIN_KEY)
                        .status())
                .isEqualTo(404);
        var textPlain = api.send(
                "PUT",
                "/api/v1/memory/" + ns + "/k",
                Api.ADMIN_KEY,
                "hello",
                Map.of("If-None-Match", "*", "Content-Type", "text/plain"));
        assertThat(textPlain.status()).isEqualTo(415);
    }

    @Test
    void listsByPrefix_withPaging() {
        for (String k : List.of("host-a", "host-b", "host-c", "svc-a")) {
            assertThat(put(k, "{\"k\":\"" + k + "\"}", Map.of("If-None-Match", "*"))
                            .status())
                    .isEqualTo(201);
        }
        JsonNode first = api.get("/api/v1/memory/" + ns + "?prefix=host-&limit=2", Api.ADMIN_KEY)
                .json();
        assertThat(first.get("items").valueStream().map(i -> i.get("key").asString()))
                .containsExactly("host-a", "host-b");
        String after = first.get("nextAfter").asString();
        JsonNode second = api.get("/api/v1/memory/" + ns + "?prefix=host-&limit=2&after=" + after, Api.ADMIN_KEY)
                .json();
        assertThat(second.get("items").valueStream().map(i -> i.get("key").asString()))
                .containsExactly("host-c");
    }

    @Test
    void eightClientsAppendingThroughIfMatch_loseNoUpdate() throws Exception {
        assertThat(put("log", "[]", Map.of("If-None-Match", "*")).status()).isEqualTo(201);
        int clients = 8;
        int perClient = 25;
        ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
        try (var pool = Executors.newFixedThreadPool(clients)) {
            List<Future<?>> futures = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                futures.add(pool.submit(() -> {
                    Api own = new Api(port);
                    for (int i = 0; i < perClient; i++) {
                        String element = client + "-" + i;
                        while (true) {
                            var read = own.get("/api/v1/memory/" + ns + "/log?consistent=true", Api.ADMIN_KEY);
                            var array = (tools.jackson.databind.node.ArrayNode)
                                    read.json().get("value");
                            array.add(element);
                            var w = own.send(
                                    "PUT",
                                    "/api/v1/memory/" + ns + "/log",
                                    Api.ADMIN_KEY,
                                    array.toString(),
                                    Map.of("If-Match", read.header("ETag")));
                            if (w.status() == 200) {
                                acknowledged.add(element);
                                break;
                            }
                            assertThat(w.status()).isEqualTo(412);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        }
        JsonNode fin = api.get("/api/v1/memory/" + ns + "/log?consistent=true", Api.ADMIN_KEY)
                .json();
        List<String> elements =
                fin.get("value").valueStream().map(JsonNode::asString).toList();
        assertThat(elements).hasSize(clients * perClient);
        assertThat(new HashSet<>(elements)).containsExactlyInAnyOrderElementsOf(acknowledged);
        assertThat(fin.get("version").asLong()).isEqualTo(1 + clients * perClient);
    }

    @Test
    void eventStream_deliversChangesOfItsNamespace_withResumableIds() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/api/v1/memory/" + ns + "/events"))
                .header("Authorization", "Bearer " + Api.ADMIN_KEY)
                .timeout(Duration.ofSeconds(20))
                .build();
        var response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        List<String> lines = new ArrayList<>();
        try (var reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            // The ': subscribed' comment comes after the stream fixed its starting cursor, so every
            // write from here on is delivered: no need to wait for the subscription by the clock.
            String line;
            while ((line = reader.readLine()) != null && !line.startsWith(":")) {
                // the ': subscribed' comment opens the stream
            }
            put("a", "{\"n\":1}", Map.of("If-None-Match", "*"));
            api.send("PUT", "/api/v1/memory/other" + ns + "/x", Api.ADMIN_KEY, "{}", Map.of("If-None-Match", "*"));
            put("a", "{\"n\":2}", Map.of("If-Match", "\"1\""));
            int data = 0;
            while (data < 2 && (line = reader.readLine()) != null) {
                lines.add(line);
                if (line.startsWith("data:")) {
                    data++;
                }
            }
        }
        List<String> data = lines.stream().filter(l -> l.startsWith("data:")).toList();
        assertThat(data).hasSize(2);
        assertThat(data.get(0)).contains("\"key\":\"a\"").contains("\"version\":1");
        assertThat(data.get(1)).contains("\"version\":2").doesNotContain("other");
        assertThat(lines).anyMatch(l -> l.startsWith("id:"));
    }

    @Test
    void aWriteWhoseAnswerTheClientWillNotAccept_isRefusedBeforeWriting() {
        var r = api.send(
                "PUT",
                "/api/v1/memory/accept-check/k",
                Api.ADMIN_KEY,
                "{\"a\":1}",
                java.util.Map.of("If-None-Match", "*", "Accept", "text/html"));
        assertThat(r.status()).as(r.body()).isEqualTo(406);
        assertThat(api.get("/api/v1/memory/accept-check/k", Api.ADMIN_KEY).status())
                .isEqualTo(404);
    }

    @Test
    void eventStream_opensAtOnce_evenWhenNothingChanges() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/api/v1/memory/quiet-" + ns + "/events"))
                .header("Authorization", "Bearer " + Api.ADMIN_KEY)
                .timeout(Duration.ofSeconds(5)) // the heartbeat comes after 15 s
                .build();
        var response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (var body = response.body()) {
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        }
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aSubscriberThatLeaves_isNotLoggedAsAServerError(CapturedOutput output) throws Exception {
        String gone = "gone-" + ns;
        Set<SseEmitter> openStreams = openStreams();
        Set<SseEmitter> before = Set.copyOf(openStreams);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream()
                    .write(("GET /api/v1/memory/" + gone
                                    + "/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + Api.ADMIN_KEY
                                    + "\r\n\r\n")
                            .getBytes(StandardCharsets.UTF_8));
            var in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.startsWith(":")) {
                // the head, then the ': subscribed' comment
            }
        } // the client goes away
        SseEmitter stream = openStreams.stream()
                .filter(e -> !before.contains(e))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the event stream of " + gone + " was never registered"));
        // A write into the dead connection first succeeds, a later one breaks the pipe and ends the
        // stream: write until the server has dropped it (the heartbeat's list of open streams).
        AtomicLong version = new AtomicLong();
        await("the server to drop the stream of a client that left")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    long v = version.incrementAndGet();
                    var r = api.send(
                            "PUT",
                            "/api/v1/memory/" + gone + "/k",
                            Api.ADMIN_KEY,
                            "{\"v\":" + v + "}",
                            v == 1 ? Map.of("If-None-Match", "*") : Map.of("If-Match", "\"" + (v - 1) + "\""));
                    assertThat(r.status()).as(r.body()).isBetween(200, 201);
                    return !openStreams.contains(stream);
                });
        // Nothing to await for an error that must not come: the request's async completion runs
        // right after the drop; hold the assertion for a moment so a late log line would be seen.
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !output.getAll().contains("Unexpected error"));
        assertThat(output.getAll()).doesNotContain("Unexpected error");
    }
}
