package dev.cadre.platform.tools;

import static dev.cadre.platform.tools.ToolTestSupport.JSON;
import static dev.cadre.platform.tools.ToolTestSupport.args;
import static dev.cadre.platform.tools.ToolTestSupport.ctx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.ToolException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Against a real Prometheus (Debian's {@code prometheus} package) started on a free port, scraping
 * itself every second. Skipped with a message where the binary is missing; CI installs it.
 */
class PrometheusQueryToolTest {

    static final Path BINARY = Path.of("/usr/bin/prometheus");
    static Process prometheus;
    static PrometheusQueryTool tool;
    static Path work;

    @BeforeAll
    static void startPrometheus() throws Exception {
        // A real Prometheus is the counterpart of this tool; without it the test fails, never skips.
        assertThat(Files.isExecutable(BINARY))
                .as("Debian package 'prometheus' is not installed: apt-get install -y prometheus (.ci/run does)")
                .isTrue();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        work = Files.createTempDirectory("cadre-prometheus");
        Path config = work.resolve("prometheus.yml");
        Files.writeString(
                config,
                "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                        + "scrape_configs:\n  - job_name: self\n    static_configs: [{targets: ['127.0.0.1:" + port
                        + "']}]\n");
        prometheus = new ProcessBuilder(
                        BINARY.toString(),
                        "--config.file=" + config,
                        "--storage.tsdb.path=" + work.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true)
                .redirectOutput(work.resolve("prometheus.log").toFile())
                .start();
        tool = new PrometheusQueryTool(
                new OpsToolsProperties.Prometheus(URI.create("http://127.0.0.1:" + port), Duration.ofSeconds(5), 50),
                HttpClient.newHttpClient(),
                JSON,
                Clock.systemUTC());
        try {
            await("Prometheus to scrape itself")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptionsMatching(e -> e instanceof ToolException || e instanceof IOException)
                    .until(() -> JSON.readTree(tool.execute(args("{\"query\":\"up{job='self'}\"}"), ctx("r", "c")))
                                    .get("seriesCount")
                                    .asInt()
                            > 0);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "Prometheus did not start: " + Files.readString(work.resolve("prometheus.log")), e);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (prometheus != null) {
            prometheus.destroy();
            prometheus.waitFor();
        }
    }

    @Test
    void instantQuery_returnsEachSeriesWithLabelsAndValue() throws Exception {
        JsonNode r = JSON.readTree(tool.execute(args("{\"query\":\"up\"}"), ctx("r", "c1")));
        assertThat(r.get("resultType").asString()).isEqualTo("vector");
        assertThat(r.get("series").get(0).get("labels").get("job").asString()).isEqualTo("self");
        assertThat(r.get("series").get(0).get("value").asString()).isEqualTo("1");
    }

    @Test
    void rangeQuery_summarisesPointsMinMaxAndLast() {
        // Prometheus scrapes once a second: wait until the range holds at least two points.
        await("two scrapes in the range").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode r = JSON.readTree(tool.execute(
                    args("{\"query\":\"up\",\"start\":\"-60s\",\"end\":\"now\",\"step\":\"1s\"}"), ctx("r", "c2")));
            assertThat(r.get("resultType").asString()).isEqualTo("matrix");
            JsonNode s = r.get("series").get(0);
            assertThat(s.get("points").asInt()).isGreaterThanOrEqualTo(2);
            assertThat(s.get("max").asDouble()).isEqualTo(1.0);
            assertThat(s.get("last").asString()).isEqualTo("1");
        });
    }

    @Test
    void badPromql_isAnExecutionErrorWithPrometheusReason() {
        assertThatThrownBy(() -> tool.execute(args("{\"query\":\"sum(\"}"), ctx("r", "c3")))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.category()).isEqualTo(FailureCategory.EXECUTION_ERROR);
                    assertThat(e.code()).isEqualTo("promql_bad_data");
                    assertThat(e.getMessage()).contains("parse error");
                });
    }

    @Test
    void unreachablePrometheus_isACommunicationError_andMissingConfigSaysWhatToSet() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        var down = new PrometheusQueryTool(
                new OpsToolsProperties.Prometheus(URI.create("http://127.0.0.1:" + closed), Duration.ofSeconds(2), 50),
                HttpClient.newHttpClient(),
                JSON,
                Clock.systemUTC());
        assertThatThrownBy(() -> down.execute(args("{\"query\":\"up\"}"), ctx("r", "c4")))
                .isInstanceOfSatisfying(
                        ToolException.class,
                        e -> assertThat(e.category()).isEqualTo(FailureCategory.COMMUNICATION_ERROR));
        var none = new PrometheusQueryTool(
                new OpsToolsProperties.Prometheus(null, null, 0), HttpClient.newHttpClient(), JSON, Clock.systemUTC());
        assertThatThrownBy(() -> none.execute(args("{\"query\":\"up\"}"), ctx("r", "c5")))
                .hasMessageContaining("cadre.tools.prometheus.url");
    }
}
