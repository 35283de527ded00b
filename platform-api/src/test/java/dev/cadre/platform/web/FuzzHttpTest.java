package dev.cadre.platform.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fuzzer's raw-socket client must tell a server that refused a request early (answered, then
 * closed while the client was still writing) from one that never answered: the first is an answer
 * to check, the second a failure. A peer on loopback plays each server.
 */
class FuzzHttpTest {

    /** Far more than the socket buffers hold, so the client is still writing when the peer closes. */
    private static final int HUGE_HEADER = 16 * 1024 * 1024;

    @Test
    void send_whenTheServerAnswersAndClosesBeforeTheRequestIsWritten_returnsTheAnswer() throws Exception {
        String answer = "HTTP/1.1 431 Request Header Fields Too Large\r\n"
                + "Content-Type: application/problem+json\r\nConnection: close\r\n\r\n"
                + "{\"status\":431}";
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> refuseEarly(server, answer));
            try (FuzzHttp http = new FuzzHttp(server.getLocalPort())) {
                FuzzHttp.Response r = http.send(hugeHeaderRequest());
                assertThat(r.status()).isEqualTo(431);
                assertThat(r.contentType()).isEqualTo("application/problem+json");
                assertThat(r.body()).isEqualTo("{\"status\":431}");
            }
            peer.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void send_whenTheServerClosesWithoutAnswering_failsWithNoAnswer() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> refuseEarly(server, ""));
            try (FuzzHttp http = new FuzzHttp(server.getLocalPort())) {
                assertThatThrownBy(() -> http.send(hugeHeaderRequest())).isInstanceOf(IOException.class);
            }
            peer.get(30, TimeUnit.SECONDS);
        }
    }

    /** Reads the start of one request, writes {@code answer} (maybe nothing) and closes unread. */
    private static void refuseEarly(ServerSocket server, String answer) {
        try (Socket s = server.accept()) {
            InputStream in = s.getInputStream();
            in.readNBytes(1024);
            OutputStream out = s.getOutputStream();
            out.write(answer.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            // Closing with unread input resets the connection, as Tomcat does after a 431.
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static FuzzHttp.Request hugeHeaderRequest() {
        return new FuzzHttp.Request(
                "test",
                "huge-header",
                "PROPFIND",
                "/api/v1/runs",
                Map.of("X-Big", "a".repeat(HUGE_HEADER)),
                null,
                true,
                false,
                null);
    }
}
