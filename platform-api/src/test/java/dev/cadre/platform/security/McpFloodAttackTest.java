package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * One viewer key against {@code /mcp}, as an attacker would: many {@code GET} streams, many
 * sessions, a chunked body past the limit. Runs with small limits: two streams a key, three MCP
 * sessions a key, a 5 s idle timeout, 64 KiB bodies.
 */
@AttackLimits
class McpFloodAttackTest {

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    Api api;
    HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private String viewerKey() {
        var r = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", "mcp-flood-" + System.nanoTime(), "role", "viewer")));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("secret").asString();
    }

    private static String initialize(String clientName) {
        return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                + "\"capabilities\":{\"experimental\":{\"blob\":\"" + "b".repeat(20_000) + "\"}},"
                + "\"clientInfo\":{\"name\":\"" + clientName + "\",\"version\":\"1\"}}}";
    }

    private String session(String key) {
        var r = api.send(
                "POST",
                "/mcp",
                key,
                initialize("flood"),
                Map.of("Accept", "application/json, text/event-stream", "Content-Type", "application/json"));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.header("mcp-session-id");
    }

    private HttpResponse<InputStream> listen(String key, String session) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
                        // Bounded: a stream whose headers never come fails rather than hangs.
                        .timeout(java.time.Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + key)
                        .header("Accept", "text/event-stream")
                        .header("mcp-session-id", session)
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    }

    private double openMcpStreams() {
        return meters.get("cadre.mcp.streams").gauge().value();
    }

    @Test
    void getStreams_countInTheKeysStreamCap_healthStillAnswers_andClosedClientsFreeTheirSlots() throws Exception {
        String key = viewerKey();
        String session = session(key);
        List<HttpResponse<InputStream>> open = new ArrayList<>();
        try {
            open.add(listen(key, session));
            open.add(listen(key, session));
            assertThat(open).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(200));
            HttpResponse<InputStream> third = listen(key, session);
            // Status first: an uncapped stream would never end, and reading it would hang.
            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.headers().firstValue("Retry-After")).isPresent();
            assertThat(new String(third.body().readAllBytes(), StandardCharsets.UTF_8))
                    .contains("too-many-streams");
            // The same cap as the key's run event streams: they are refused too while MCP holds it.
            String runId = api.submitRun("echoer", "hello").get("id").asString();
            HttpResponse<InputStream> events = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/runs/" + runId + "/events"))
                            .header("Authorization", "Bearer " + key)
                            .header("Accept", "text/event-stream")
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(events.statusCode()).isEqualTo(429);
            events.body().close();
            assertThat(api.get("/actuator/health", null).status()).isEqualTo(200);
        } finally {
            for (var r : open) {
                r.body().close();
            }
        }
        // The clients went away: heartbeats notice, the slots are free and the streams gone.
        Await.until("the closed MCP streams to be released", this::openMcpStreams, n -> n == 0.0);
        HttpResponse<InputStream> again = listen(key, session);
        try {
            assertThat(again.statusCode()).isEqualTo(200);
        } finally {
            again.body().close();
        }
    }

    @Test
    void anIdleGetStream_isEndedByTheServer_withKeepAlivesBeforeThat() throws Exception {
        String key = viewerKey();
        HttpResponse<InputStream> stream = listen(key, session(key));
        assertThat(stream.statusCode()).isEqualTo(200);
        CompletableFuture<String> all = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = stream.body()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
        // cadre.sse.idle-timeout is 5 s here: the server ends the stream (before: it never did).
        String received = Await.until("the idle MCP stream to end", () -> all.getNow(null), s -> s != null);
        assertThat(received).contains(":keep-alive");
    }

    @Test
    void sessions_areCappedPerKey_theOldestAnswers404_andAnotherKeyCannotUseOne() throws Exception {
        String key = viewerKey();
        String first = session(key);
        String second = session(key);
        String third = session(key);
        String fourth = session(key);
        Map<String, String> headers =
                Map.of("Accept", "application/json, text/event-stream", "Content-Type", "application/json");
        String ping = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
        assertThat(api.send("POST", "/mcp", key, ping, with(headers, first)).status())
                .isEqualTo(404);
        for (String s : List.of(second, third, fourth)) {
            assertThat(api.send("POST", "/mcp", key, ping, with(headers, s)).status())
                    .isEqualTo(200);
        }
        assertThat(api.send("POST", "/mcp", viewerKey(), ping, with(headers, fourth))
                        .status())
                .as("another key's session")
                .isEqualTo(404);
    }

    private static Map<String, String> with(Map<String, String> headers, String session) {
        var all = new java.util.HashMap<>(headers);
        all.put("mcp-session-id", session);
        return all;
    }

    @Test
    void aChunkedBodyOf40MiB_isRefusedWith413_beforeItIsRead() throws Exception {
        String key = viewerKey();
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
                            + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            // The sender keeps sending until the server stops reading; the answer is read meanwhile.
            CompletableFuture<Long> sent = CompletableFuture.supplyAsync(() -> {
                byte[] chunk = ("100000\r\n" + "x".repeat(0x100000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
                long n = 0;
                try {
                    for (int i = 0; i < 40; i++) {
                        out.write(chunk);
                        n += 0x100000;
                    }
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                } catch (java.io.IOException refused) {
                    // the server closed the connection: what a refusal looks like to a sender
                }
                return n;
            });
            String status = new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertThat(status).isEqualTo("HTTP/1.1 413");
            sent.cancel(true);
        }
    }
}
