package dev.cadre.platform.bench;

import dev.cadre.memory.bench.ClosedLoop;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
import dev.cadre.platform.support.RealHosts;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;

/**
 * One host investigation of the shipped host team against a real Prometheus (docs/benchmarks/host.md):
 * Debian's Prometheus scraping two real node_exporters as {@code web-1} (its one core busy) and {@code
 * db-2} ({@link RealHosts}), the packaged jar with the shipped teams on their scripted models, and
 * {@code runs} requests "check host web-1" one after another (a check: inspect, analyse, record, alert;
 * no repair, so no human is waited for). Per run, from the run's own trace: the wall time (the run's
 * root span), the Prometheus queries (count, their summed time, and the inspection's critical path: the
 * slowest of the three parallel {@code host_inspect} calls; count and time as Prometheus's own {@code
 * /metrics} report them), {@code host_target}, and the model turns
 * (count and summed time). Medians of the runs, with the load average before and after: the machine
 * is shared, so the figures move with what else runs on it.
 */
final class HostBench {

    private final PlatformProcess platform;
    private final RealHosts hosts;
    private final int runs;
    final List<String> report = new ArrayList<>();

    HostBench(PlatformProcess platform, RealHosts hosts, int runs) {
        this.platform = platform;
        this.hosts = hosts;
        this.runs = runs;
    }

    /**
     * Prometheus's own count of instant queries answered and the seconds it spent on them, from its
     * {@code /metrics}: the server's side of the team's queries.
     */
    private double[] prometheusQueries() {
        try {
            var http = java.net.http.HttpClient.newHttpClient();
            String body = http.send(
                            java.net.http.HttpRequest.newBuilder(java.net.URI.create(hosts.url() + "/metrics"))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString())
                    .body();
            double count = 0;
            double seconds = 0;
            for (String line : body.split("\n")) {
                if (line.startsWith("prometheus_http_request_duration_seconds_count{handler=\"/api/v1/query\"")) {
                    count += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                } else if (line.startsWith("prometheus_http_request_duration_seconds_sum{handler=\"/api/v1/query\"")) {
                    seconds += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return new double[] {count, seconds};
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The arguments the host team needs: the shipped teams, the Prometheus of {@code hosts}. */
    static List<String> args(RealHosts hosts) {
        return List.of(
                "--cadre.agents.locations=classpath:agents/*.yaml",
                "--cadre.tools.prometheus.url=" + hosts.url(),
                "--cadre.runbooks.install-demo=false");
    }

    void run() {
        Api api = platform.api();
        // Warm-up: the JIT, the connection pools, the first PromQL of each shape.
        for (int i = 0; i < 2; i++) {
            measure(api);
        }
        Map<String, double[]> figures = new LinkedHashMap<>();
        List<String> perRun = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            double load = Measure.loadAverage();
            Map<String, Double> one = measure(api);
            int index = i;
            one.forEach((k, v) -> figures.computeIfAbsent(k, x -> new double[runs])[index] = v);
            perRun.add(Measure.fmt(
                    "run %d: wall %.0f ms, %d queries (%.0f ms summed, inspection path %.0f ms), %d model turns"
                            + " (%.0f ms), load %.2f",
                    i + 1,
                    one.get("wall ms"),
                    one.get("prometheus queries").intValue(),
                    one.get("prometheus ms (summed)"),
                    one.get("inspection path ms"),
                    one.get("model turns").intValue(),
                    one.get("model ms (summed)"),
                    load));
        }
        report.add(Measure.fmt(
                "Shipped host team, \"check host web-1\" against a real Prometheus (1 s scrapes, 2 node_exporters),"
                        + " embedded default, %d runs one after another (2 warm-up runs not counted)",
                runs));
        report.add("");
        report.add("| phase | median | min | max |");
        report.add("|---|---:|---:|---:|");
        figures.forEach((k, v) -> {
            double[] sorted = v.clone();
            java.util.Arrays.sort(sorted);
            report.add(Measure.fmt(
                    "| %s | %.1f | %.1f | %.1f |", k, ClosedLoop.median(v), sorted[0], sorted[sorted.length - 1]));
        });
        report.add("");
        perRun.forEach(r -> report.add("- " + r));
    }

    /** One investigation: its figures from its trace. */
    private Map<String, Double> measure(Api api) {
        double[] before = prometheusQueries();
        String id =
                api.submitRun("ops-orchestrator", "check host web-1").get("id").asString();
        JsonNode end = api.awaitRunEnd(id);
        if (!end.get("status").asString().equals("completed")) {
            throw new IllegalStateException("run " + id + " ended " + end.get("status") + ": " + end);
        }
        JsonNode trace = api.awaitTrace(id);
        JsonNode root = trace.get("roots").get(0);
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("wall ms", root.get("durationMs").asDouble());
        List<JsonNode> all = new ArrayList<>();
        walk(root, all::add);
        double[] after = prometheusQueries();
        out.put("prometheus queries", after[0] - before[0]);
        out.put("prometheus ms (summed)", (after[1] - before[1]) * 1000);
        out.put(
                "host_target ms",
                toolMs(all, "host_target").stream().mapToDouble(d -> d).sum());
        out.put(
                "inspection path ms",
                toolMs(all, "host_inspect").stream().mapToDouble(d -> d).max().orElse(0));
        List<JsonNode> turns = all.stream()
                .filter(n -> n.get("name").asString().startsWith("chat "))
                .toList();
        out.put("model turns", (double) turns.size());
        out.put(
                "model ms (summed)",
                turns.stream().mapToDouble(n -> n.get("durationMs").asDouble()).sum());
        return out;
    }

    private static List<Double> toolMs(List<JsonNode> spans, String tool) {
        return spans.stream()
                .filter(n -> n.get("name").asString().equals("execute_tool " + tool))
                .map(n -> n.get("durationMs").asDouble())
                .toList();
    }

    private static void walk(JsonNode node, Consumer<JsonNode> visit) {
        visit.accept(node);
        for (JsonNode c : node.path("children")) {
            walk(c, visit);
        }
    }

    /** Starts the hosts and the platform, measures, and stops them; the report's lines. */
    static List<String> run(List<String> options, Path out) throws Exception {
        int runs = options.stream()
                .filter(o -> o.startsWith("--host-runs="))
                .map(o -> Integer.parseInt(o.substring("--host-runs=".length())))
                .findFirst()
                .orElse(options.contains("--quick") ? 3 : 9);
        List<String> lines = new ArrayList<>();
        double before = Measure.loadAverage();
        try (RealHosts hosts = RealHosts.start()) {
            PlatformBenchmark.deleteTree(out.resolve("data"));
            try (PlatformProcess p =
                    PlatformBenchmark.platform("host", out, out.resolve("unused-agents.yaml"), args(hosts), "1g")) {
                HostBench b = new HostBench(p, hosts, runs);
                b.run();
                lines.addAll(b.report);
            }
        }
        lines.add("");
        lines.add(Measure.fmt(
                "load average (1 min) before: %.2f, after: %.2f on %d cores, %s; the machine is shared with other"
                        + " builds, so wall times move with their load",
                before, Measure.loadAverage(), Runtime.getRuntime().availableProcessors(), Instant.now()));
        return lines;
    }
}
