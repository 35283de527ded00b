package dev.cadre.platform.bench;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * How many concurrent runs one instance holds (issue 27, docs/benchmarks/concurrency.md): for each N
 * of a ladder, N runs of an agent whose single model call takes {@code latencyMillis} (scripted) are
 * submitted as fast as {@code clients} client threads can, and followed until all have ended. Per
 * step: time until all ended, runs completed per second against the ideal N / latency, submit
 * latency, the most runs in flight at once ({@code cadre_runs_executing}), RSS and heap at the peak
 * and per waiting run, live platform threads, and every run that did not complete or submit that
 * was not answered 202. The first step whose throughput falls below {@code efficiency} of linear
 * growth from the first step, or with a failure, is where the instance stops scaling.
 */
final class ConcurrencyBench {

    static final String AGENT = "concurrency-wait";

    /** One model call of {@code latencyMillis}, then the answer: the run waits, and nothing else. */
    static String agentsYaml(long latencyMillis) {
        return """
                # Written by PlatformBenchmark (ConcurrencyBench): one model call of %1$d ms per run.
                agents:
                  - name: %2$s
                    description: Waits %1$d ms on one scripted model call, then answers. Concurrency benchmark agent.
                    model: scripted:default
                    budget: {maxIterations: 2, maxTokens: 20000, timeout: 30m}
                scripts:
                  %2$s:
                    turns:
                      - latencyMillis: %1$d
                        text: "waited for {{input}}"
                """.formatted(latencyMillis, AGENT);
    }

    /** The figures of one ladder step. */
    record Step(
            int n,
            double submitSeconds,
            double allEndedSeconds,
            double runsPerSecond,
            double efficiency,
            double submitP50Ms,
            double submitP99Ms,
            int peakInFlight,
            int peakQueued,
            double idleRssMb,
            double peakRssMb,
            double idleHeapMb,
            double liveHeapAtPeakMb,
            int inFlightAtHeap,
            double idleThreads,
            double peakThreads,
            double cpuMsPerRun,
            int completed,
            Map<String, Integer> notCompleted,
            Map<Integer, Integer> refused) {

        int failures() {
            return notCompleted.values().stream().mapToInt(Integer::intValue).sum()
                    + refused.values().stream().mapToInt(Integer::intValue).sum();
        }

        /** (RSS at the peak − RSS idle before the step) per run in flight at the peak, KB. */
        double rssPerRunKb() {
            return peakInFlight == 0 ? Double.NaN : (peakRssMb - idleRssMb) * 1024 / peakInFlight;
        }

        /** (live heap with the runs waiting − live heap idle) per run in flight then, KB. */
        double heapPerRunKb() {
            return inFlightAtHeap == 0 ? Double.NaN : (liveHeapAtPeakMb - idleHeapMb) * 1024 / inFlightAtHeap;
        }
    }

    /** A sample of the platform every 250 ms while a step runs. */
    private record Sample(double rssMb, Measure.Scrape metrics) {}

    final List<String> report = new ArrayList<>();
    final List<Step> steps = new ArrayList<>();
    private final PlatformProcess platform;
    private final String label;
    private final int[] ladder;
    private final int clients;
    private final long latencyMillis;
    private final double efficiency;
    private final Duration timeout;
    private final Http admin;
    private @Nullable String aborted;
    private @Nullable ScheduledExecutorService sampler;

    ConcurrencyBench(
            PlatformProcess platform,
            String label,
            int[] ladder,
            int clients,
            long latencyMillis,
            double efficiency,
            Duration timeout) {
        this.platform = platform;
        this.label = label;
        this.ladder = ladder;
        this.clients = clients;
        this.latencyMillis = latencyMillis;
        this.efficiency = efficiency;
        this.timeout = timeout;
        this.admin = new Http(platform.base(), Api.ADMIN_KEY);
    }

    void run() throws Exception {
        // JIT, connection and pool warm-up, discarded (but a platform stuck in it is reported).
        int warmup = Math.min(50, ladder[0]);
        System.out.println(Measure.fmt("[%s] warm-up: %d runs", label, warmup));
        if (attempt(warmup, "the warm-up") == null) {
            report();
            return;
        }
        for (int n : ladder) {
            System.out.println(Measure.fmt("[%s] %d runs (load %.2f)", label, n, Measure.loadAverage()));
            Step s = attempt(n, "N = " + n);
            if (s == null) {
                break;
            }
            steps.add(s);
            System.out.println(Measure.fmt(
                    "  all ended after %.2f s, %.1f runs/s (%.0f %% of ideal), %d in flight at most, RSS %.0f MB, %d failures",
                    s.allEndedSeconds(),
                    s.runsPerSecond(),
                    s.efficiency() * 100,
                    s.peakInFlight(),
                    s.peakRssMb(),
                    s.failures()));
        }
        report();
    }

    /**
     * One step, or null with {@link #aborted} saying why it failed: with
     * -XX:+ExitOnOutOfMemoryError an OOM ends the platform, and a platform that stopped answering
     * gets its threads dumped; either is a finding, not a reason to lose the steps measured before.
     */
    private @Nullable Step attempt(int n, String what) {
        try {
            return step(n);
        } catch (Exception e) {
            if (sampler != null) {
                sampler.shutdownNow();
            }
            boolean alive = platform.isAlive();
            String dump = alive ? threadDump() : "none, the platform exited";
            aborted = Measure.fmt(
                    "**Stops at %s**: %s (platform %s; thread dump: %s). Last log lines:%n%n```%n%s%n```",
                    what, e, alive ? "still running" : "exited", dump, platform.logTail(15));
            System.out.println(aborted);
            return null;
        }
    }

    private Step step(int n) throws Exception {
        awaitIdle();
        double idleHeap = liveHeapMb();
        Measure.Scrape idle = Measure.Scrape.of(admin);
        double idleRss = Measure.rssMb(platform.pid());
        double endedBefore = idle.ended(AGENT);
        long cpuBefore = Measure.cpuTicks(platform.pid());

        ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();
        // A daemon thread, and stopped when a step fails too: a leftover sampler kept the bench JVM
        // (and Maven) running after a failed step.
        var sampler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("concurrency-sampler").factory());
        this.sampler = sampler;
        sampler.scheduleAtFixedRate(
                () -> {
                    try {
                        samples.add(new Sample(Measure.rssMb(platform.pid()), Measure.Scrape.of(admin)));
                    } catch (Exception e) {
                        // A scrape that failed under the load is one sample fewer, not a failed step.
                    }
                },
                0,
                250,
                TimeUnit.MILLISECONDS);

        // Submit: `clients` threads take the next of the N runs until there is none left.
        List<String> ids = java.util.Collections.synchronizedList(new ArrayList<>());
        long[] submitMicros = new long[n];
        Map<Integer, Integer> refused = new java.util.concurrent.ConcurrentSkipListMap<>();
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime();
        try (var submitters = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                submitters.submit(() -> {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        long t = System.nanoTime();
                        int status;
                        try {
                            Http.Response r = admin.post(
                                    "/api/v1/runs", "{\"agent\":\"" + AGENT + "\",\"input\":\"run " + i + "\"}");
                            status = r.status();
                            if (status == 202) {
                                ids.add(r.json().get("id").asString());
                            }
                        } catch (java.io.IOException e) {
                            status = -1; // no answer at all
                        }
                        submitMicros[i] = (System.nanoTime() - t) / 1000;
                        if (status != 202) {
                            refused.merge(status, 1, Integer::sum);
                        }
                    }
                    return null;
                });
            }
        }
        double submitSeconds = (System.nanoTime() - start) / 1e9;

        // The heap with the runs waiting: live objects only (a full GC first), right after the last
        // submit, when the most runs are in flight. The pause is in the step's time (a few 100 ms).
        int inFlightAtHeap = (int) Measure.orZero(Measure.Scrape.of(admin).executing());
        double liveHeapAtPeak = liveHeapMb();

        // Until every accepted run has ended (cadre_runs_total of the agent), or the timeout.
        double allEnded = Double.NaN;
        long deadline = start + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Measure.Scrape.of(admin).ended(AGENT) - endedBefore >= ids.size()) {
                allEnded = (System.nanoTime() - start) / 1e9;
                break;
            }
            Thread.sleep(100);
        }
        sampler.shutdownNow();
        sampler.awaitTermination(10, TimeUnit.SECONDS);
        // Platform CPU over the step (10 ms ticks), the GC for the heap figure and the scrapes included.
        double cpuMsPerRun = (Measure.cpuTicks(platform.pid()) - cpuBefore) * 10.0 / n;

        Map<String, String> statuses = StormBench.runs(admin, AGENT);
        Map<String, Integer> notCompleted = new TreeMap<>();
        int completed = 0;
        for (String id : ids) {
            String status = statuses.getOrDefault(id, "missing");
            if (status.equals("completed")) {
                completed++;
            } else {
                notCompleted.merge(status, 1, Integer::sum);
            }
        }
        long[] sorted = Arrays.stream(submitMicros).sorted().toArray();
        double seconds = Double.isNaN(allEnded) ? timeout.toSeconds() : allEnded;
        double perSecond = completed / seconds;
        List<Sample> all = new ArrayList<>(samples);
        return new Step(
                n,
                submitSeconds,
                allEnded,
                perSecond,
                perSecond / (n * 1000.0 / latencyMillis),
                Measure.percentileMs(sorted, 0.50),
                Measure.percentileMs(sorted, 0.99),
                (int) all.stream()
                        .mapToDouble(s -> Measure.orZero(s.metrics().executing()))
                        .max()
                        .orElse(0),
                (int) all.stream()
                        .mapToDouble(s -> Measure.orZero(s.metrics().queued()))
                        .max()
                        .orElse(0),
                idleRss,
                all.stream().mapToDouble(Sample::rssMb).max().orElse(0),
                idleHeap,
                liveHeapAtPeak,
                inFlightAtHeap,
                idle.threads(),
                all.stream().mapToDouble(s -> s.metrics().threads()).max().orElse(Double.NaN),
                cpuMsPerRun,
                completed,
                notCompleted,
                refused);
    }

    /** Waits until no run executes or waits on this instance (the previous step's tail). */
    private void awaitIdle() throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Measure.Scrape m = Measure.Scrape.of(admin);
            if (Measure.orZero(m.executing()) == 0 && Measure.orZero(m.queued()) == 0) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("runs still executing " + timeout + " after the step");
    }

    /**
     * Every thread of the platform, virtual ones included ({@code jcmd PID Thread.dump_to_file}),
     * next to its log: where a stuck step is stuck. Returns the file, or why there is none.
     */
    private String threadDump() {
        try {
            Path file = platform.log()
                    .resolveSibling("threads-" + platform.name() + "-" + System.currentTimeMillis() + ".txt");
            Process dump = new ProcessBuilder(
                            jcmd(),
                            Long.toString(platform.pid()),
                            "Thread.dump_to_file",
                            "-format=text",
                            file.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return dump.waitFor(120, TimeUnit.SECONDS) && dump.exitValue() == 0 ? file.toString() : "jcmd failed";
        } catch (Exception e) {
            return "jcmd failed: " + e;
        }
    }

    private static String jcmd() {
        return Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    }

    /**
     * Live heap: what a full GC of the platform ({@code jcmd PID GC.run}, from the JDK that runs the
     * bench) kept, not whatever garbage the last collection left.
     */
    private double liveHeapMb() throws Exception {
        Process gc = new ProcessBuilder(jcmd(), Long.toString(platform.pid()), "GC.run")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!gc.waitFor(60, TimeUnit.SECONDS) || gc.exitValue() != 0) {
            gc.destroyForcibly();
            return Double.NaN;
        }
        // What the full GC kept (old generation after it), not heap used at the scrape: the runs
        // keep allocating between the GC and the scrape. Micrometer reads it from the GC's
        // notification, which may come a moment after jcmd returns.
        Thread.sleep(300);
        return Measure.Scrape.of(admin).liveDataMb();
    }

    private void report() {
        report.add("### " + label);
        report.add("");
        report.add(Measure.fmt(
                "Model call %d ms per run, %d submitting clients; ideal = N / %.1f s.",
                latencyMillis, clients, latencyMillis / 1000.0));
        report.add("");
        report.add("| N | submitted in s | all ended in s | runs/s | of ideal | vs first step | submit p50 / p99 ms"
                + " | most in flight (queued) | RSS idle → peak MB | RSS per run KB | live heap idle → with runs MB"
                + " (in flight) | heap per run KB | marginal heap per run KB | platform threads idle → peak"
                + " | platform CPU ms per run | failures |");
        report.add("|---:|---:|---:|---:|---:|---:|---|---|---|---:|---|---:|---:|---|---:|---|");
        Step previous = null;
        for (Step s : steps) {
            report.add(Measure.fmt(
                    "| %d | %.2f | %s | %.1f | %.0f %% | %.0f %% | %.1f / %.1f | %d (%d) | %.0f → %.0f | %.1f |"
                            + " %.0f → %.0f (%d) | %.1f | %s | %.0f → %.0f | %.1f | %s |",
                    s.n(),
                    s.submitSeconds(),
                    Double.isNaN(s.allEndedSeconds()) ? "timeout" : Measure.fmt("%.2f", s.allEndedSeconds()),
                    s.runsPerSecond(),
                    s.efficiency() * 100,
                    relative(s) * 100,
                    s.submitP50Ms(),
                    s.submitP99Ms(),
                    s.peakInFlight(),
                    s.peakQueued(),
                    s.idleRssMb(),
                    s.peakRssMb(),
                    s.rssPerRunKb(),
                    s.idleHeapMb(),
                    s.liveHeapAtPeakMb(),
                    s.inFlightAtHeap(),
                    s.heapPerRunKb(),
                    previous == null ? "–" : Measure.fmt("%.1f", marginalHeapKb(previous, s)),
                    s.idleThreads(),
                    s.peakThreads(),
                    s.cpuMsPerRun(),
                    s.failures() == 0 ? "0" : s.failures() + " " + s.notCompleted() + " " + s.refused()));
            previous = s;
        }
        report.add("");
        report.add(verdict());
        report.add("");
        report.forEach(System.out::println);
    }

    /**
     * A step's share of the ideal relative to the first step's: throughput that grows linearly with N
     * keeps 100 %. Against the first step rather than the ideal itself, so that the fixed cost every
     * step pays (submitting, the last run's own 2 s, the GC for the heap figure) does not count as a
     * failure to scale.
     */
    private double relative(Step s) {
        return s.efficiency() / steps.getFirst().efficiency();
    }

    /** Live heap added per run between two steps: the slope, without what every step holds anyway. */
    private static double marginalHeapKb(Step from, Step to) {
        int runs = to.inFlightAtHeap() - from.inFlightAtHeap();
        return runs <= 0 ? Double.NaN : (to.liveHeapAtPeakMb() - from.liveHeapAtPeakMb()) * 1024 / runs;
    }

    /**
     * The first step with a failure, or whose throughput fell below {@code efficiency} of linear
     * growth from the first step; none if every step passed.
     */
    String verdict() {
        if (steps.isEmpty()) {
            return aborted == null ? "No step measured." : aborted;
        }
        for (Step s : steps) {
            if (s.failures() > 0) {
                return Measure.fmt(
                        "**Stops scaling at N = %d**: %d runs not completed or not accepted.", s.n(), s.failures());
            }
            if (relative(s) < efficiency) {
                return Measure.fmt(
                        "**Stops scaling at N = %d**: %.1f runs/s is %.0f %% of the ideal %.0f, %.0f %% of linear"
                                + " growth from N = %d (threshold %.0f %%); at most %d of the %d runs were in flight"
                                + " at once.",
                        s.n(),
                        s.runsPerSecond(),
                        s.efficiency() * 100,
                        s.n() * 1000.0 / latencyMillis,
                        relative(s) * 100,
                        steps.getFirst().n(),
                        efficiency * 100,
                        s.peakInFlight(),
                        s.n());
            }
        }
        if (aborted != null) {
            return aborted;
        }
        return Measure.fmt(
                "Scales up to N = %d, the ladder's top: throughput ≥ %.0f %% of linear growth from N = %d at every"
                        + " step (the first at %.0f %% of the ideal N / latency), no failure.",
                ladder[ladder.length - 1],
                efficiency * 100,
                steps.getFirst().n(),
                steps.getFirst().efficiency() * 100);
    }
}
