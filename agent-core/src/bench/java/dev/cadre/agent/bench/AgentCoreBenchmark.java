package dev.cadre.agent.bench;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.AgentTree;
import dev.cadre.agent.Budget;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunLimits;
import dev.cadre.agent.run.RunObserver;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedCall;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent-core benchmark of docs/benchmarks/agent-core.md; not a test. Run it with
 * {@code ./mvnw -B -q -pl agent-core -Dbench=agent-core verify} (add {@code -Dbench.args=--quick} for a short
 * smoke run; {@code --overhead-only}, {@code --compare-only} or {@code --economy-only} for one section).
 *
 * <ol>
 *   <li>Seed 002's workload: an orchestrator delegates to N workers in one turn; each worker makes 3
 *       model calls of 80 ms simulated latency (two tool turns and a final answer). Serial = the same
 *       run with a per-run cap of one concurrent subagent; parallel = cap N. 5 runs each, medians.
 *   <li>Overhead: the same shape with 1,000 workers of one zero-latency turn, all allowed at once (cap = N); microseconds of wall
 *       time per subagent, with a no-op OpenTelemetry and with every span exported to an in-memory
 *       exporter (synchronous SimpleSpanProcessor).
 *   <li>The floor for comparison: bare virtual threads sleeping the same 3 x 80 ms.
 *   <li>Cadre against LangChain4j's agentic parallel workflow on the same workload, in this JVM
 *       ({@link OrchestrationComparison}, docs/benchmarks/orchestration.md).
 *   <li>Context economy of seed 004: orchestrator with data and analysis workers against one agent
 *       holding all 300 order rows ({@link ContextEconomyBench}, docs/benchmarks/context-economy.md).
 * </ol>
 */
public final class AgentCoreBenchmark {

    private static final Duration LATENCY = Duration.ofMillis(80);

    private final int runs;
    private final int overheadRuns;

    private AgentCoreBenchmark(boolean quick) {
        this.runs = quick ? 2 : 5;
        this.overheadRuns = quick ? 5 : 25;
    }

    public static void main(String[] args) throws Exception {
        List<String> options = Arrays.asList(args);
        boolean quick = options.contains("--quick");
        AgentCoreBenchmark bench = new AgentCoreBenchmark(quick);
        System.out.printf(
                Locale.ROOT,
                "agent-core benchmark - JDK %s, %d cores, %d runs per median, load average before: %.2f%n",
                Runtime.version(),
                Runtime.getRuntime().availableProcessors(),
                bench.runs,
                loadAverage());
        boolean only = options.stream().anyMatch(o -> o.endsWith("-only"));
        if (!only) {
            bench.latencyTable(quick);
        }
        if (!only || options.contains("--overhead-only")) {
            bench.overheadTable();
        }
        if (!only || options.contains("--compare-only")) {
            new OrchestrationComparison(bench.runs, bench.overheadRuns, quick).print();
        }
        if (!only || options.contains("--economy-only")) {
            ContextEconomyBench.print(bench.runs);
        }
        System.out.printf(Locale.ROOT, "%nload average after: %.2f%n", loadAverage());
    }

    private void latencyTable(boolean quick) throws Exception {
        // Warm the JIT on the same code paths before anything is measured: the workload without its
        // latency compiles the loop in seconds instead of during the measured runs.
        ScriptedModel warm = model(256, Duration.ZERO, 3);
        try (AgentRunner runner = AgentRunner.builder(tree(256, warm))
                .limits(new RunLimits(256, 0.25))
                .build()) {
            for (int w = 0; w < 60; w++) {
                runOnce(runner, "warmup-" + w);
            }
        }
        median(16, 16, 3);
        median(16, 1, 1);
        System.out.println();
        System.out.println("| workload | N | serial median (s) | parallel median (s) | speedup | efficiency"
                + " | floor (bare virtual threads) efficiency |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int n : quick ? new int[] {2, 16} : new int[] {2, 16, 256}) {
            double serial = median(n, 1, runs);
            double parallel = median(n, n, runs);
            double floor = floorEfficiency(n);
            double speedup = serial / parallel;
            System.out.printf(
                    Locale.ROOT,
                    "| %d x 3 turns x 80 ms | %d | %.4f | %.4f | %.3fx | %.3f | %.3f |%n",
                    n,
                    n,
                    serial,
                    parallel,
                    speedup,
                    speedup / n,
                    floor);
        }
    }

    private void overheadTable() throws Exception {
        System.out.println();
        System.out.println("| overhead, zero-latency model | N | median wall time per subagent (us)"
                + " | process CPU per subagent (us) | runs |");
        System.out.println("|---|---|---|---|---|");
        int n = 1_000;
        // One discarded pass over every configuration first: whichever ran first would otherwise pay
        // for the JIT compiling the loop (measured: up to 10x on this machine).
        for (Exporting exporting : Exporting.values()) {
            overhead(n, exporting);
        }
        for (Exporting exporting : Exporting.values()) {
            double[] r = overhead(n, exporting);
            System.out.printf(
                    Locale.ROOT, "| %s | %d | %.1f | %.1f | %d |%n", exporting.label, n, r[0], r[1], overheadRuns);
        }
        System.out.printf(
                Locale.ROOT,
                "| floor: bare virtual thread per subagent | %d | %.1f | - | %d |%n",
                n,
                floorOverhead(n),
                overheadRuns);
    }

    private enum Exporting {
        NONE("no-op OpenTelemetry"),
        SIMPLE("spans to in-memory exporter, simple (synchronous) processor"),
        BATCH("spans to in-memory exporter, batch processor, flushed each run");

        private final String label;

        Exporting(String label) {
            this.label = label;
        }
    }

    // ---- seed 002's workload ----

    private static AgentTree tree(int n, ModelPort model) {
        ToolRegistry tools = ToolRegistry.of(Tools.of(
                "read_file",
                "Reads a file.",
                "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}",
                Risk.AUTO,
                (args, ctx) -> "VALUE = 42"));
        AgentSpec orchestrator = AgentSpec.builder("orchestrator")
                .description("Splits and delegates.")
                .instructions("You are the orchestrator.")
                .workers("worker")
                .budget(new Budget(5, Long.MAX_VALUE / 4, Duration.ofMinutes(30)))
                .build();
        AgentSpec worker = AgentSpec.builder("worker")
                .description("Edits one module.")
                .instructions("You edit one module.")
                .tools("read_file")
                .budget(new Budget(5, 100_000, Duration.ofMinutes(30)))
                .build();
        return AgentTree.build(List.of(orchestrator, worker), tools, ref -> model);
    }

    private static ScriptedModel model(int n, Duration latency, int workerTurns) {
        ScriptedCall[] calls = new ScriptedCall[n];
        for (int i = 0; i < n; i++) {
            calls[i] = new ScriptedCall(null, "worker", JsonSchemas.parse("{\"task\":\"edit module " + i + "\"}"));
        }
        ScriptedTurn[] turns = new ScriptedTurn[workerTurns];
        for (int t = 0; t < workerTurns - 1; t++) {
            turns[t] = ScriptedTurn.calls(
                    new ScriptedCall(null, "read_file", JsonSchemas.parse("{\"path\":\"module.py\"}")));
        }
        turns[workerTurns - 1] = ScriptedTurn.text("edited: {{results.read_file}}");
        return new ScriptedModel(
                Map.of(
                        "orchestrator", AgentScript.of(ScriptedTurn.calls(calls), ScriptedTurn.text("all done")),
                        "worker", AgentScript.of(turns).withLatency(latency)),
                false);
    }

    private static double median(int n, int cap, int times) throws Exception {
        ScriptedModel model = model(n, LATENCY, 3);
        List<Double> seconds = new ArrayList<>();
        try (AgentRunner runner = AgentRunner.builder(tree(n, model))
                .limits(new RunLimits(cap, 0.25))
                .build()) {
            for (int r = 0; r < times; r++) {
                long t0 = System.nanoTime();
                runOnce(runner, "bench-" + n + "-" + cap + "-" + r);
                seconds.add((System.nanoTime() - t0) / 1e9);
            }
        }
        return median(seconds);
    }

    private static void runOnce(AgentRunner runner, String runId) throws InterruptedException {
        RunOutcome outcome = runner.run(RunRequest.of(runId, "orchestrator", "edit the modules"), RunObserver.NONE);
        if (outcome.status() != OutcomeStatus.OK
                || outcome.subagents().stream().anyMatch(s -> s.status() != OutcomeStatus.OK)) {
            throw new IllegalStateException("benchmark run failed: " + outcome.failure() + " "
                    + outcome.subagents().getFirst());
        }
    }

    private double floorEfficiency(int n) throws InterruptedException {
        List<Double> serial = new ArrayList<>();
        List<Double> parallel = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            // Sequential sleeps add up exactly: time at most 16 of them and scale, not 256 x 240 ms.
            int sample = Math.min(n, 16);
            long t0 = System.nanoTime();
            for (int i = 0; i < sample; i++) {
                threeTurns();
            }
            serial.add((System.nanoTime() - t0) / 1e9 * n / sample);
            t0 = System.nanoTime();
            List<Thread> threads = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        threeTurns();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            parallel.add((System.nanoTime() - t0) / 1e9);
        }
        return median(serial) / median(parallel) / n;
    }

    private static void threeTurns() throws InterruptedException {
        for (int t = 0; t < 3; t++) {
            Thread.sleep(LATENCY);
        }
    }

    // ---- overhead ----

    /** Median wall-clock microseconds per subagent, and process CPU microseconds per subagent over all runs. */
    private double[] overhead(int n, Exporting exporting) throws Exception {
        ScriptedModel model = model(n, Duration.ZERO, 1);
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        SdkTracerProvider tracerProvider = exporting == Exporting.NONE
                ? null
                : SdkTracerProvider.builder()
                        .addSpanProcessor(
                                exporting == Exporting.SIMPLE
                                        ? SimpleSpanProcessor.create(exporter)
                                        : BatchSpanProcessor.builder(exporter)
                                                .setMaxQueueSize(16_384)
                                                .setMaxExportBatchSize(2_048)
                                                .build())
                        .build();
        OpenTelemetry otel = tracerProvider == null
                ? OpenTelemetry.noop()
                : OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build();
        List<Double> micros = new ArrayList<>();
        try (AgentRunner runner = AgentRunner.builder(tree(n, model))
                .openTelemetry(otel)
                .limits(new RunLimits(n, 0.25))
                .build()) {
            for (int w = 0; w < 30; w++) {
                runOnce(runner, "warmup-overhead-" + w);
                flush(tracerProvider);
                exporter.reset();
            }
            long cpu0 = processCpuNanos();
            for (int r = 0; r < overheadRuns; r++) {
                long t0 = System.nanoTime();
                runOnce(runner, "overhead-" + r);
                // A batch processor exports on its own thread: the run's spans are not out until it has.
                flush(tracerProvider);
                micros.add((System.nanoTime() - t0) / 1e3 / n);
                int exported = exporter.getFinishedSpanItems().size();
                if (tracerProvider != null && exported != 3 + 3 * n) {
                    throw new IllegalStateException("expected " + (3 + 3 * n) + " spans, exported " + exported);
                }
                exporter.reset();
            }
            double cpuPerSubagent = (processCpuNanos() - cpu0) / 1e3 / ((double) n * overheadRuns);
            return new double[] {median(micros), cpuPerSubagent};
        } finally {
            if (tracerProvider != null) {
                tracerProvider.close();
            }
        }
    }

    private static void flush(SdkTracerProvider tracerProvider) {
        if (tracerProvider != null) {
            tracerProvider.forceFlush().join(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private double floorOverhead(int n) throws InterruptedException {
        List<Double> micros = new ArrayList<>();
        AtomicInteger sink = new AtomicInteger();
        for (int r = 0; r < overheadRuns + 10; r++) {
            long t0 = System.nanoTime();
            List<Thread> threads = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                threads.add(Thread.ofVirtual().start(sink::incrementAndGet));
            }
            for (Thread t : threads) {
                t.join();
            }
            if (r >= 10) {
                micros.add((System.nanoTime() - t0) / 1e3 / n);
            }
        }
        return median(micros);
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        int m = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(m) : (sorted.get(m - 1) + sorted.get(m)) / 2;
    }
}
