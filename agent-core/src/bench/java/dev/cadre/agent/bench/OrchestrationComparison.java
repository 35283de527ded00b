package dev.cadre.agent.bench;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Cadre against LangChain4j's agentic parallel workflow (docs/benchmarks/orchestration.md), both in
 * this JVM on the same workload: N workers x 3 model calls of 80 ms (two {@code read_file} tool turns
 * and an answer), aggregated in worker order. Runs of the two frameworks are interleaved (Cadre first
 * on even rounds, LangChain4j first on odd ones) so that a change of the machine's load hits both.
 * Every figure is a median of {@code runs} runs; each ratio is Cadre / LangChain4j.
 *
 * <p>The LangChain4j side lives in src/bench/java and is compiled only by the {@code bench} profile;
 * it is loaded by name so that the normal build never needs LangChain4j.
 */
final class OrchestrationComparison {

    private static final Duration LATENCY = Duration.ofMillis(80);
    private static final int TURNS = 3;
    private static final String LANGCHAIN4J = "dev.cadre.agent.bench.LangChain4jWorkload";

    private final int runs;
    private final int overheadRuns;
    private final boolean quick;
    private final ParallelWorkload.Factory cadre = CadreWorkload::create;
    private final ParallelWorkload.Factory langchain4j;
    private final List<String> raw = new ArrayList<>();

    OrchestrationComparison(int runs, int overheadRuns, boolean quick) {
        this.runs = runs;
        this.overheadRuns = overheadRuns;
        this.quick = quick;
        this.langchain4j = langchain4j();
    }

    private static ParallelWorkload.Factory langchain4j() {
        Method create;
        try {
            create = Class.forName(LANGCHAIN4J).getMethod("create", int.class, Duration.class, int.class);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    LANGCHAIN4J + " is missing: it is compiled only with -Dbench=agent-core (src/bench/java)", e);
        }
        return (n, latency, turns) -> {
            try {
                return (ParallelWorkload) create.invoke(null, n, latency, turns);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        };
    }

    void print() throws Exception {
        warmUp();
        System.out.println();
        System.out.println("Cadre vs LangChain4j agentic " + langchain4jVersion() + ", N x " + TURNS
                + " model calls x " + LATENCY.toMillis() + " ms, medians of " + runs
                + " interleaved runs; ratio = Cadre / LangChain4j");
        System.out.println();
        System.out.println("| N | Cadre serial (s) | Cadre parallel (s) | Cadre speedup | Cadre efficiency"
                + " | LC4j serial (s) | LC4j parallel (s) | LC4j speedup | LC4j efficiency"
                + " | serial wall ratio | parallel wall ratio | speedup ratio | efficiency ratio |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (int n : quick ? new int[] {2, 16} : new int[] {2, 16, 256}) {
            double[][] m = latencyMedians(n);
            double cSpeedup = m[0][0] / m[0][1];
            double lSpeedup = m[1][0] / m[1][1];
            System.out.printf(
                    Locale.ROOT,
                    "| %d | %.4f | %.4f | %.3fx | %.3f | %.4f | %.4f | %.3fx | %.3f | %.3f | %.3f | %.3f | %.3f |%n",
                    n,
                    m[0][0],
                    m[0][1],
                    cSpeedup,
                    cSpeedup / n,
                    m[1][0],
                    m[1][1],
                    lSpeedup,
                    lSpeedup / n,
                    m[0][0] / m[1][0],
                    m[0][1] / m[1][1],
                    cSpeedup / lSpeedup,
                    cSpeedup / lSpeedup);
        }
        System.out.println();
        System.out.println("Every run (s), in order:");
        for (String line : raw) {
            System.out.println(line);
        }
        System.out.println();
        System.out.println("| overhead, zero-latency model, all parallel | N | Cadre wall per subagent (us)"
                + " | LC4j wall per subagent (us) | wall ratio | Cadre CPU per subagent (us)"
                + " | LC4j CPU per subagent (us) | CPU ratio | runs |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        int n = 1_000;
        for (int turns : new int[] {1, TURNS}) {
            double[] us = overheadMedians(n, turns);
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %.1f | %.1f | %.3f | %.1f | %.1f | %.3f | %d |%n",
                    turns == 1 ? "1 model call (answer only)" : turns + " model calls (2 tool turns + answer)",
                    n,
                    us[0],
                    us[1],
                    us[0] / us[1],
                    us[2],
                    us[3],
                    us[2] / us[3],
                    overheadRuns);
        }
    }

    private static String langchain4jVersion() {
        try (var in = OrchestrationComparison.class.getResourceAsStream(
                "/META-INF/maven/dev.langchain4j/langchain4j-agentic/pom.properties")) {
            if (in == null) {
                return "(version unknown)";
            }
            java.util.Properties p = new java.util.Properties();
            p.load(in);
            return p.getProperty("version", "(version unknown)");
        } catch (java.io.IOException e) {
            return "(version unknown)";
        }
    }

    /** JIT warm-up of both frameworks' code paths, without latency, before anything is measured. */
    private void warmUp() throws Exception {
        for (ParallelWorkload.Factory f : List.of(cadre, langchain4j)) {
            try (ParallelWorkload w = f.create(256, Duration.ZERO, TURNS)) {
                for (int i = 0; i < 40; i++) {
                    w.run(true);
                    if (i % 8 == 0) {
                        w.run(false);
                    }
                }
            }
        }
    }

    /** [framework][serial, parallel] median seconds. */
    private double[][] latencyMedians(int n) throws Exception {
        List<List<Double>> c = List.of(new ArrayList<>(), new ArrayList<>());
        List<List<Double>> l = List.of(new ArrayList<>(), new ArrayList<>());
        try (ParallelWorkload cw = cadre.create(n, LATENCY, TURNS);
                ParallelWorkload lw = langchain4j.create(n, LATENCY, TURNS)) {
            // One unmeasured run of each at this N (first-use costs of a fresh tree or agent set).
            cw.run(true);
            lw.run(true);
            for (int r = 0; r < runs; r++) {
                for (int mode = 0; mode < 2; mode++) {
                    boolean parallel = mode == 1;
                    if (r % 2 == 0) {
                        c.get(mode).add(seconds(cw, parallel));
                        l.get(mode).add(seconds(lw, parallel));
                    } else {
                        l.get(mode).add(seconds(lw, parallel));
                        c.get(mode).add(seconds(cw, parallel));
                    }
                }
            }
        }
        raw.add(String.format(
                Locale.ROOT,
                "- N = %d: Cadre serial %s, parallel %s; LangChain4j serial %s, parallel %s",
                n,
                format(c.get(0)),
                format(c.get(1)),
                format(l.get(0)),
                format(l.get(1))));
        return new double[][] {
            {AgentCoreBenchmark.median(c.get(0)), AgentCoreBenchmark.median(c.get(1))},
            {AgentCoreBenchmark.median(l.get(0)), AgentCoreBenchmark.median(l.get(1))}
        };
    }

    /**
     * [Cadre wall, LangChain4j wall, Cadre CPU, LangChain4j CPU] microseconds per subagent: median wall
     * time of a run, and the process CPU time of all measured runs of that framework (JIT and GC
     * threads included; less disturbed by the neighbours than wall time).
     */
    private double[] overheadMedians(int n, int turns) throws Exception {
        List<Double> c = new ArrayList<>();
        List<Double> l = new ArrayList<>();
        long[] cpu = new long[2];
        try (ParallelWorkload cw = cadre.create(n, Duration.ZERO, turns);
                ParallelWorkload lw = langchain4j.create(n, Duration.ZERO, turns)) {
            for (int w = 0; w < 20; w++) {
                cw.run(true);
                lw.run(true);
            }
            for (int r = 0; r < overheadRuns; r++) {
                if (r % 2 == 0) {
                    c.add(timed(cw, cpu, 0) * 1e6 / n);
                    l.add(timed(lw, cpu, 1) * 1e6 / n);
                } else {
                    l.add(timed(lw, cpu, 1) * 1e6 / n);
                    c.add(timed(cw, cpu, 0) * 1e6 / n);
                }
            }
        }
        double runsTimesN = (double) overheadRuns * n;
        return new double[] {
            AgentCoreBenchmark.median(c),
            AgentCoreBenchmark.median(l),
            cpu[0] / 1e3 / runsTimesN,
            cpu[1] / 1e3 / runsTimesN
        };
    }

    /** One parallel run: wall seconds returned, process CPU nanoseconds added to {@code cpu[at]}. */
    private static double timed(ParallelWorkload w, long[] cpu, int at) throws Exception {
        long cpu0 = processCpuNanos();
        double seconds = seconds(w, true);
        cpu[at] += processCpuNanos() - cpu0;
        return seconds;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static String format(List<Double> values) {
        StringBuilder out = new StringBuilder("[");
        for (double v : values) {
            if (out.length() > 1) {
                out.append(", ");
            }
            out.append(String.format(Locale.ROOT, "%.4f", v));
        }
        return out.append(']').toString();
    }

    private static double seconds(ParallelWorkload w, boolean parallel) throws Exception {
        long t0 = System.nanoTime();
        w.run(parallel);
        return (System.nanoTime() - t0) / 1e9;
    }
}
