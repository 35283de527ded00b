package dev.cadre.platform.tools;

import static dev.cadre.platform.tools.ToolTestSupport.JSON;
import static dev.cadre.platform.tools.ToolTestSupport.args;
import static dev.cadre.platform.tools.ToolTestSupport.ctx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.PlatformProcess;
import dev.cadre.platform.support.RealHosts;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * host_inspect and host_target against a real Prometheus scraping two real node_exporters relabelled as
 * {@code web-1:9100} (one core, pinned busy) and {@code db-2:9100} (no CPU series): see {@link RealHosts}
 * for how "busy" and "quiet" are made true on one machine.
 */
class HostInspectToolTest {

    static RealHosts hosts;
    static final List<SpanData> spans = java.util.Collections.synchronizedList(new ArrayList<>());
    static OpenTelemetrySdk otel;

    @BeforeAll
    static void start() throws Exception {
        hosts = RealHosts.start();
        otel = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(new SpanExporter() {
                            @Override
                            public CompletableResultCode export(Collection<SpanData> batch) {
                                spans.addAll(batch);
                                return CompletableResultCode.ofSuccess();
                            }

                            @Override
                            public CompletableResultCode flush() {
                                return CompletableResultCode.ofSuccess();
                            }

                            @Override
                            public CompletableResultCode shutdown() {
                                return CompletableResultCode.ofSuccess();
                            }
                        }))
                        .build())
                .build();
    }

    @AfterAll
    static void stop() {
        if (hosts != null) {
            hosts.close();
        }
        if (otel != null) {
            otel.close();
        }
    }

    @BeforeEach
    void clearSpans() {
        spans.clear();
    }

    static PrometheusClient client(URI url) {
        return new PrometheusClient(
                new OpsToolsProperties.Prometheus(url, Duration.ofSeconds(5), 50),
                HttpClient.newHttpClient(),
                JSON,
                otel);
    }

    static HostInspectTool inspect(URI url) {
        return new HostInspectTool(
                new HostSignals(
                        client(url),
                        new OpsToolsProperties.HostMetrics(null, null, null, null, null, null, null),
                        JSON),
                new OpsToolsProperties.HostInspect(null, null, null),
                Clock.systemUTC());
    }

    static List<JsonNode> findings(JsonNode out, String category) {
        return StreamSupport.stream(out.path("findings").spliterator(), false)
                .filter(f -> f.path("category").asString().equals(category))
                .toList();
    }

    @Test
    void busyWeb1_getsACpuFindingOnWeb1_withItsQueryAndValue_andEveryQueryIsASpan() {
        JsonNode out = JSON.readTree(inspect(hosts.url())
                .execute(args("{\"host\":\"web-1:9100\",\"resource\":\"cpu\"}"), ctx("run-1", "c1")));

        assertThat(out.path("status").asString()).as(out.toString()).isEqualTo("ok");
        assertThat(out.path("host").asString()).isEqualTo("web-1");
        assertThat(out.path("instance").asString()).isEqualTo("web-1:9100");
        List<JsonNode> cpu = findings(out, "cpu");
        assertThat(cpu).as(out.toString()).hasSize(1);
        JsonNode f = cpu.get(0);
        assertThat(f.path("target").asString()).isEqualTo("web-1");
        assertThat(f.path("id").asString()).isEqualTo("cpu@web-1");
        assertThat(f.path("severity").asString()).as(out.toString()).isIn("high", "critical");
        // Which mode leads (user for the busy process, nice when niced builds share the core) is the machine's.
        assertThat(f.path("description").asString())
                .startsWith("CPU ")
                .containsPattern(" busy on web-1 \\((user|nice|system) [0-9]+%");
        assertThat(f.path("evidence").path("query").asString())
                .isEqualTo("sum by (mode) (rate(node_cpu_seconds_total{instance=\"web-1:9100\"}[600s]))");
        assertThat(f.path("evidence").path("busy").asDouble()).isGreaterThanOrEqualTo(0.85);
        assertThat(out.path("signals").path("cpu").path("busy").asDouble())
                .isEqualTo(f.path("evidence").path("busy").asDouble());

        // up, CPU by mode now, by mode in the baseline, load per core: one span each, with the series count.
        assertThat(out.path("queries").asInt()).isEqualTo(4);
        assertThat(spans)
                .extracting(SpanData::getName)
                .containsExactly("prometheus query", "prometheus query", "prometheus query", "prometheus query");
        assertThat(spans.get(0).getAttributes().get(PrometheusClient.QUERY)).isEqualTo("up{instance=\"web-1:9100\"}");
        assertThat(spans.get(0).getAttributes().get(PrometheusClient.SERIES)).isEqualTo(1L);
        assertThat(spans.get(1).getAttributes().get(PrometheusClient.QUERY))
                .isEqualTo(f.path("evidence").path("query").asString());
        assertThat(spans.get(1).getAttributes().get(PrometheusClient.SERIES)).isGreaterThanOrEqualTo(2L);
        assertThat(spans.get(1).getAttributes().get(PrometheusClient.URL))
                .isEqualTo(hosts.url().toString());
    }

    /** Inside a run's tool call, each query names the run, so the run's own trace (the trace store) keeps it. */
    @Test
    void insideAToolCallOfARun_everyQuerySpanNamesTheRun_underTheToolCallsSpan() {
        io.opentelemetry.api.trace.Span call = otel.getTracer("test")
                .spanBuilder("execute_tool host_inspect")
                .setAttribute(PrometheusClient.RUN_ID, "run-7")
                .startSpan();
        try (var ignored = call.makeCurrent()) {
            inspect(hosts.url()).execute(args("{\"host\":\"web-1:9100\",\"resource\":\"cpu\"}"), ctx("run-7", "c7"));
        } finally {
            call.end();
        }
        List<SpanData> queries = spans.stream()
                .filter(s -> s.getName().equals("prometheus query"))
                .toList();
        assertThat(queries).hasSize(4);
        assertThat(queries).allSatisfy(q -> {
            assertThat(q.getAttributes().get(PrometheusClient.RUN_ID)).isEqualTo("run-7");
            assertThat(q.getParentSpanId()).isEqualTo(call.getSpanContext().getSpanId());
        });
    }

    @Test
    void web1ByName_resolvesItsInstance_andAllResourcesNameWeb1Only() {
        JsonNode out = JSON.readTree(inspect(hosts.url()).execute(args("{\"host\":\"web-1\"}"), ctx("run-2", "c1")));

        assertThat(out.path("instance").asString()).as(out.toString()).isEqualTo("web-1:9100");
        assertThat(findings(out, "memory")).hasSize(1);
        assertThat(findings(out, "memory").get(0).path("target").asString()).isEqualTo("web-1");
        assertThat(findings(out, "memory").get(0).path("evidence").path("query").asString())
                .contains("instance=\"web-1:9100\"");
        for (JsonNode f : out.path("findings")) {
            assertThat(f.path("target").asString()).as(f.toString()).startsWith("web-1");
        }
    }

    @Test
    void quietDb2_hasNoCpuFinding_andSaysItHasNoCpuData() {
        JsonNode out = JSON.readTree(inspect(hosts.url())
                .execute(args("{\"host\":\"db-2:9100\",\"resource\":\"cpu\"}"), ctx("run-3", "c1")));

        assertThat(findings(out, "cpu")).as(out.toString()).isEmpty();
        List<JsonNode> monitoring = findings(out, "monitoring");
        assertThat(monitoring).hasSize(1);
        assertThat(monitoring.get(0).path("severity").asString()).isEqualTo("low");
        assertThat(monitoring.get(0).path("target").asString()).isEqualTo("db-2");
        assertThat(monitoring.get(0).path("description").asString())
                .startsWith("no cpu data for instance db-2:9100 (node_cpu_seconds_total has no series");
    }

    @Test
    void anInstancePrometheusNeverScraped_isNoData_andNoFindingAboutAnotherHost() {
        JsonNode out = JSON.readTree(inspect(hosts.url())
                .execute(args("{\"host\":\"web-9:9100\",\"resource\":\"all\"}"), ctx("run-4", "c1")));

        assertThat(out.path("status").asString()).isEqualTo("no-data");
        assertThat(out.path("findings")).hasSize(1);
        JsonNode f = out.path("findings").get(0);
        assertThat(f.path("target").asString()).isEqualTo("web-9");
        assertThat(f.path("severity").asString()).isEqualTo("high");
        assertThat(f.path("description").asString())
                .isEqualTo("no data for instance web-9:9100 in Prometheus at " + hosts.url()
                        + " (no scrape of it in the last 24 hours): nothing about web-9 was measured and no other host"
                        + " was inspected instead");
        assertThat(out.has("signals")).isFalse();
    }

    @Test
    void noPrometheusConfigured_saysWhichSetting() {
        JsonNode out = JSON.readTree(inspect(null).execute(args("{\"host\":\"web-1:9100\"}"), ctx("run-5", "c1")));

        assertThat(out.path("status").asString()).isEqualTo("unavailable");
        assertThat(out.path("findings")).hasSize(1);
        assertThat(out.path("findings").get(0).path("description").asString())
                .isEqualTo(
                        "cannot see web-1: no Prometheus configured: cadre.tools.prometheus.url is not set"
                                + " (EXECUTION_ERROR); nothing about web-1 was measured and no other host was inspected instead");
        assertThat(out.path("queries").asInt()).isZero();
    }

    @Test
    void prometheusStopped_isACommunicationErrorFindingNamingTheUrl() throws Exception {
        // A Prometheus of its own, stopped: the shared one keeps serving the other tests.
        URI url = URI.create("http://127.0.0.1:" + PlatformProcess.freePort());
        JsonNode out = JSON.readTree(inspect(url).execute(args("{\"host\":\"web-1:9100\"}"), ctx("run-6", "c1")));

        assertThat(out.path("status").asString()).isEqualTo("unavailable");
        assertThat(out.path("error").path("category").asString()).isEqualTo("COMMUNICATION_ERROR");
        JsonNode f = out.path("findings").get(0);
        assertThat(out.path("findings")).hasSize(1);
        assertThat(f.path("failure").asString()).isEqualTo("COMMUNICATION_ERROR");
        assertThat(f.path("target").asString()).isEqualTo("web-1");
        assertThat(f.path("description").asString())
                .startsWith(
                        "cannot see web-1: Prometheus at " + url + " (cadre.tools.prometheus.url) cannot be reached");
        assertThat(spans).hasSize(1);
        assertThat(spans.get(0).getStatus().getStatusCode()).isEqualTo(io.opentelemetry.api.trace.StatusCode.ERROR);
    }

    @Test
    void hostTarget_findsTheHostAPersonNamed_amongTheScrapedInstances() {
        HostTargetTool tool = new HostTargetTool(client(hosts.url()), JSON, Clock.systemUTC());

        JsonNode typed = JSON.readTree(tool.execute(args("{\"request\":\"why is db-2 slow?\"}"), ctx("r", "c")));
        assertThat(typed.path("kind").asString()).isEqualTo("host");
        assertThat(typed.path("name").asString()).isEqualTo("db-2");
        assertThat(typed.path("instance").asString()).isEqualTo("db-2:9100");

        JsonNode alert = JSON.readTree(tool.execute(
                args(
                        "{\"alert\":\"{\\\"name\\\":\\\"web-1\\\",\\\"instance\\\":\\\"web-1:9100\\\",\\\"startsAt\\\":\\\"2026-12-07T20:00:00Z\\\"}\","
                                + "\"request\":\"Triage alert HighCpu firing on web-1:9100\"}"),
                ctx("r", "c")));
        assertThat(alert.path("instance").asString()).isEqualTo("web-1:9100");
        assertThat(alert.path("startsAt").asString()).isEqualTo("2026-12-07T20:00:00Z");

        JsonNode platform =
                JSON.readTree(tool.execute(args("{\"request\":\"check the platform's own host\"}"), ctx("r", "c")));
        assertThat(platform.path("kind").asString()).isEqualTo("platform");

        JsonNode none = JSON.readTree(tool.execute(args("{\"request\":\"is everything fine?\"}"), ctx("r", "c")));
        assertThat(none.path("kind").asString()).isEqualTo("unknown");
        assertThat(none.path("reason").asString()).contains("db-2:9100, web-1:9100");
    }
}
