package dev.cadre.platform.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.support.Api;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A graceful stop with MCP streams open ends them at once instead of waiting on their clients (the
 * web server's graceful phase waited out its timeout on streams the SDK never completed, and a
 * stop with thousands of them hung). Its own platform, started and stopped here.
 */
class McpShutdownTest {

    @Test
    void aGracefulStopWithOpenGetStreams_endsThemAndCompletesWithinTheBound() throws Exception {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(CadreApplication.class)
                .run(
                        "--server.port=0",
                        "--server.address=127.0.0.1",
                        "--spring.datasource.url=jdbc:h2:mem:mcp-shutdown;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;"
                                + "DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.retention.enabled=false",
                        "--cadre.runbooks.install-demo=false");
        int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
        Api api = new Api(port);
        var init = api.send(
                "POST",
                "/mcp",
                Api.ADMIN_KEY,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                        + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
                Map.of("Accept", "application/json, text/event-stream"));
        assertThat(init.status()).as(init.body()).isEqualTo(200);
        String session = init.header("mcp-session-id");
        HttpClient http = HttpClient.newHttpClient();
        List<CompletableFuture<byte[]>> streams = new ArrayList<>();
        // Several GET streams of one session: the SDK keeps only the last as the session's stream.
        for (int i = 0; i < 5; i++) {
            HttpResponse<InputStream> r = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
                            .timeout(Duration.ofSeconds(30))
                            .header("Authorization", "Bearer " + Api.ADMIN_KEY)
                            .header("Accept", "text/event-stream")
                            .header("mcp-session-id", session)
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(r.statusCode()).isEqualTo(200);
            streams.add(CompletableFuture.supplyAsync(() -> {
                try (InputStream in = r.body()) {
                    return in.readAllBytes();
                } catch (java.io.IOException e) {
                    return new byte[0];
                }
            }));
        }

        // The web server's graceful phase alone waits up to 30 s for open requests: well within that.
        Assertions.assertTimeoutPreemptively(Duration.ofSeconds(20), context::close);

        for (CompletableFuture<byte[]> s : streams) {
            s.get(10, TimeUnit.SECONDS);
        }
    }
}
