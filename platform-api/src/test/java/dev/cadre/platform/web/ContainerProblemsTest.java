package dev.cadre.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Requests Tomcat refuses before the application sees them still get problem details, not HTML. */
@PlatformTest
class ContainerProblemsTest {

    @LocalServerPort
    int port;

    @Test
    void anEncodedSlashInThePath_isA400Problem() {
        var r = new Api(port).get("/api/v1/runs/a%2Fb", Api.ADMIN_KEY);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        assertThat(r.json().get("status").asInt()).isEqualTo(400);
        assertThat(r.json().get("detail").asString()).startsWith("the server refused the request");
    }

    @Test
    void invalidUtf8InThePath_isA400Problem() {
        var r = new Api(port).get("/api/v1/runs/%C3%28", Api.ADMIN_KEY);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    }

    @Test
    void headersOverTheLimit_areA4xxProblem() {
        var r = new Api(port).send("GET", "/api/v1/agents", Api.ADMIN_KEY, null, Map.of("X-Huge", "h".repeat(9000)));
        assertThat(r.status()).isBetween(400, 499);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        assertThat(r.json().get("title").asString()).isNotBlank();
    }

    @Test
    void aControlCharacterInAHeader_isA400Problem() throws IOException {
        String raw;
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET /api/v1/agents HTTP/1.0\r\nHost: localhost\r\nAuthorization: Bearer " + Api.ADMIN_KEY
                            + "\u0001\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            raw = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(raw).startsWith("HTTP/1.1 400");
        assertThat(raw.toLowerCase(java.util.Locale.ROOT)).contains("content-type: application/problem+json");
        assertThat(raw).contains("\"status\":400").doesNotContain("<html");
    }

    @Test
    void aPathTheFirewallRefuses_isA400SayingWhy() {
        var r = new Api(port).get("/api/v1/runs;x=y", Api.ADMIN_KEY);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        // Was "Bad Request for /api/v1/runs;x=y".
        assertThat(r.json().get("detail").asString()).contains("rejected").contains("\";\"");
    }

    @Test
    void aMethodTheContainerRefuses_isA405NamingIt() throws IOException {
        String raw;
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("TRACE /api/v1/agents HTTP/1.0\r\nHost: localhost\r\nAuthorization: Bearer " + Api.ADMIN_KEY
                            + "\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            raw = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(raw).startsWith("HTTP/1.1 405");
        assertThat(raw.toLowerCase(java.util.Locale.ROOT)).contains("content-type: application/problem+json");
        assertThat(raw).contains("TRACE");
    }

    @Test
    void aHeaderValueTheFirewallRefusesWhenRead_isA400_andNoRunStarts() throws IOException {
        String input = "firewall check " + java.util.UUID.randomUUID();
        String body = "{\"agent\":\"probe-a\",\"input\":\"" + input + "\"}";
        String raw;
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            // Raw UTF-8 bytes in a header: Tomcat passes them on, the firewall refuses them when the
            // controller reads the header (it was a 500).
            out.write(("POST /api/v1/runs HTTP/1.0\r\nHost: localhost\r\nAuthorization: Bearer " + Api.ADMIN_KEY
                            + "\r\nContent-Type: application/json\r\nIdempotency-Key: \u65e5\u672c\r\nContent-Length: "
                            + body.length() + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            raw = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(raw).startsWith("HTTP/1.1 400");
        assertThat(raw.toLowerCase(java.util.Locale.ROOT)).contains("content-type: application/problem+json");
        assertThat(raw).contains("Idempotency-Key");
        assertThat(new Api(port)
                        .get("/api/v1/runs?q=" + input.replace(" ", "+"), Api.ADMIN_KEY)
                        .json()
                        .get("items")
                        .size())
                .isZero();
    }
}
