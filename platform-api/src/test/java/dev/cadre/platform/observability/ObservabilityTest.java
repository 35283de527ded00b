package dev.cadre.platform.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

@PlatformTest
@ExtendWith(OutputCaptureExtension.class)
class ObservabilityTest {

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private String runToEnd(String agent, String input) {
        String id = api.submitRun(agent, input).get("id").asString();
        api.awaitRunEnd(id);
        return id;
    }

    /** The run's whole trace: its spans reach the store in batches after they end. */
    private JsonNode trace(String runId) {
        return api.awaitTrace(runId);
    }

    /** "name[status,category]{children}" with children sorted, so concurrent siblings compare stably. */
    private static String shape(JsonNode node) {
        List<String> children = new ArrayList<>();
        node.get("children").forEach(c -> children.add(shape(c)));
        children.sort(String::compareTo);
        String category = node.get("failureCategory").isNull()
                ? ""
                : "," + node.get("failureCategory").asString();
        return node.get("name").asString() + "[" + node.get("status").asString() + category + "]"
                + (children.isEmpty() ? "" : children.stream().collect(Collectors.joining(" ", "{", "}")));
    }

    @Test
    void trace_isTheExactCallChain_ofAnOrchestratorWithThreeWorkersAndAFailingTool() {
        String run = runToEnd("triage", "span tree");
        JsonNode trace = trace(run);
        assertThat(trace.get("roots").size()).isEqualTo(1);
        JsonNode root = trace.get("roots").get(0);
        assertThat(shape(root))
                .isEqualTo("invoke_agent triage[ok]{"
                        + "chat default[ok] "
                        + "chat default[ok] "
                        + "execute_tool probe-a[ok]{invoke_agent probe-a[ok]{chat default[ok]}} "
                        + "execute_tool probe-b[ok]{invoke_agent probe-b[ok]{chat default[ok]}} "
                        + "execute_tool probe-c[ok]{invoke_agent probe-c[ok]{"
                        + "chat default[ok] chat default[ok] execute_tool broken_probe[failed,EXECUTION_ERROR]}}}");
        assertThat(trace.get("spanCount").asInt()).isEqualTo(14);
        assertThat(trace.get("traceId").asString()).hasSize(32);
        // The run records its trace id as the root span is exported, just after the span is stored.
        assertThat(Await.until(
                                "run " + run + " to record its trace id",
                                () -> api.get("/api/v1/runs/" + run, Api.ADMIN_KEY)
                                        .json()
                                        .path("traceId"),
                                id -> id.isString())
                        .asString())
                .isEqualTo(trace.get("traceId").asString());

        assertThat(root.get("kind").asString()).isEqualTo("agent");
        assertThat(root.get("depth").asLong()).isZero();
        assertThat(root.get("iterations").asLong()).isEqualTo(2);
        assertThat(root.get("inputTokens").asLong()).isPositive();
        assertThat(root.get("toolsCalled").valueStream().map(JsonNode::asString))
                .containsExactlyInAnyOrder("probe-a", "probe-b", "probe-c");
        JsonNode workerC = root.get("children")
                .valueStream()
                .filter(c -> c.get("name").asString().equals("execute_tool probe-c"))
                .findFirst()
                .orElseThrow()
                .get("children")
                .get(0);
        assertThat(workerC.get("kind").asString()).isEqualTo("agent");
        assertThat(workerC.get("depth").asLong()).isEqualTo(1);
        assertThat(workerC.get("sessionId").asString()).startsWith(run + "/probe-c#");
        JsonNode broken = workerC.get("children")
                .valueStream()
                .filter(c -> c.get("kind").asString().equals("tool"))
                .findFirst()
                .orElseThrow();
        assertThat(broken.get("error").asString()).contains("probe exploded");
        assertThat(broken.get("outputSummary").asString()).contains("EXECUTION_ERROR");
    }

    @Test
    void prometheus_exposesCadreMetrics_withTheirLabels_andParses() throws Exception {
        Map<String, List<PrometheusText.Sample>> before = scrape();
        String run = runToEnd("triage", "metrics");
        api.send("PUT", "/api/v1/memory/metrics-test/k", Api.ADMIN_KEY, "{}", Map.of("If-None-Match", "*"));
        api.send("PUT", "/api/v1/memory/metrics-test/k", Api.ADMIN_KEY, "{}", Map.of("If-None-Match", "*"));
        // The run's end is counted just after its status is stored (a run listener): wait for this
        // run's counts to arrive, not for a series an earlier run already made.
        Map<String, String> completed = Map.of("agent", "triage", "status", "completed");
        Map<String, String> probeA = Map.of("worker", "probe-a");
        Map<String, String> probeAOk = Map.of("worker", "probe-a", "outcome", "ok");
        Await.until(
                "the end of run " + run + " in the metrics",
                this::scrape,
                m -> PrometheusText.value(m, "cadre_runs_total", completed)
                                > PrometheusText.value(before, "cadre_runs_total", completed)
                        && PrometheusText.value(m, "cadre_delegations_total", probeAOk)
                                > PrometheusText.value(before, "cadre_delegations_total", probeAOk)
                        && PrometheusText.value(m, "cadre_delegations_useful_total", probeA)
                                > PrometheusText.value(before, "cadre_delegations_useful_total", probeA));
        var scrape = api.get("/actuator/prometheus", Api.ADMIN_KEY);
        assertThat(scrape.status()).isEqualTo(200);
        Map<String, List<PrometheusText.Sample>> metrics = PrometheusText.parse(scrape.body());
        assertPromtoolParses(scrape.body());

        assertThat(PrometheusText.value(metrics, "cadre_runs_total", Map.of("agent", "triage", "status", "completed")))
                .isGreaterThanOrEqualTo(1);
        assertThat(metrics)
                .containsKeys(
                        "cadre_run_duration_seconds_bucket",
                        "cadre_agent_invocations_total",
                        "cadre_agent_duration_seconds_bucket",
                        "cadre_tokens_total",
                        "cadre_tool_calls_total",
                        "cadre_tool_duration_seconds_bucket",
                        "cadre_failures_total",
                        "cadre_memory_operations_total",
                        "cadre_approvals_pending",
                        "cadre_runs_queued",
                        "cadre_delegations_total",
                        "cadre_delegations_useful_total");
        assertThat(PrometheusText.value(metrics, "cadre_memory_conflicts_total", Map.of("namespace", "metrics-test")))
                .isEqualTo(1);
        assertThat(PrometheusText.value(
                        metrics, "cadre_failures_total", Map.of("category", "EXECUTION_ERROR", "agent", "probe-c")))
                .isGreaterThanOrEqualTo(1);
        assertThat(PrometheusText.value(
                        metrics, "cadre_tool_calls_total", Map.of("tool", "broken_probe", "outcome", "failed")))
                .isGreaterThanOrEqualTo(1);
        assertThat(PrometheusText.value(
                        metrics, "cadre_delegations_total", Map.of("worker", "probe-a", "outcome", "ok")))
                .isGreaterThanOrEqualTo(1);
        assertThat(PrometheusText.value(
                        metrics,
                        "cadre_tokens_total",
                        Map.of("agent", "triage", "model", "scripted:default", "type", "input")))
                .isPositive();
        // No identifiers of runs, traces or conversations as labels: the series count stays bounded.
        assertThat(scrape.body()).doesNotContain(run);
        metrics.forEach(
                (name, samples) -> samples.forEach(s -> assertThat(s.labels().keySet())
                        .doesNotContain("run", "run_id", "trace_id", "session", "conversation_id")));
    }

    @Test
    void aCallersW3cTraceContext_flowsIntoTheRunsSpans() {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        var r = api.send(
                "POST",
                "/api/v1/runs",
                Api.ADMIN_KEY,
                Api.json(Map.of("agent", "triage", "input", "traced")),
                Map.of("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01"));
        assertThat(r.status()).isEqualTo(202);
        String run = r.json().get("id").asString();
        Await.until(
                "run " + run + " to end",
                () -> api.get("/api/v1/runs/" + run, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString(),
                s -> s.matches("completed|failed|canceled|rejected"));
        JsonNode trace = trace(run);
        assertThat(trace.get("traceId").asString()).isEqualTo(traceId);
        assertThat(trace.get("roots").get(0).get("parentSpanId").isNull())
                .as("the root agent span hangs under the caller's (HTTP server) span")
                .isFalse();
    }

    private Map<String, List<PrometheusText.Sample>> scrape() {
        return PrometheusText.parse(
                api.get("/actuator/prometheus", Api.ADMIN_KEY).body());
    }

    /** Prometheus's own parser (Debian package prometheus, which CI installs) must accept the exposition. */
    private static void assertPromtoolParses(String exposition) throws Exception {
        java.io.File promtool = new java.io.File("/usr/bin/promtool");
        assertThat(promtool)
                .as("promtool missing: install Debian's prometheus package (apt-get install -y prometheus)")
                .exists();
        Process p = new ProcessBuilder(promtool.getPath(), "check", "metrics")
                .redirectErrorStream(true)
                .start();
        try (var in = p.getOutputStream()) {
            in.write(exposition.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor();
        assertThat(out).as("promtool check metrics").doesNotContain("parsing error");
        assertThat(p.exitValue()).as("promtool exit code; output: " + out).isIn(0, 3);
    }

    @Test
    void secretsInToolArguments_appearInNoSpanEventOrLog(CapturedOutput output) {
        String run = runToEnd("leaky", "leak test");
        JsonNode trace = trace(run);
        String events = api.get("/api/v1/runs/" + run + "/events?scope=all", Api.ADMIN_KEY)
                .body();
        String spans = trace.toString();
        for (String secret : List.of("hunter2-hunter2-hunter2", "sk-live-abcdefghijklmnopqrstuvwxyz0123")) {
            assertThat(events).doesNotContain(secret);
            assertThat(spans).doesNotContain(secret);
            assertThat(output.getAll()).doesNotContain(secret);
        }
        // The capture itself worked: the arguments are there, masked.
        assertThat(events).contains("[REDACTED]");
        assertThat(spans).contains("[REDACTED]");
    }
}
