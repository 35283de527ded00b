package dev.cadre.platform.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.HybridSharedMemory;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.MemorySchema;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.bench.Baselines;
import dev.cadre.memory.bench.ClosedLoop;
import dev.cadre.memory.bench.ClosedLoop.Figures;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import dev.cadre.memory.testing.TestRedis;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The platform-api benchmark of docs/benchmarks/service.md and docs/benchmarks/console.md; not a
 * test. Run it with {@code ./mvnw -B -q -pl platform-api -am -Dbench=platform-api verify} (see service.md for
 * the knobs). It starts the packaged jar twice — on the embedded default (H2 file database,
 * in-process queue, JDBC memory) and on PostgreSQL + Redis — with a zero-latency scripted agent,
 * and measures over HTTP with the bootstrap admin key:
 *
 * <ol>
 *   <li>runs per second and submit-to-completed latency at 1, 8 and 32 clients;
 *   <li>shared memory GET and CAS PUT per second over REST, and on PostgreSQL + Redis beside the
 *       library called directly and the raw PostgreSQL/Redis baselines of MemoryBenchmark;
 *   <li>the console's run detail page with a 500-node call chain in headless Chromium
 *       ({@link ConsoleBench}).
 * </ol>
 *
 * <p>Arguments ({@code -Dbench.args="..."}): {@code --quick} (2 runs of 2 s, a smoke test),
 * {@code --runs=N}, {@code --seconds=N}, {@code --only=h2|pg|console|streaming|storm|concurrency|host} (repeatable,
 * comma-separated; streaming, {@link StreamingBench}, one host investigation against a real Prometheus,
 * {@link HostBench} ({@code --only=host}, {@code --host-runs=N}, default 9), and the alert storm, {@link StormBench}, run
 * only when named; the storm takes {@code --storm-notifications=N} (1000), {@code --storm-alerts=N}
 * (50), {@code --storm-seconds=N} (60) and {@code --storm-backends=h2,pg}). {@code --only=concurrency}
 * runs {@link ConcurrencyBench} (only when named) with {@code --concurrency-ladder=100,250,500,1000,2000},
 * {@code --concurrency-backends=h2,pg}, {@code --concurrency-clients=16}, {@code
 * --concurrency-latency-ms=2000}, {@code --concurrency-max-concurrent=} (the ladder's top), {@code
 * --concurrency-efficiency=70} (per cent of linear growth from the first step) and {@code
 * --concurrency-timeout-seconds=300}, the defaults shown. {@code --only=recall} runs the incident memory's
 * benchmark alone ({@code dev.cadre.platform.recall.RecallBench}: quality on the labelled set, latency and
 * memory at {@code --recall-size=100000} past incidents).
 */
public final class PlatformBenchmark {

    static final int CHAIN_WORKERS = 71;

    /** The shipped Kubernetes container: 1536Mi, MaxRAMPercentage=75 (about 1.1 GB of heap). */
    static final String KUBERNETES_HEAP = "1152m";

    /** What a benchmark does with one started platform. */
    interface OnPlatform {
        void accept(PlatformProcess platform) throws Exception;
    }

    /**
     * Starts the packaged jar on a fresh PostgreSQL schema and Redis prefix ({@code name}-bench),
     * hands it to {@code body}, and drops the schema and the prefix's keys afterwards, whatever
     * {@code body} did.
     */
    static void onPostgresAndRedis(
            String name, Path out, Path agents, List<String> extraArgs, List<String> jvmOptions, OnPlatform body)
            throws Exception {
        ExternalServices.Postgres schema = ExternalServices.postgres().freshSchema(name.replace('-', '_') + "_bench");
        ExternalServices.Redis redisAddress = ExternalServices.redis();
        String prefix = "cadre-" + name + "-bench-" + UUID.randomUUID();
        RedisClient redis = RedisClient.create(redisAddress.uri());
        try {
            List<String> args = new ArrayList<>(extraArgs);
            args.addAll(List.of(
                    "--spring.datasource.url=" + schema.jdbcUrl(),
                    "--spring.datasource.username=" + schema.user(),
                    "--spring.datasource.password=" + schema.password(),
                    "--cadre.redis.url=" + redisAddress.uri(),
                    "--cadre.redis.prefix=" + prefix));
            try (PlatformProcess p = platform(name + "-pg", out, agents, args, jvmOptions)) {
                body.accept(p);
            }
        } finally {
            cleanUp("Redis keys " + prefix, () -> TestRedis.deletePrefix(redis, prefix));
            cleanUp("Redis client", redis::shutdown);
            cleanUp("schema " + schema.schema(), schema::dropSchema);
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> options = Arrays.asList(args);
        boolean quick = options.contains("--quick");
        int runs = intOption(options, "--runs=", quick ? 2 : 5);
        int seconds = intOption(options, "--seconds=", quick ? 2 : 5);
        int warmup = quick ? 1 : 4;
        List<String> only = options.stream()
                .filter(o -> o.startsWith("--only="))
                .flatMap(o -> Arrays.stream(o.substring(7).split(",")))
                .toList();
        if (only.contains("recall")) {
            // The incident memory (docs/incident-memory.md): in this JVM, no platform process.
            dev.cadre.platform.recall.RecallBench.run(options);
            return;
        }
        // The host team (docs/benchmarks/host.md) runs only when asked: --only=host.
        boolean h2 = only.isEmpty() || only.contains("h2");
        boolean pg = only.isEmpty() || only.contains("pg");
        boolean console = only.isEmpty() || only.contains("console");
        // Streaming latency (docs/benchmarks/models.md) runs only when asked: --only=streaming.
        boolean streaming = only.contains("streaming");
        boolean storm = only.contains("storm");
        boolean concurrency = only.contains("concurrency");

        Path out = Path.of("target", "bench").toAbsolutePath();
        Files.createDirectories(out);
        Path agents = out.resolve("bench-agents.yaml");
        Files.writeString(agents, agentsYaml(CHAIN_WORKERS));
        List<String> report = new ArrayList<>();
        String header = Measure.fmt(
                "platform-api benchmark - %s, JDK %s, %d cores, %d runs per median, %d s per measurement, load average before: %.2f",
                Instant.now(),
                Runtime.version(),
                Runtime.getRuntime().availableProcessors(),
                runs,
                seconds,
                Measure.loadAverage());
        System.out.println(header);
        report.add(header);
        Map<String, List<Figures>> results = new LinkedHashMap<>();
        Map<String, List<double[]>> cpu = new LinkedHashMap<>();

        if (only.contains("host")) {
            report.add("");
            report.add("## One host investigation against a real Prometheus (docs/benchmarks/host.md)");
            report.add("");
            report.addAll(HostBench.run(options, out));
        }
        if (storm) {
            report.add("");
            report.add("## Alert storm (docs/benchmarks/storm.md)");
            report.add("");
            report.addAll(storm(options, out));
        }
        if (concurrency) {
            report.add("");
            report.add("## Concurrent waiting runs on one instance (docs/benchmarks/concurrency.md)");
            report.add("");
            report.addAll(concurrency(options, out));
        }
        if (h2 || console) {
            // The embedded default exactly as `README` command one runs it: no datasource flag, the H2
            // file under ./data of the working directory (here a fresh target/bench/data).
            deleteTree(out.resolve("data"));
            try (PlatformProcess p = platform("h2", out, agents, List.of(), "1g")) {
                if (h2) {
                    ServiceBench s = new ServiceBench(p, "H2", runs, seconds, warmup, null);
                    s.runAll();
                    results.putAll(s.results);
                    cpu.putAll(s.cpu);
                }
                if (console) {
                    ConsoleBench c = new ConsoleBench(p, runs, out);
                    c.runAll();
                    report.add("");
                    report.add("## Console (platform on the embedded default)");
                    report.add("");
                    report.addAll(c.report);
                }
            }
        }
        if (streaming) {
            StreamingBench sb = new StreamingBench(quick ? 5 : 30, out);
            sb.runAll();
            report.add("");
            report.add("## Streaming (OpenAI-compatible SSE provider → run SSE)");
            report.add("");
            report.addAll(sb.report);
        }
        if (pg) {
            ServiceBench s = postgresAndRedis(out, agents, runs, seconds, warmup);
            results.putAll(s.results);
            cpu.putAll(s.cpu);
        }

        if (!results.isEmpty()) {
            report.add("");
            report.addAll(tables(results, runs));
        }
        if (!cpu.isEmpty()) {
            report.add("");
            report.add(
                    "| backend | run clients | platform CPU ms per completed run | bench-client CPU ms per run | per run (platform) |");
            report.add("|---|---:|---:|---:|---|");
        }
        cpu.forEach((label, values) -> {
            StringBuilder per = new StringBuilder();
            values.forEach(v -> per.append(per.isEmpty() ? "" : ", ").append(Measure.fmt("%.1f", v[0])));
            String[] parts = label.split(" \\| ");
            report.add(Measure.fmt(
                    "| %s | %s | %.1f | %.1f | %s |",
                    parts[0],
                    parts[1],
                    ClosedLoop.median(values.stream().mapToDouble(v -> v[0]).toArray()),
                    ClosedLoop.median(values.stream().mapToDouble(v -> v[1]).toArray()),
                    per));
        });
        String footer = Measure.fmt("load average after: %.2f", Measure.loadAverage());
        report.add("");
        report.add(footer);
        Files.write(out.resolve("platform-benchmark.md"), report);
        System.out.println();
        report.forEach(System.out::println);
        System.out.println("(also in " + out.resolve("platform-benchmark.md") + ")");
    }

    /** The alert storm on the embedded default and on PostgreSQL + Redis, one fresh platform each. */
    private static List<String> storm(List<String> options, Path out) throws Exception {
        int notifications = intOption(options, "--storm-notifications=", 1000);
        int alerts = intOption(options, "--storm-alerts=", 50);
        int seconds = intOption(options, "--storm-seconds=", 60);
        List<String> backends = options.stream()
                .filter(o -> o.startsWith("--storm-backends="))
                .flatMap(o -> Arrays.stream(o.substring(17).split(",")))
                .toList();
        Path agents = out.resolve("storm-agents.yaml");
        Files.writeString(agents, StormBench.AGENTS_YAML);
        // --storm-team=shipped: the intake starts the shipped host team (ops-orchestrator with its
        // inspectors, analyst, alerter and repairer) for each incident instead of the light
        // stand-in, so the storm meets the database work a real team does while it runs.
        boolean shipped = options.contains("--storm-team=shipped");
        String triage = shipped ? "ops-orchestrator" : StormBench.AGENT;
        String locations =
                shipped ? "classpath:agents/*.yaml,file:" + agents.toAbsolutePath() : "file:" + agents.toAbsolutePath();
        String heap = KUBERNETES_HEAP;
        // --storm-warmup-seconds=N (20): a small alert stream before the storm, as an instance that has
        // been up a while has seen (0: the storm hits a freshly started platform).
        int warmup = intOption(options, "--storm-warmup-seconds=", 20);
        List<String> common = List.of(
                "--cadre.agents.locations=" + locations,
                "--cadre.integrations.alertmanager.agent=" + triage,
                "--cadre.integrations.alertmanager.routes=" + StormBench.WARMUP_ALERT + "=" + StormBench.WARMUP_AGENT);
        // --storm-jfr: a JDK Flight Recording of each platform (profile settings: samples, lock waits,
        // socket reads and parks over 10-20 ms with their stacks), to find where a slow delivery waits.
        boolean jfr = options.contains("--storm-jfr");
        List<String> lines = new ArrayList<>();
        if (backends.isEmpty() || backends.contains("h2")) {
            deleteTree(out.resolve("data"));
            List<String> jvm = new ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap));
            if (jfr) {
                jvm.add("-XX:StartFlightRecording=settings=profile,filename=" + out.resolve("storm-h2.jfr"));
            }
            try (PlatformProcess p = platform("storm-h2", out, agents, common, jvm)) {
                StormBench b = new StormBench(
                        p,
                        "Embedded default (H2 file, in-process queue)" + (shipped ? ", shipped host team" : ""),
                        notifications,
                        alerts,
                        seconds,
                        warmup,
                        triage);
                b.run();
                lines.addAll(b.report);
            }
        }
        if (backends.isEmpty() || backends.contains("pg")) {
            List<String> jvm = new ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap));
            if (jfr) {
                jvm.add("-XX:StartFlightRecording=settings=profile,filename=" + out.resolve("storm-pg.jfr"));
            }
            onPostgresAndRedis("storm", out, agents, common, jvm, p -> {
                StormBench b = new StormBench(
                        p,
                        "PostgreSQL + Redis" + (shipped ? ", shipped host team" : ""),
                        notifications,
                        alerts,
                        seconds,
                        warmup,
                        triage);
                b.run();
                lines.addAll(b.report);
            });
        }
        return lines;
    }

    /**
     * How many concurrent runs one instance holds, each waiting on one model call: a ladder of N on
     * the embedded default and on PostgreSQL + Redis, one fresh platform each, with the Kubernetes
     * container's JVM settings and {@code cadre.runs.max-concurrent} raised to the ladder's top so that the platform, not
     * its default cap of 32, is measured.
     */
    private static List<String> concurrency(List<String> options, Path out) throws Exception {
        int[] ladder = options.stream()
                .filter(o -> o.startsWith("--concurrency-ladder="))
                .map(o -> Arrays.stream(o.substring(21).split(","))
                        .mapToInt(Integer::parseInt)
                        .toArray())
                .findFirst()
                .orElse(new int[] {100, 250, 500, 1000, 2000});
        List<String> backends = options.stream()
                .filter(o -> o.startsWith("--concurrency-backends="))
                .flatMap(o -> Arrays.stream(o.substring(23).split(",")))
                .toList();
        int clients = intOption(options, "--concurrency-clients=", 16);
        int latency = intOption(options, "--concurrency-latency-ms=", 2000);
        int maxConcurrent = intOption(
                options,
                "--concurrency-max-concurrent=",
                Arrays.stream(ladder).max().orElse(32));
        // Per cent of linear growth from the ladder's first step below which a step no longer scales.
        double efficiency = intOption(options, "--concurrency-efficiency=", 70) / 100.0;
        Duration timeout = Duration.ofSeconds(intOption(options, "--concurrency-timeout-seconds=", 300));
        Path agents = out.resolve("concurrency-agents.yaml");
        Files.writeString(agents, ConcurrencyBench.agentsYaml(latency));
        List<String> common = List.of("--cadre.runs.max-concurrent=" + maxConcurrent);
        // The shipped container's JVM settings as GrowthBenchmark runs them: no -Xms, so RSS follows
        // what the runs use, and an OOM ends the platform as it would in Kubernetes.
        List<String> jvm = List.of(GrowthBenchmark.K8S_JVM.split(" "));
        List<String> lines = new ArrayList<>();
        lines.add(Measure.fmt(
                "JVM %s (the Kubernetes container), cadre.runs.max-concurrent=%d (shipped default 32), ladder %s, %d clients,"
                        + " threshold %.0f %% of linear growth from the first step.",
                GrowthBenchmark.K8S_JVM, maxConcurrent, Arrays.toString(ladder), clients, efficiency * 100));
        lines.add("");
        if (backends.isEmpty() || backends.contains("h2")) {
            deleteTree(out.resolve("data"));
            try (PlatformProcess p = platform("concurrency-h2", out, agents, common, jvm)) {
                ConcurrencyBench b = new ConcurrencyBench(
                        p,
                        "Embedded default (H2 file, in-process queue)",
                        ladder,
                        clients,
                        latency,
                        efficiency,
                        timeout);
                b.run();
                lines.addAll(b.report);
            }
        }
        if (backends.isEmpty() || backends.contains("pg")) {
            onPostgresAndRedis("concurrency", out, agents, common, jvm, p -> {
                ConcurrencyBench b =
                        new ConcurrencyBench(p, "PostgreSQL + Redis", ladder, clients, latency, efficiency, timeout);
                b.run();
                lines.addAll(b.report);
            });
        }
        return lines;
    }

    private static ServiceBench postgresAndRedis(Path out, Path agents, int runs, int seconds, int warmup)
            throws Exception {
        ExternalServices.Postgres platformSchema = ExternalServices.postgres().freshSchema("platform_bench");
        ExternalServices.Postgres directSchema = ExternalServices.postgres().freshSchema("platform_bench_direct");
        ExternalServices.Redis redisAddress = ExternalServices.redis();
        String platformPrefix = "cadre-platform-bench-" + UUID.randomUUID();
        String directPrefix = "pbench-direct:" + UUID.randomUUID();
        RedisClient redis = RedisClient.create(redisAddress.uri());
        try (HikariDataSource pool = TestDatabases.pool(directSchema, 12)) {
            MemorySchema.migrate(pool);
            Baselines.createRawTable(pool);
            try (SharedMemory hybrid = new HybridSharedMemory(
                            pool, redis, MemoryOptions.defaults().withRedisPrefix(directPrefix));
                    StatefulRedisConnection<String, String> raw = redis.connect();
                    PlatformProcess p = platform(
                            "pg-redis",
                            out,
                            agents,
                            List.of(
                                    "--spring.datasource.url=" + platformSchema.jdbcUrl(),
                                    "--spring.datasource.username=" + platformSchema.user(),
                                    "--spring.datasource.password=" + platformSchema.password(),
                                    "--cadre.redis.url=" + redisAddress.uri(),
                                    "--cadre.redis.prefix=" + platformPrefix),
                            "1g")) {
                ServiceBench s = new ServiceBench(
                        p,
                        "PG+Redis",
                        runs,
                        seconds,
                        warmup,
                        new ServiceBench.Baselines(pool, hybrid, raw, directPrefix));
                s.runAll();
                return s;
            }
        } finally {
            // Each clean-up on its own: one failing must not keep the others, or the report, from happening.
            cleanUp("Redis keys " + directPrefix, () -> TestRedis.deletePrefix(redis, directPrefix));
            cleanUp("Redis keys " + platformPrefix, () -> TestRedis.deletePrefix(redis, platformPrefix));
            cleanUp("Redis client", redis::shutdown);
            cleanUp("schema " + platformSchema.schema(), platformSchema::dropSchema);
            cleanUp("schema " + directSchema.schema(), directSchema::dropSchema);
        }
    }

    /**
     * The packaged jar in a JVM of its own (support.PlatformProcess, as the integration tests start
     * it), with the benchmark's agent file and admin key, {@code extraArgs} (Spring properties as
     * {@code --key=value}), working directory {@code out}; waits until healthy.
     */
    static PlatformProcess platform(String name, Path out, Path agents, List<String> extraArgs, String heap)
            throws Exception {
        return platform(name, out, agents, extraArgs, List.of("-Xms" + heap, "-Xmx" + heap));
    }

    /** {@link #platform(String, Path, Path, List, String)} with JVM options of its own instead of a heap. */
    static PlatformProcess platform(String name, Path out, Path agents, List<String> extraArgs, List<String> jvmOptions)
            throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                // Logging every request would measure the log appender; keep the default INFO.
                "--logging.level.root=WARN",
                "--logging.level.dev.cadre=WARN"));
        // A benchmark may name its own locations (a repeated argument would be joined, not replaced).
        if (extraArgs.stream().noneMatch(a -> a.startsWith("--cadre.agents.locations="))) {
            args.add("--cadre.agents.locations=file:" + agents.toAbsolutePath());
        }
        args.addAll(extraArgs);
        long t0 = System.nanoTime();
        PlatformProcess p = PlatformProcess.start(name, PlatformProcess.freePort(), out, jvmOptions, out, args);
        try {
            p.awaitHealthy(Duration.ofSeconds(300));
        } catch (AssertionError | InterruptedException e) {
            p.destroy();
            throw e;
        }
        System.out.println(Measure.fmt(
                "platform '%s' (pid %d, port %d) healthy after %.1f s",
                name, p.pid(), p.port(), (System.nanoTime() - t0) / 1e9));
        return p;
    }

    private static void cleanUp(String what, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            System.err.println("could not clean up " + what + ": " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ report

    private static List<String> tables(Map<String, List<Figures>> results, int runs) {
        List<String> lines = new ArrayList<>();
        lines.add("## Medians of " + runs + " runs");
        lines.add("");
        lines.add("| backend | operation | clients | ops/s | p50 ms | p99 ms |");
        lines.add("|---|---|---:|---:|---:|---:|");
        for (var e : results.entrySet()) {
            List<Figures> f = e.getValue();
            String[] parts = e.getKey().split(" \\| ");
            lines.add(Measure.fmt(
                    "| %s | %s | %s | %.0f | %.2f | %.2f |",
                    parts[0],
                    parts[1],
                    parts[2],
                    ClosedLoop.median(
                            f.stream().mapToDouble(Figures::opsPerSecond).toArray()),
                    ClosedLoop.median(f.stream().mapToDouble(Figures::p50Micros).toArray()) / 1e3,
                    ClosedLoop.median(f.stream().mapToDouble(Figures::p99Micros).toArray()) / 1e3));
        }
        lines.add("");
        lines.add("Ratios of throughput, each taken within one run (interleaved slices), median over runs:");
        lines.add("");
        lines.add("| backend | ratio | clients | median | per run |");
        lines.add("|---|---|---:|---:|---|");
        for (String backend : List.of("PG+Redis", "H2")) {
            if (results.keySet().stream().noneMatch(k -> k.startsWith(backend + " |"))) {
                continue;
            }
            for (int clients : ServiceBench.MEMORY_CLIENTS) {
                if (backend.equals("PG+Redis")) {
                    ratio(lines, results, backend, ServiceBench.REST_CAS, ServiceBench.DIRECT_CAS, clients);
                    ratio(lines, results, backend, ServiceBench.REST_CAS, ServiceBench.RAW_UPDATE, clients);
                    ratio(lines, results, backend, ServiceBench.DIRECT_CAS, ServiceBench.RAW_UPDATE, clients);
                    ratio(lines, results, backend, ServiceBench.REST_GET, ServiceBench.DIRECT_GET, clients);
                    ratio(lines, results, backend, ServiceBench.REST_GET, ServiceBench.RAW_GET, clients);
                }
                ratio(lines, results, backend, ServiceBench.REST_GET, ServiceBench.WHOAMI, clients);
                ratio(lines, results, backend, ServiceBench.WHOAMI, ServiceBench.LIVENESS, clients);
            }
        }
        return lines;
    }

    private static void ratio(
            List<String> lines,
            Map<String, List<Figures>> results,
            String backend,
            String subject,
            String baseline,
            int clients) {
        List<Figures> s = results.get(backend + " | " + subject + " | " + clients);
        List<Figures> b = results.get(backend + " | " + baseline + " | " + clients);
        double[] ratios = new double[s.size()];
        StringBuilder per = new StringBuilder();
        for (int i = 0; i < s.size(); i++) {
            ratios[i] = s.get(i).opsPerSecond() / b.get(i).opsPerSecond();
            per.append(per.isEmpty() ? "" : ", ").append(Measure.fmt("%.0f %%", ratios[i] * 100));
        }
        lines.add(Measure.fmt(
                "| %s | %s / %s | %d | %.0f %% | %s |",
                backend, subject, baseline, clients, ClosedLoop.median(ratios) * 100, per));
    }

    // ------------------------------------------------------------------ set-up

    /**
     * Zero-latency scripted agents: {@code bench-echo} answers in one model call; {@code
     * chain-orchestrator} delegates to {@code workers} workers in one turn, each of which calls
     * {@code memory_get} three times and answers: 3 + 7 x workers nodes (71 workers: 500).
     */
    static String agentsYaml(int workers) {
        StringBuilder calls = new StringBuilder();
        for (int i = 0; i < workers; i++) {
            calls.append("          - {name: chain-worker, arguments: {task: \"check shard ")
                    .append(i)
                    .append("\"}}\n");
        }
        return """
                # Written by PlatformBenchmark: zero-latency scripted agents for the platform benchmark.
                agents:
                  - name: bench-echo
                    description: Answers at once with no model latency. Service benchmark agent.
                    model: scripted:default
                    budget: {maxIterations: 2, maxTokens: 20000, timeout: 1m}
                  - name: chain-orchestrator
                    description: Delegates to %d workers in one turn. Console benchmark agent.
                    model: scripted:default
                    workers: [chain-worker]
                    budget: {maxIterations: 3, maxTokens: 5000000, timeout: 5m}
                  - name: chain-worker
                    description: Reads three shared-memory entries, then answers. Console benchmark worker.
                    model: scripted:default
                    tools: [memory_get]
                    memory: [bench]
                    budget: {maxIterations: 3, maxTokens: 20000, timeout: 2m}
                scripts:
                  bench-echo:
                    turns:
                      - text: "ok {{input}}"
                  chain-orchestrator:
                    turns:
                      - toolCalls:
                %s      - text: all shards checked
                  chain-worker:
                    turns:
                      - toolCalls:
                          - {name: memory_get, arguments: {namespace: bench, key: a}}
                          - {name: memory_get, arguments: {namespace: bench, key: b}}
                          - {name: memory_get, arguments: {namespace: bench, key: c}}
                      - text: shard fine
                """.formatted(workers, calls);
    }

    private static int intOption(List<String> options, String prefix, int fallback) {
        return options.stream()
                .filter(o -> o.startsWith(prefix))
                .map(o -> Integer.parseInt(o.substring(prefix.length())))
                .findFirst()
                .orElse(fallback);
    }

    static void deleteTree(Path dir) throws Exception {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
