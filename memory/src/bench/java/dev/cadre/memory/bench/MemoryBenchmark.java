package dev.cadre.memory.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.HybridSharedMemory;
import dev.cadre.memory.JdbcSharedMemory;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.MemorySchema;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.bench.ClosedLoop.Figures;
import dev.cadre.memory.bench.ClosedLoop.Op;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import dev.cadre.memory.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * CAS and read throughput and latency of the JDBC/PostgreSQL and hybrid backends beside raw
 * baselines measured in the same run: a plain conditional {@code UPDATE} through JDBC (same pool)
 * and Redis {@code GET} through Lettuce (same client). Each client works on a key of its own, so
 * this measures the cost of the machinery, not contention (the tests cover contention).
 *
 * <p>Run: {@code ./mvnw -B -pl memory -Dbench=memory verify}. Arguments ({@code -Dbench.args="..."}),
 * as in the other modules' harnesses: {@code --quick} (2 runs of 1 s, a smoke test), {@code --runs=N}
 * (default 5), {@code --seconds=N} per measurement (default 3), {@code --warmup=N} seconds (default 1). Uses the same PostgreSQL and Redis as the
 * integration tests, in a schema and under a key prefix of its own, removed afterwards.
 */
public final class MemoryBenchmark {

    static final String RAW_UPDATE = "raw conditional UPDATE (JDBC)";
    static final String JDBC_CAS = "CAS put, JdbcSharedMemory (PostgreSQL)";
    static final String HYBRID_CAS = "CAS put, HybridSharedMemory";
    static final String RAW_GET = "raw Redis GET (Lettuce)";
    static final String CACHED_GET = "cached get, HybridSharedMemory";
    static final String CONSISTENT_GET = "consistent get, HybridSharedMemory (PostgreSQL)";

    private final int seconds;
    private final int warmup;

    private MemoryBenchmark(int seconds, int warmup) {
        this.seconds = seconds;
        this.warmup = warmup;
    }

    public static void main(String[] args) throws Exception {
        List<String> options = List.of(args);
        boolean quick = options.contains("--quick");
        int runs = intOption(options, "--runs=", quick ? 2 : 5);
        int seconds = intOption(options, "--seconds=", quick ? 1 : 3);
        int warmup = intOption(options, "--warmup=", 1);
        new MemoryBenchmark(seconds, warmup).runAll(runs);
    }

    private static int intOption(List<String> options, String prefix, int otherwise) {
        for (String o : options) {
            if (o.startsWith(prefix)) {
                try {
                    return Integer.parseInt(o.substring(prefix.length()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(prefix + " wants a whole number, got '" + o + "'", e);
                }
            }
        }
        return otherwise;
    }

    private void runAll(int runs) throws Exception {
        // Separate schemas: each backend's relay works only on its own outbox.
        ExternalServices.Postgres jdbcSchema = ExternalServices.postgres().freshSchema("memory_bench_jdbc");
        ExternalServices.Postgres hybridSchema = ExternalServices.postgres().freshSchema("memory_bench_hybrid");
        String prefix = "cadre-bench:" + UUID.randomUUID();
        RedisClient redis = RedisClient.create(ExternalServices.redis().uri());
        Map<String, List<Figures>> results = new LinkedHashMap<>();
        try (HikariDataSource ds = TestDatabases.pool(jdbcSchema, 12);
                HikariDataSource hybridDs = TestDatabases.pool(hybridSchema, 12)) {
            MemorySchema.migrate(ds);
            MemorySchema.migrate(hybridDs);
            Baselines.createRawTable(ds);
            MemoryOptions options = MemoryOptions.defaults().withRedisPrefix(prefix);
            try (SharedMemory jdbc = new JdbcSharedMemory(ds, options);
                    SharedMemory hybrid = new HybridSharedMemory(hybridDs, redis, options);
                    StatefulRedisConnection<String, String> raw = redis.connect()) {
                for (int run = 1; run <= runs; run++) {
                    System.out.printf(Locale.ROOT, "run %d/%d%n", run, runs);
                    for (int clients : new int[] {1, 8}) {
                        // Baseline and subjects take turns in short slices, so a change in the
                        // machine's other load hits them alike and the ratios stay fair.
                        Map<String, Op> writes = new LinkedHashMap<>();
                        writes.put(RAW_UPDATE, Baselines.rawUpdate(ds, run, clients));
                        writes.put(JDBC_CAS, Baselines.cas(jdbc, "jdbc" + run + "c" + clients, clients));
                        writes.put(HYBRID_CAS, Baselines.cas(hybrid, "hyb" + run + "c" + clients, clients));
                        rotate(results, clients, writes);
                        Map<String, Op> reads = new LinkedHashMap<>();
                        reads.put(RAW_GET, Baselines.rawGet(raw, prefix, clients));
                        reads.put(CACHED_GET, Baselines.cachedGet(hybrid, "read" + clients, clients));
                        reads.put(CONSISTENT_GET, Baselines.consistentGet(hybrid, "read" + clients));
                        rotate(results, clients, reads);
                    }
                }
            }
        } finally {
            TestRedis.deletePrefix(redis, prefix);
            redis.shutdown();
            jdbcSchema.dropSchema();
            hybridSchema.dropSchema();
        }
        report(results, runs);
    }

    // ------------------------------------------------------------------ measuring

    /** Warms every op up, then runs them in turn, slice by slice, for {@code seconds} each. */
    private void rotate(Map<String, List<Figures>> results, int clients, Map<String, Op> ops) throws Exception {
        ClosedLoop.rotate(clients, ops, seconds, warmup)
                .forEach((name, figures) -> record(results, name, clients, figures));
    }

    private static void record(Map<String, List<Figures>> results, String name, int clients, Figures f) {
        String label = name + " | " + clients;
        results.computeIfAbsent(label, k -> new ArrayList<>()).add(f);
        System.out.printf(
                Locale.ROOT,
                "  %-52s %2d clients %10.0f ops/s  p50 %8.1f us  p99 %8.1f us%n",
                name,
                clients,
                f.opsPerSecond(),
                f.p50Micros(),
                f.p99Micros());
    }

    // ------------------------------------------------------------------ report

    private static void report(Map<String, List<Figures>> results, int runs) {
        System.out.println();
        System.out.printf(Locale.ROOT, "Medians of %d runs%n%n", runs);
        System.out.println("| operation | clients | ops/s | p50 µs | p99 µs |");
        System.out.println("|---|---:|---:|---:|---:|");
        Map<String, Figures> medians = new LinkedHashMap<>();
        for (var e : results.entrySet()) {
            Figures m = new Figures(
                    median(e.getValue().stream()
                            .mapToDouble(Figures::opsPerSecond)
                            .toArray()),
                    median(e.getValue().stream().mapToDouble(Figures::p50Micros).toArray()),
                    median(e.getValue().stream().mapToDouble(Figures::p99Micros).toArray()),
                    (long) median(
                            e.getValue().stream().mapToDouble(Figures::count).toArray()));
            medians.put(e.getKey(), m);
            String[] parts = e.getKey().split(" \\| ");
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %.0f | %.0f | %.0f |%n",
                    parts[0],
                    parts[1],
                    m.opsPerSecond(),
                    m.p50Micros(),
                    m.p99Micros());
        }
        System.out.println();
        System.out.println("| ratio | clients | median | target |");
        System.out.println("|---|---:|---:|---:|");
        for (int clients : new int[] {1, 8}) {
            ratio(results, JDBC_CAS, RAW_UPDATE, clients, 0.70);
            ratio(results, HYBRID_CAS, RAW_UPDATE, clients, 0.70);
            ratio(results, CACHED_GET, RAW_GET, clients, 0.50);
        }
    }

    /** The median over runs of the per-run ratio (both measured in the same run). */
    private static void ratio(
            Map<String, List<Figures>> results, String subject, String baseline, int clients, double target) {
        List<Figures> s = results.get(subject + " | " + clients);
        List<Figures> b = results.get(baseline + " | " + clients);
        double[] ratios = new double[s.size()];
        for (int i = 0; i < s.size(); i++) {
            ratios[i] = s.get(i).opsPerSecond() / b.get(i).opsPerSecond();
        }
        double m = median(ratios);
        System.out.printf(
                Locale.ROOT,
                "| %s / %s | %d | %.0f %% | ≥ %.0f %% %s |%n",
                subject,
                baseline,
                clients,
                m * 100,
                target * 100,
                m >= target ? "met" : "MISSED");
    }

    private static double median(double[] values) {
        return ClosedLoop.median(values);
    }
}
