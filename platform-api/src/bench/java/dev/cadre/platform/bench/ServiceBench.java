package dev.cadre.platform.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.bench.ClosedLoop;
import dev.cadre.memory.bench.ClosedLoop.Figures;
import dev.cadre.memory.bench.ClosedLoop.Op;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Parts 1 and 2 of the platform benchmark: runs submitted and followed to completion over HTTP at
 * 1, 8 and 32 clients; shared memory GET and CAS PUT over HTTP; and, on PostgreSQL + Redis, the
 * REST CAS and GET beside the library's direct calls and the raw PostgreSQL/Redis baselines, all
 * interleaved in slices within each run.
 */
final class ServiceBench {

    // The entry the library baselines write, so REST and library handle the same JSON.
    static final String VALUE = dev.cadre.memory.bench.Baselines.VALUE;
    static final int[] RUN_CLIENTS = {1, 8, 32};
    static final int[] MEMORY_CLIENTS = {1, 8};

    static final String RAW_UPDATE = "raw conditional UPDATE (JDBC, in the bench JVM)";
    static final String DIRECT_CAS = "CAS put, HybridSharedMemory direct (library, in the bench JVM)";
    static final String REST_CAS = "CAS PUT + If-Match over REST (platform)";
    static final String RAW_GET = "raw Redis GET (Lettuce, in the bench JVM)";
    static final String DIRECT_GET = "cached get, HybridSharedMemory direct (library, in the bench JVM)";
    static final String REST_GET = "GET over REST (platform)";
    static final String LIVENESS = "floor: GET /actuator/health/liveness, no key (platform)";
    static final String WHOAMI = "floor: GET /api/v1/session with the key, auth only (platform)";

    /** The PostgreSQL + Redis baselines of MemoryBenchmark, in the bench JVM; null on the embedded default. */
    record Baselines(
            HikariDataSource rawPool,
            SharedMemory hybrid,
            StatefulRedisConnection<String, String> redis,
            String redisPrefix) {}

    private final Http http;
    private final String backend;
    private final int runs;
    private final int seconds;
    private final int warmup;
    private final @Nullable Baselines baselines;

    /** label → figures of each run; label = backend | operation | clients. */
    final Map<String, List<Figures>> results = new LinkedHashMap<>();

    /** backend | clients → per run {platform CPU ms per completed run, bench client CPU ms per run}. */
    final Map<String, List<double[]>> cpu = new LinkedHashMap<>();

    private final AtomicInteger notCompleted = new AtomicInteger();
    private final long platformPid;
    private final String base;

    ServiceBench(
            PlatformProcess platform,
            String backend,
            int runs,
            int seconds,
            int warmup,
            @Nullable Baselines baselines) {
        this.http = new Http(platform.base(), Api.ADMIN_KEY);
        this.platformPid = platform.pid();
        this.base = platform.base();
        this.backend = backend;
        this.runs = runs;
        this.seconds = seconds;
        this.warmup = warmup;
        this.baselines = baselines;
    }

    void runAll() throws Exception {
        Op run = this::submitAndFollow;
        // JIT and connection warm-up, discarded: the platform's JIT needs far longer than the
        // client's (a first try with 3 s per level saw 1-client throughput rise 4x from run 1 to 4).
        ClosedLoop.runFor(8, run, warmup * 5000L, new ClosedLoop.Sample());
        for (int clients : RUN_CLIENTS) {
            ClosedLoop.runFor(clients, run, warmup * 1000L, new ClosedLoop.Sample());
        }
        for (int r = 1; r <= runs; r++) {
            System.out.println(Measure.fmt("[%s] run %d/%d (load %.2f)", backend, r, runs, Measure.loadAverage()));
            for (int clients : RUN_CLIENTS) {
                ClosedLoop.Sample s = new ClosedLoop.Sample();
                long serverCpu = Measure.cpuTicks(platformPid);
                long clientCpu = Measure.cpuTicks(ProcessHandle.current().pid());
                ClosedLoop.runFor(clients, run, seconds * 1000L, s);
                Figures f = s.figures();
                record("runs: POST, follow SSE to the end, GET says completed", clients, f);
                // CPU per completed run, from /proc (10 ms ticks): where the two cores went.
                cpu.computeIfAbsent(backend + " | " + clients, k -> new ArrayList<>())
                        .add(new double[] {
                            (Measure.cpuTicks(platformPid) - serverCpu) * 10.0 / f.count(),
                            (Measure.cpuTicks(ProcessHandle.current().pid()) - clientCpu) * 10.0 / f.count()
                        });
            }
            for (int clients : MEMORY_CLIENTS) {
                Map<String, Op> writes = new LinkedHashMap<>();
                Map<String, Op> reads = new LinkedHashMap<>();
                if (baselines != null) {
                    writes.put(RAW_UPDATE, dev.cadre.memory.bench.Baselines.rawUpdate(baselines.rawPool(), r, clients));
                    writes.put(
                            DIRECT_CAS,
                            dev.cadre.memory.bench.Baselines.cas(
                                    baselines.hybrid(), "direct" + r + "c" + clients, clients));
                }
                writes.put(REST_CAS, restCas("rest" + r + "c" + clients, clients));
                if (baselines != null) {
                    reads.put(
                            RAW_GET,
                            dev.cadre.memory.bench.Baselines.rawGet(
                                    baselines.redis(), baselines.redisPrefix(), clients));
                    reads.put(
                            DIRECT_GET,
                            dev.cadre.memory.bench.Baselines.cachedGet(
                                    baselines.hybrid(), "dread" + r + "c" + clients, clients));
                }
                reads.put(REST_GET, restGet("rread" + r + "c" + clients, clients));
                reads.put(LIVENESS, plainGet("/actuator/health/liveness", false));
                reads.put(WHOAMI, plainGet("/api/v1/session", true));
                ClosedLoop.rotate(clients, writes, seconds, 1).forEach((name, f) -> record(name, clients, f));
                ClosedLoop.rotate(clients, reads, seconds, 1).forEach((name, f) -> record(name, clients, f));
            }
        }
        if (notCompleted.get() > 0) {
            throw new IllegalStateException(notCompleted.get() + " runs ended other than completed");
        }
    }

    // ------------------------------------------------------------------ runs

    /**
     * One client's run: POST, then follow the run's SSE stream until the server ends it (it ends
     * after the run's {@code done}/{@code error}), then one GET that must say completed. The latency
     * is all three: what a client waits for before it knows the run completed.
     */
    private void submitAndFollow(int client) throws Exception {
        Http.Response submitted =
                http.post("/api/v1/runs", "{\"agent\":\"bench-echo\",\"input\":\"client " + client + "\"}");
        if (submitted.status() != 202) {
            throw new IllegalStateException("submit answered " + submitted.status() + ": " + submitted.body());
        }
        String id = submitted.json().get("id").asString();
        Http.Response stream = http.send(http.request("/api/v1/runs/" + id + "/events")
                .header("Accept", "text/event-stream")
                .GET()
                .build());
        if (stream.status() != 200
                || !(stream.body().contains("event:done") || stream.body().contains("event:error"))) {
            throw new IllegalStateException(
                    "event stream of " + id + " answered " + stream.status() + " without an end");
        }
        for (int attempt = 0; ; attempt++) {
            String status = http.get("/api/v1/runs/" + id).json().get("status").asString();
            if (status.equals("completed")) {
                return;
            }
            if (status.matches("failed|canceled|rejected") || attempt > 2000) {
                notCompleted.incrementAndGet();
                throw new IllegalStateException("run " + id + " ended " + status);
            }
            // The stream ended before the record said so: the client polls, and pays for it.
            Thread.sleep(1);
        }
    }

    // ------------------------------------------------------------------ memory over REST

    private Op restCas(String ns, int clients) throws Exception {
        long[] versions = new long[clients];
        for (int i = 0; i < clients; i++) {
            Http.Response r = http.put(path(ns, i), VALUE, "If-None-Match", "*");
            if (r.status() != 201) {
                throw new IllegalStateException("create answered " + r.status() + ": " + r.body());
            }
            versions[i] = version(r);
        }
        return client -> {
            Http.Response r = http.put(path(ns, client), VALUE, "If-Match", "\"" + versions[client] + "\"");
            if (r.status() != 200) {
                throw new IllegalStateException("CAS PUT answered " + r.status() + ": " + r.body());
            }
            versions[client] = version(r);
        };
    }

    private Op restGet(String ns, int clients) throws Exception {
        for (int i = 0; i < clients; i++) {
            Http.Response r = http.put(path(ns, i), VALUE, "If-None-Match", "*");
            if (r.status() != 201) {
                throw new IllegalStateException("create answered " + r.status() + ": " + r.body());
            }
            http.get(path(ns, i)); // fills the cache on the hybrid backend
        }
        return client -> {
            Http.Response r = http.get(path(ns, client));
            if (r.status() != 200) {
                throw new IllegalStateException("GET answered " + r.status() + ": " + r.body());
            }
        };
    }

    /** An HTTP floor beside the memory GET: the same stack without memory, with or without the key. */
    private Op plainGet(String path, boolean withKey) {
        java.net.http.HttpRequest request = withKey
                ? http.request(path).GET().build()
                : java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + path))
                        .GET()
                        .build();
        return client -> {
            Http.Response r = http.send(request);
            if (r.status() != 200) {
                throw new IllegalStateException(path + " answered " + r.status() + ": " + r.body());
            }
        };
    }

    private static String path(String ns, int client) {
        return "/api/v1/memory/" + ns + "/key-" + client;
    }

    private static long version(Http.Response r) {
        String etag = r.header("ETag");
        if (etag == null) {
            throw new IllegalStateException("no ETag: " + r.body());
        }
        return Long.parseLong(etag.replaceAll("[^0-9]", ""));
    }

    // ------------------------------------------------------------------ report

    private void record(String name, int clients, Figures f) {
        results.computeIfAbsent(backend + " | " + name + " | " + clients, k -> new ArrayList<>())
                .add(f);
        System.out.println(Measure.fmt(
                "  %-10s %-66s %2d clients %8.0f ops/s  p50 %9.1f us  p99 %9.1f us  (%d)",
                backend, name, clients, f.opsPerSecond(), f.p50Micros(), f.p99Micros(), f.count()));
    }
}
