package dev.cadre.platform.tools;

import static dev.cadre.platform.tools.ToolTestSupport.JSON;
import static dev.cadre.platform.tools.ToolTestSupport.args;
import static dev.cadre.platform.tools.ToolTestSupport.ctx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.cadre.agent.tool.ToolException;
import java.io.FileInputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Probes of real local HTTP and HTTPS servers (a self-signed certificate made by keytool, valid 10 days). */
class HttpProbeToolTest {

    static HttpServer http;
    static HttpsServer https;
    // Loopback is refused by default: these tests name it, as an operator would for a local target.
    static final HttpProbeTool TOOL = new HttpProbeTool(
            new OpsToolsProperties.Probe(Duration.ofSeconds(5), Duration.ofSeconds(5), List.of("127.0.0.1/32")),
            JSON,
            Clock.systemUTC());

    @BeforeAll
    static void servers() throws Exception {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/ok", x -> {
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        http.createContext("/down", x -> {
            x.sendResponseHeaders(503, -1);
            x.close();
        });
        http.createContext("/slow", x -> {
            try {
                // A slow server is the behaviour under test (the probe's timeout), not a wait.
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        http.start();

        Path dir = Files.createTempDirectory("cadre-probe-tls");
        Path keystore = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "probe",
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-dname",
                        "CN=probe.test",
                        "-ext",
                        "san=ip:127.0.0.1",
                        "-validity",
                        "10",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        keystore.toString(),
                        "-storepass",
                        "changeit",
                        "-keypass",
                        "changeit")
                .redirectErrorStream(true)
                .start();
        assertThat(keytool.waitFor()).isZero();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (var in = new FileInputStream(keystore.toFile())) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf.getKeyManagers(), null, null);
        https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        https.setHttpsConfigurator(new HttpsConfigurator(ssl));
        https.createContext("/", x -> {
            x.sendResponseHeaders(204, -1);
            x.close();
        });
        https.start();
    }

    @AfterAll
    static void stop() {
        http.stop(0);
        https.stop(0);
    }

    private static JsonNode probe(String json) throws Exception {
        return JSON.readTree(TOOL.execute(args(json), ctx("r", "c")));
    }

    private static String url(String path) {
        return "http://127.0.0.1:" + http.getAddress().getPort() + path;
    }

    @Test
    void reportsStatusAndLatency() throws Exception {
        JsonNode ok = probe("{\"url\":\"" + url("/ok") + "\"}");
        assertThat(ok.get("status").asInt()).isEqualTo(200);
        assertThat(ok.get("ok").asBoolean()).isTrue();
        JsonNode down = probe("{\"url\":\"" + url("/down") + "\"}");
        assertThat(down.get("status").asInt()).isEqualTo(503);
        assertThat(down.get("ok").asBoolean()).isFalse();
        JsonNode slow = probe("{\"url\":\"" + url("/slow") + "\",\"method\":\"HEAD\"}");
        assertThat(slow.get("latencyMillis").asLong()).isGreaterThanOrEqualTo(250);
        JsonNode expected = probe("{\"url\":\"" + url("/down") + "\",\"expectStatus\":503}");
        assertThat(expected.get("ok").asBoolean()).isTrue();
    }

    @Test
    void anUnreachableTarget_isAResultNotAFailure() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        JsonNode r = probe("{\"url\":\"http://127.0.0.1:" + closed + "/\"}");
        assertThat(r.get("ok").asBoolean()).isFalse();
        assertThat(r.get("error").asString()).startsWith("unreachable");
    }

    @Test
    void aRefusedPort_aSilentPort_andAnUnknownHost_readTheSame_soTheProbeIsNoPortScanner() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        // A port that accepts and never answers: the probe times out (capped at max-timeout).
        try (ServerSocket silent = new ServerSocket(0)) {
            HttpProbeTool quick = new HttpProbeTool(
                    new OpsToolsProperties.Probe(
                            Duration.ofMillis(300), Duration.ofMillis(300), List.of("127.0.0.1/32", "nowhere.invalid")),
                    JSON,
                    Clock.systemUTC());
            JsonNode refused = JSON.readTree(
                    quick.execute(args("{\"url\":\"http://127.0.0.1:" + closed + "/\"}"), ctx("r", "c1")));
            JsonNode filtered = JSON.readTree(quick.execute(
                    args("{\"url\":\"http://127.0.0.1:" + silent.getLocalPort() + "/\",\"timeoutMillis\":60000}"),
                    ctx("r", "c2")));
            JsonNode unknown =
                    JSON.readTree(quick.execute(args("{\"url\":\"http://nowhere.invalid/\"}"), ctx("r", "c3")));
            for (JsonNode r : List.of(refused, filtered, unknown)) {
                assertThat(r.get("ok").asBoolean()).isFalse();
                assertThat(r.get("error").asString())
                        .isEqualTo(refused.get("error").asString());
                assertThat(r.has("latencyMillis")).isFalse();
            }
        }
    }

    @Test
    void withoutAnAllowEntry_loopbackIsRefused_beforeAnyConnection() {
        HttpProbeTool strict =
                new HttpProbeTool(new OpsToolsProperties.Probe(null, null, null), JSON, Clock.systemUTC());
        assertThatThrownBy(() -> strict.execute(args("{\"url\":\"" + url("/ok") + "\"}"), ctx("r", "c")))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("not an allowed probe target");
    }

    @Test
    void https_reportsCertificateExpiry_evenForAPrivateCa() throws Exception {
        String url = "https://127.0.0.1:" + https.getAddress().getPort() + "/";
        JsonNode untrusted = probe("{\"url\":\"" + url + "\"}");
        assertThat(untrusted.get("ok").asBoolean()).isFalse();
        assertThat(untrusted.get("hint").asString()).contains("verifyTls=false");

        JsonNode r = probe("{\"url\":\"" + url + "\",\"verifyTls\":false}");
        assertThat(r.get("status").asInt()).isEqualTo(204);
        assertThat(r.get("tls").get("subject").asString()).isEqualTo("CN=probe.test");
        assertThat(r.get("tls").get("daysLeft").asLong()).isBetween(8L, 10L);
    }
}
