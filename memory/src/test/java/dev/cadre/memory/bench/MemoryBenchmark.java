package dev.cadre.memory.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.HybridSharedMemory;
import dev.cadre.memory.JdbcSharedMemory;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.MemorySchema;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.WriteOutcome;
import dev.cadre.memory.Writer;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import dev.cadre.memory.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * CAS and read throughput and latency of the JDBC/PostgreSQL and hybrid backends beside raw
 * baselines measured in the same run: a plain conditional {@code UPDATE} through JDBC (same pool)
 * and Redis {@code GET} through Lettuce (same client). Each client works on a key of its own, so
 * this measures the cost of the machinery, not contention (the tests cover contention).
 *
 * <p>Run: {@code ./mvnw -B -pl memory -Pbench -DskipTests verify} (knobs: {@code -Dbench.runs},
 * {@code -Dbench.seconds}, {@code -Dbench.warmup}). Uses the same PostgreSQL and Redis as the
 * integration tests, in a schema and under a key prefix of its own, removed afterwards.
 */
public final class MemoryBenchmark {

    private static final String VALUE = "{\"status\":\"ok\",\"cpu\":42,\"checkedBy\":\"inspector\"}";

    /** One operation of one client; returns normally when it succeeded. */
    @FunctionalInterface
    interface Op {
        void run(int client, long iteration) throws Exception;
    }

    /** Throughput and latency of one measurement. */
    record Figures(double opsPerSecond, double p50Micros, double p99Micros) {}

    static final String RAW_UPDATE = "raw conditional UPDATE (JDBC)";
    static final String JDBC_CAS = "CAS put, JdbcSharedMemory (PostgreSQL)";
    static final String HYBRID_CAS = "CAS put, HybridSharedMemory";
    static final String RAW_GET = "raw Redis GET (Lettuce)";
    static final String CACHED_GET = "cached get, HybridSharedMemory";
    static final String CONSISTENT_GET = "consistent get, HybridSharedMemory (PostgreSQL)";
    private static final long SLICE_MILLIS = 500;

    private final int seconds;
    private final int warmup;

    private MemoryBenchmark(int seconds, int warmup) {
        this.seconds = seconds;
        this.warmup = warmup;
    }

    public static void main(String[] args) throws Exception {
        int runs = Integer.getInteger("bench.runs", 5);
        int seconds = Integer.getInteger("bench.seconds", 3);
        int warmup = Integer.getInteger("bench.warmup", 1);
        new MemoryBenchmark(seconds, warmup).runAll(runs);
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
            try (Connection c = ds.getConnection();
                    Statement st = c.createStatement()) {
                st.execute(
                        "CREATE TABLE bench_raw (k VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL, version BIGINT NOT NULL)");
            }
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
                        writes.put(RAW_UPDATE, rawUpdate(ds, run, clients));
                        writes.put(JDBC_CAS, cas(jdbc, "jdbc" + run + "c" + clients, clients));
                        writes.put(HYBRID_CAS, cas(hybrid, "hyb" + run + "c" + clients, clients));
                        rotate(results, clients, writes);
                        Map<String, Op> reads = new LinkedHashMap<>();
                        reads.put(RAW_GET, rawGet(raw, prefix, clients));
                        reads.put(CACHED_GET, cachedGet(hybrid, clients));
                        reads.put(CONSISTENT_GET, consistentGet(hybrid, clients));
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

    // ------------------------------------------------------------------ operations

    private static Op rawUpdate(HikariDataSource ds, int run, int clients) throws Exception {
        long[] versions = new long[clients];
        String[] keys = new String[clients];
        try (Connection c = ds.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO bench_raw (k, value, version) VALUES (?, ?, 1)")) {
            for (int i = 0; i < clients; i++) {
                keys[i] = "raw-" + run + "-" + clients + "-" + i;
                versions[i] = 1;
                ps.setString(1, keys[i]);
                ps.setString(2, VALUE);
                ps.executeUpdate();
            }
        }
        return (client, iteration) -> {
            try (Connection c = ds.getConnection();
                    PreparedStatement ps = c.prepareStatement(
                            "UPDATE bench_raw SET value = ?, version = version + 1 WHERE k = ? AND version = ?")) {
                ps.setString(1, VALUE);
                ps.setString(2, keys[client]);
                ps.setLong(3, versions[client]);
                if (ps.executeUpdate() != 1) {
                    throw new IllegalStateException("raw update lost its version");
                }
                versions[client]++;
            }
        };
    }

    private static Op cas(SharedMemory memory, String ns, int clients) {
        long[] versions = new long[clients];
        Writer[] writers = new Writer[clients];
        for (int i = 0; i < clients; i++) {
            writers[i] = Writer.agent("bench-" + i, "run");
        }
        return (client, iteration) -> {
            WriteOutcome outcome = memory.put(ns, "key-" + client, VALUE, versions[client], writers[client]);
            if (!(outcome instanceof WriteOutcome.Written w)) {
                throw new IllegalStateException("CAS lost its version: " + outcome);
            }
            versions[client] = w.version();
        };
    }

    private static Op rawGet(StatefulRedisConnection<String, String> raw, String prefix, int clients) {
        for (int i = 0; i < clients; i++) {
            raw.sync().set(prefix + ":raw:" + i, VALUE);
        }
        return (client, iteration) -> {
            if (raw.sync().get(prefix + ":raw:" + client) == null) {
                throw new IllegalStateException("raw key vanished");
            }
        };
    }

    private static Op cachedGet(SharedMemory hybrid, int clients) {
        String ns = "read" + clients;
        for (int i = 0; i < clients; i++) {
            if (hybrid.get(ns, "key-" + i, true).isEmpty()) {
                hybrid.put(ns, "key-" + i, VALUE, 0, Writer.agent("bench", "run"));
            }
            hybrid.get(ns, "key-" + i); // warm the cache
        }
        return (client, iteration) -> {
            if (hybrid.get(ns, "key-" + client).isEmpty()) {
                throw new IllegalStateException("entry vanished");
            }
        };
    }

    private static Op consistentGet(SharedMemory hybrid, int clients) {
        String ns = "read" + clients;
        return (client, iteration) -> {
            if (hybrid.get(ns, "key-" + client, true).isEmpty()) {
                throw new IllegalStateException("entry vanished");
            }
        };
    }

    // ------------------------------------------------------------------ measuring

    /** Warms every op up, then runs them in turn, slice by slice, for {@code seconds} each. */
    private void rotate(Map<String, List<Figures>> results, int clients, Map<String, Op> ops) throws Exception {
        for (Op op : ops.values()) {
            runFor(clients, op, warmup * 1000L, new Sample());
        }
        Map<String, Sample> samples = new LinkedHashMap<>();
        ops.keySet().forEach(name -> samples.put(name, new Sample()));
        long slices = Math.max(1, seconds * 1000L / SLICE_MILLIS);
        for (long i = 0; i < slices; i++) {
            for (var e : ops.entrySet()) {
                runFor(clients, e.getValue(), SLICE_MILLIS, samples.get(e.getKey()));
            }
        }
        samples.forEach((name, sample) -> record(results, name, clients, sample.figures()));
    }

    /** Operations and latencies gathered over several slices. */
    private static final class Sample {
        private long[] latencies = new long[1 << 16];
        private int count;
        private double seconds;

        synchronized void add(long[] lat, int n) {
            while (count + n > latencies.length) {
                latencies = Arrays.copyOf(latencies, latencies.length * 2);
            }
            System.arraycopy(lat, 0, latencies, count, n);
            count += n;
        }

        synchronized void addTime(double elapsed) {
            seconds += elapsed;
        }

        synchronized Figures figures() {
            long[] all = Arrays.copyOf(latencies, count);
            Arrays.sort(all);
            return new Figures(count / seconds, percentile(all, 0.50) / 1e3, percentile(all, 0.99) / 1e3);
        }
    }

    private static void runFor(int clients, Op op, long millis, Sample sample) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        Throwable[] failures = new Throwable[clients];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            int client = i;
            Thread t = Thread.ofPlatform().name("bench-" + i).start(() -> {
                long[] lat = new long[1 << 14];
                int n = 0;
                try {
                    start.await();
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
                        op.run(client, n);
                        long dt = System.nanoTime() - t0;
                        if (n == lat.length) {
                            lat = Arrays.copyOf(lat, lat.length * 2);
                        }
                        lat[n++] = dt;
                    }
                } catch (Throwable e) {
                    failures[client] = e;
                }
                sample.add(lat, n);
            });
            threads.add(t);
        }
        long begin = System.nanoTime();
        start.countDown();
        Thread.sleep(millis);
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        sample.addTime((System.nanoTime() - begin) / 1e9);
        for (Throwable f : failures) {
            if (f != null) {
                throw new IllegalStateException("benchmark client failed", f);
            }
        }
    }

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
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
                    median(e.getValue().stream().mapToDouble(Figures::p99Micros).toArray()));
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
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
