package dev.cadre.platform.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformProcess;
import dev.cadre.platform.support.PlatformTest;
import java.io.File;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real Prometheus server — Debian 12's package, 2.42, the oldest version Cadre supports — scrapes
 * the platform the way an operator configures it (OpenMetrics negotiated, bearer key) and answers a
 * query for {@code cadre_runs_total}. {@code promtool check metrics} alone accepted a scrape that
 * this server rejected whole (exemplars on summary {@code _count} lines).
 */
@PlatformTest
class PrometheusServerTest {

    private static final File PROMETHEUS = new File("/usr/bin/prometheus");
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @TempDir
    Path dir;

    @Test
    void aRealPrometheus_scrapesThePlatform_andAnswersAQueryForCadreRunsTotal() throws Exception {
        assertThat(PROMETHEUS)
                .as("prometheus missing: install Debian's prometheus package (apt-get install -y prometheus),"
                        + " or run ./test, which does")
                .exists();
        Api api = new Api(port);
        api.awaitRunEnd(api.submitRun("triage", "scraped").get("id").asString());

        int prometheusPort = PlatformProcess.freePort();
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                scrape_configs:
                  - job_name: cadre
                    metrics_path: /actuator/prometheus
                    authorization:
                      credentials: %s
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                """.formatted(Api.ADMIN_KEY, port));
        Process prometheus = new ProcessBuilder(
                        PROMETHEUS.getPath(),
                        "--config.file=" + config,
                        "--storage.tsdb.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + prometheusPort)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        try {
            String base = "http://127.0.0.1:" + prometheusPort;
            JsonNode target = Await.until(
                    "Prometheus to scrape the platform (last seen: its target)",
                    () -> activeTarget(base, prometheus),
                    t -> t != null && !t.path("lastScrape").asString().startsWith("0001"));
            assertThat(target.get("health").asString())
                    .as("scrape health; lastError: " + target.path("lastError").asString())
                    .isEqualTo("up");

            JsonNode runs = Await.until(
                    "cadre_runs_total in Prometheus",
                    () -> query(base, "cadre_runs_total{agent=\"triage\",status=\"completed\"}"),
                    r -> !r.isEmpty());
            assertThat(runs.get(0).get("value").get(1).asDouble()).isGreaterThanOrEqualTo(1);

            // Closed label sets exist before anything happened: no test provokes STATE_INCONSISTENCY.
            JsonNode untouched = query(base, "cadre_failures_total{category=\"STATE_INCONSISTENCY\",agent=\"triage\"}");
            assertThat(untouched).hasSize(1);
            assertThat(untouched.get(0).get("value").get(1).asDouble()).isZero();
        } finally {
            prometheus.destroy();
            prometheus.waitFor();
        }
    }

    private static JsonNode activeTarget(String base, Process prometheus) {
        if (!prometheus.isAlive()) {
            throw new AssertionError("prometheus exited with " + prometheus.exitValue());
        }
        try {
            JsonNode targets = get(base + "/api/v1/targets").path("data").path("activeTargets");
            return targets.isEmpty() ? null : targets.get(0);
        } catch (Exception notYetListening) {
            return null;
        }
    }

    private static JsonNode query(String base, String promql) {
        try {
            return get(base + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))
                    .path("data")
                    .path("result");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode get(String url) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }
}
