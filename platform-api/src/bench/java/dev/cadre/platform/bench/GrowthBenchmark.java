package dev.cadre.platform.bench;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
import dev.cadre.platform.web.PageCursor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The growth benchmark of docs/benchmarks.md ("History growth", issue #18); not a test. It grows
 * PostgreSQL histories of several sizes by cloning real runs of the shipped ops team, with their
 * events and spans, inside the database ({@link HistoryCloner}), then measures all sizes in one
 * round, so a busy machine slows every size alike: one packaged platform per size, started one
 * after the other with the shipped Kubernetes memory settings (start-up time to healthy), the
 * requests of each endpoint interleaved round-robin across the instances (p50/p95 per size),
 * submit → completed, and the RSS after warm-up and after the sweep.
 *
 * <p>Run: {@code ./mvnw -B -o -pl platform-api -am -Pbench verify -Dbench.args="..."} (docs/benchmarks.md).
 * Arguments: {@code --db=jdbc:postgresql://host:port/NAME} (the databases are {@code NAME_seed}
 * and {@code NAME_<size>}; the user needs CREATEDB; default {@code CADRE_TEST_POSTGRES_URL}'s
 * server and {@code cadre_growth}), {@code --sizes=10000,100000,1000000}, {@code --requests=N}
 * per endpoint and size (default 40), {@code --grow-only}, {@code --measure-only} (databases a
 * {@code --keep} run left), {@code --keep}, {@code --min-free-gb=15} (growing stops below it),
 * {@code --grow-workers=3} (connections cloning at once), {@code --resume} (continue a stopped
 * grow of an existing database: clone only the missing copies, newest first), {@code
 * --stop-at=2026-12-03T17:10:00Z} (stop cloning then and measure what was grown), {@code --reuse-seed} (the seed database
 * a stopped run left, instead of seeding again),
 * {@code --jvm="…"} (default: the Kubernetes limits' heap).
 */
public final class GrowthBenchmark {

    private static final String AGENT = "ops-orchestrator";
    private static final int SEEDS = 50;

    /**
     * deploy/k8s: a 1536Mi container with JAVA_TOOL_OPTIONS -XX:MaxRAMPercentage=75
     * -XX:+ExitOnOutOfMemoryError; MaxRAM stands in for the container limit outside a container.
     */
    static final String K8S_JVM = "-XX:MaxRAM=1536m -XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError";

    private record Endpoint(String name, String path) {}

    /** One size's database and, while measured, its platform. */
    private static final class Size {
        final long target;
        final String database;
        long runs;
        double growSeconds = -1;
        long dbBytes;
        String detail = "";
        PlatformProcess platform;
        Http http;
        List<Endpoint> endpoints;
        final List<Double> startSeconds = new ArrayList<>();
        long rssWarmKb = -1;
        long rssAfterKb = -1;
        final Map<String, List<Double>> ms = new LinkedHashMap<>();
        final Map<String, String> failures = new LinkedHashMap<>();

        Size(long target, String database) {
            this.target = target;
            this.database = database;
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> options = Arrays.asList(args);
        List<Long> sizes = option(options, "sizes")
                .map(s -> Arrays.stream(s.split(",")).map(Long::parseLong).toList())
                .orElse(List.of(10_000L, 100_000L));
        int requests = option(options, "requests").map(Integer::parseInt).orElse(40);
        long minFreeBytes = option(options, "min-free-gb").map(Long::parseLong).orElse(15L) * 1024 * 1024 * 1024;
        String jvm = option(options, "jvm").orElse(K8S_JVM);
        int workers = option(options, "grow-workers").map(Integer::parseInt).orElse(3);
        boolean keep = options.contains("--keep");
        boolean reuseSeed = options.contains("--reuse-seed");
        boolean resume = options.contains("--resume");
        Instant stopAt = option(options, "stop-at").map(Instant::parse).orElse(null);
        boolean growOnly = options.contains("--grow-only");
        boolean measureOnly = options.contains("--measure-only");
        String url = option(options, "db").orElseGet(() -> {
            String base = Optional.ofNullable(System.getenv("CADRE_TEST_POSTGRES_URL"))
                    .orElse("jdbc:postgresql://127.0.0.1:5432/test");
            return base.substring(0, base.lastIndexOf('/') + 1) + "cadre_growth";
        });
        String user =
                Optional.ofNullable(System.getenv("CADRE_TEST_POSTGRES_USER")).orElse("postgres");
        String password = Optional.ofNullable(System.getenv("CADRE_TEST_POSTGRES_PASSWORD"))
                .orElse("");
        String server = url.substring(0, url.lastIndexOf('/') + 1);
        String prefix = url.substring(url.lastIndexOf('/') + 1).replaceAll("\\?.*", "");

        Path out = Path.of("target", "bench").toAbsolutePath();
        Files.createDirectories(out);
        List<String> log = new ArrayList<>();
        say(
                log,
                "growth benchmark - " + Instant.now() + ", load average " + Measure.loadAverage() + ", sizes " + sizes
                        + ", databases " + server + prefix + "_*");
        List<Size> all = new ArrayList<>();
        for (long s : sizes) {
            all.add(new Size(s, prefix + "_" + s));
        }
        try (Connection admin = DriverManager.getConnection(server + "postgres", user, password)) {
            if (!measureOnly) {
                String seedDb = prefix + "_seed";
                Instant now = Instant.now();
                if (!reuseSeed || !exists(admin, seedDb)) {
                    recreate(admin, seedDb, null);
                    PlatformProcess p = start("seed", out, jvm, platformArgs(server + seedDb, user, password));
                    try {
                        seed(new Http(p.base(), Api.ADMIN_KEY), log);
                    } finally {
                        p.close();
                    }
                    try (Connection c = DriverManager.getConnection(server + seedDb, user, password)) {
                        new HistoryCloner(c).dayPartitions(now);
                    }
                }
                // The seed runs, from the seed database (a grown one holds their copies too).
                List<String> seedIds;
                try (Connection c = DriverManager.getConnection(server + seedDb, user, password)) {
                    seedIds = new HistoryCloner(c).seeds();
                }
                for (Size size : all) {
                    boolean resumed = resume && exists(admin, size.database);
                    if (!resumed) {
                        recreate(admin, size.database, seedDb);
                    }
                    try (Connection c = DriverManager.getConnection(server + size.database, user, password)) {
                        HistoryCloner cloner = new HistoryCloner(c);
                        long t0 = System.nanoTime();
                        if (resumed) {
                            // Statistics of the rows a stopped grow wrote, or the seed lookups scan the table.
                            c.createStatement().execute("ANALYZE cadre_run");
                        }
                        List<String> seeds = seedIds;
                        // A resumed database holds copies already: the plan is the one made for the seeds alone.
                        long copies = resumed
                                ? Math.max(0, (size.target - 1) / seeds.size())
                                : cloner.copiesFor(seeds, size.target);
                        cloner.prepare(seeds, copies, now);
                        List<Long> todo = resumed ? cloner.missingCopies() : null;
                        if (resumed) {
                            say(
                                    log,
                                    size.database + ": resuming, " + todo.size() + " of " + copies + " copies missing");
                        }
                        grow(
                                server + size.database,
                                user,
                                password,
                                seeds,
                                copies,
                                todo,
                                stopAt,
                                now,
                                workers,
                                minFreeBytes,
                                t0);
                        double cloneSeconds = (System.nanoTime() - t0) / 1e9;
                        cloner.addRollups();
                        double rollupSeconds = (System.nanoTime() - t0) / 1e9 - cloneSeconds;
                        cloner.vacuum();
                        size.growSeconds = (System.nanoTime() - t0) / 1e9;
                        size.runs = cloner.runs();
                        size.dbBytes = cloner.databaseBytes();
                        size.detail = cloner.sizes();
                        say(
                                log,
                                Measure.fmt(
                                        "grew %s to %d runs in %.0f s (clone %.0f s, rollups %.0f s,"
                                                + " vacuum %.0f s); %s; load %.1f",
                                        size.database,
                                        size.runs,
                                        size.growSeconds,
                                        cloneSeconds,
                                        rollupSeconds,
                                        size.growSeconds - cloneSeconds - rollupSeconds,
                                        size.detail,
                                        Measure.loadAverage()));
                    }
                }
                admin.createStatement().execute("DROP DATABASE IF EXISTS " + seedDb);
            }
            if (!growOnly) {
                for (Size size : all) {
                    try (Connection c = DriverManager.getConnection(server + size.database, user, password)) {
                        HistoryCloner cloner = new HistoryCloner(c);
                        size.runs = cloner.runs();
                        size.dbBytes = cloner.databaseBytes();
                        size.detail = cloner.sizes();
                    }
                }
                measure(all, out, jvm, server, user, password, requests, log);
                for (Size size : all) {
                    try (Connection c = DriverManager.getConnection(server + size.database, user, password)) {
                        plans(c, size, log);
                    }
                }
                List<String> report = report(all);
                report.forEach(System.out::println);
                log.add("");
                log.addAll(report);
                Files.write(out.resolve("growth-benchmark.md"), log);
            }
            if (!keep && !growOnly) {
                for (Size size : all) {
                    admin.createStatement().execute("DROP DATABASE IF EXISTS " + size.database);
                }
            }
        }
    }

    /**
     * The statements behind {@code GET /api/v1/runs?q=disk}, a search that matches nothing and {@code
     * GET /api/v1/stats/overview?hours=744}, as RunStore, RunRollups, TraceStore and ApprovalStore send
     * them (parameters written in: a search is planned for its own pattern), each with {@code EXPLAIN
     * (ANALYZE, BUFFERS)} on this size's database: what grows with the table rather than with the page
     * shows as rows and buffers that grow from one size to the next.
     */
    private static void plans(Connection c, Size size, List<String> log) throws Exception {
        String month = "(date_trunc('hour', now()) - interval '744 hours')";
        Map<String, String> statements = new LinkedHashMap<>();
        String list = "SELECT id, agent, status, input, result, created_at FROM cadre_run WHERE 1 = 1";
        statements.put(
                "runs?q=disk (page of 50 and one more)",
                list + " AND (LOWER(input) LIKE '%disk%' OR LOWER(COALESCE(result, '')) LIKE '%disk%' OR id = 'disk')"
                        + " ORDER BY created_at DESC, id DESC LIMIT 51");
        statements.put(
                "runs?q=<no match>",
                list + " AND (LOWER(input) LIKE '%zzq-no-run-holds-this%'"
                        + " OR LOWER(COALESCE(result, '')) LIKE '%zzq-no-run-holds-this%' OR id = 'zzq-no-run-holds-this')"
                        + " ORDER BY created_at DESC, id DESC LIMIT 51");
        statements.put(
                "overview: run rollup window",
                "SELECT bucket_hour, agent, status, failure_category, runs, input_tokens, output_tokens,"
                        + " max_duration_ms FROM cadre_run_rollup WHERE bucket_hour >= " + month
                        + " AND bucket_hour <= now()");
        statements.put(
                "overview: duration rollup window",
                "SELECT bucket, SUM(runs) AS runs FROM cadre_run_duration_rollup WHERE bucket_hour >= " + month
                        + " AND bucket_hour <= now() GROUP BY bucket");
        statements.put(
                "overview: live runs in the window",
                "SELECT id, agent, status, input_tokens, output_tokens, created_at FROM cadre_run"
                        + " WHERE status IN ('submitted', 'working', 'input-required') AND created_at >= " + month
                        + " AND created_at <= now()");
        statements.put(
                "overview: model tokens",
                "SELECT agent, model, SUM(calls), SUM(input_tokens), SUM(output_tokens) FROM cadre_model_rollup"
                        + " WHERE bucket_hour >= " + month + " GROUP BY agent, model");
        statements.put("overview: pending approvals", "SELECT COUNT(*) FROM cadre_approval WHERE status = 'pending'");
        statements.put(
                "overview: live counts",
                "SELECT status, COUNT(*) AS n FROM cadre_run WHERE status IN ('submitted', 'working',"
                        + " 'input-required') GROUP BY status");
        say(log, "");
        say(log, "### Plans at " + size.runs + " runs (" + size.database + "), load " + Measure.loadAverage());
        for (var e : statements.entrySet()) {
            say(log, "");
            say(log, "#### " + e.getKey());
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("EXPLAIN (ANALYZE, BUFFERS) " + e.getValue())) {
                while (rs.next()) {
                    say(log, "    " + rs.getString(1));
                }
            } catch (java.sql.SQLException failed) {
                say(log, "    (could not be explained: " + failed.getMessage() + ")");
            }
        }
    }

    /**
     * Writes copies 1..{@code copies} with {@code workers} connections at once (oldest copies first,
     * ~5,000 runs per transaction), checking the free disk space after each batch.
     */
    private static void grow(
            String url,
            String user,
            String password,
            List<String> seeds,
            long copies,
            List<Long> todo,
            Instant stopAt,
            Instant now,
            int workers,
            long minFreeBytes,
            long t0)
            throws Exception {
        long batch = Math.max(1, 5000 / seeds.size());
        // Ranges of copies, oldest first: all of them, or the missing ones of a resumed database.
        java.util.concurrent.ConcurrentLinkedQueue<long[]> ranges = new java.util.concurrent.ConcurrentLinkedQueue<>();
        List<Long> ks = todo != null
                ? todo
                : java.util.stream.LongStream.rangeClosed(1, copies)
                        .map(i -> copies + 1 - i)
                        .boxed()
                        .toList();
        List<long[]> planned = new ArrayList<>();
        for (int i = 0; i < ks.size(); ) {
            long to = ks.get(i);
            int j = i;
            while (j + 1 < ks.size() && ks.get(j + 1) == ks.get(j) - 1 && to - ks.get(j + 1) < batch) {
                j++;
            }
            planned.add(new long[] {ks.get(j), to});
            i = j + 1;
        }
        // A resumed grow fills the newest copies first: if it is stopped again (--stop-at), the
        // recent days, which the console and the 24 h statistics read, are complete.
        ranges.addAll(todo != null ? planned.reversed() : planned);
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong reported = new java.util.concurrent.atomic.AtomicLong();
        List<java.util.concurrent.Future<?>> running = new ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(workers)) {
            for (int w = 0; w < workers; w++) {
                running.add(pool.submit(() -> {
                    try (Connection c = DriverManager.getConnection(url, user, password)) {
                        HistoryCloner cloner = new HistoryCloner(c);
                        cloner.prepare(seeds, copies, now);
                        while (true) {
                            long[] range = ranges.poll();
                            if (range == null
                                    || (stopAt != null && Instant.now().isAfter(stopAt))) {
                                return null;
                            }
                            long from = range[0];
                            long to = range[1];
                            cloner.cloneCopies(from, to);
                            long done = written.addAndGet((to - from + 1) * seeds.size());
                            long free = freeBytes(c);
                            if (free >= 0 && free < minFreeBytes) {
                                ranges.clear();
                                throw new IllegalStateException("stopping: less than --min-free-gb left on the"
                                        + " database's disk (" + free / (1L << 30) + " GB)");
                            }
                            long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
                            if (reported.getAndUpdate(r -> Math.max(r, seconds / 30)) < seconds / 30) {
                                System.out.println(Measure.fmt(
                                        "  %d of %d runs cloned, %d s, %d GB free, load %.1f",
                                        done,
                                        copies * seeds.size(),
                                        seconds,
                                        free / (1L << 30),
                                        Measure.loadAverage()));
                            }
                        }
                    }
                }));
            }
            for (var f : running) {
                f.get();
            }
        }
    }

    private static Optional<String> option(List<String> options, String name) {
        return options.stream()
                .filter(o -> o.startsWith("--" + name + "="))
                .findFirst()
                .map(o -> o.substring(name.length() + 3));
    }

    private static void say(List<String> log, String line) {
        System.out.println(line);
        log.add(line);
    }

    private static boolean exists(Connection admin, String database) throws Exception {
        try (var ps = admin.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            ps.setString(1, database);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static void recreate(Connection admin, String database, String template) throws Exception {
        try (Statement st = admin.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + database);
            st.execute("CREATE DATABASE " + database + (template == null ? "" : " TEMPLATE " + template));
        }
    }

    /** Free bytes on the database server's data directory when it is on this machine; -1 when unknown. */
    private static long freeBytes(Connection c) {
        try (ResultSet rs = c.createStatement().executeQuery("SHOW data_directory")) {
            rs.next();
            Path dir = Path.of(rs.getString(1));
            return Files.getFileStore(Files.exists(dir) ? dir : Path.of("/")).getUsableSpace();
        } catch (Exception unknown) {
            return -1;
        }
    }

    private static List<String> platformArgs(String jdbcUrl, String user, String password) {
        return List.of(
                "--spring.datasource.url=" + jdbcUrl,
                "--spring.datasource.username=" + user,
                "--spring.datasource.password=" + password,
                "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                "--logging.level.root=WARN",
                "--logging.level.dev.cadre=WARN");
    }

    /** The packaged jar with the shipped agents and the given JVM flags, waited for until healthy. */
    private static PlatformProcess start(String name, Path out, String jvm, List<String> args) throws Exception {
        PlatformProcess p = PlatformProcess.start(
                name, PlatformProcess.freePort(), out, List.of(jvm.trim().split("\\s+")), out, args);
        try {
            p.awaitHealthy(Duration.ofSeconds(900));
        } catch (AssertionError | InterruptedException e) {
            System.err.println(p.logTail(40));
            p.destroy();
            throw e;
        }
        return p;
    }

    /** Real runs of the shipped ops team, all ended: what the history is cloned from. */
    private static void seed(Http http, List<String> log) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < SEEDS; i++) {
            String input = (i % 3 == 0 ? "disk usage high on " : i % 3 == 1 ? "check host " : "cpu spike on ") + "web-"
                    + (i % 7);
            var r = http.post("/api/v1/runs", Http.JSON.writeValueAsString(Map.of("agent", AGENT, "input", input)));
            if (r.status() != 202) {
                throw new IllegalStateException("submit failed: " + r.status() + " " + r.body());
            }
            ids.add(r.json().get("id").asString());
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        int ended = 0;
        for (String id : ids) {
            while (true) {
                if (ended(http.get("/api/v1/runs/" + id).json().get("status").asString())) {
                    ended++;
                    break;
                }
                if (System.nanoTime() > deadline) {
                    http.post("/api/v1/runs/" + id + "/cancel", "");
                    break;
                }
                Thread.sleep(50);
            }
        }
        // Spans reach the trace store in batches; give the last ones a moment.
        Thread.sleep(3000);
        say(log, ended + " seed runs ended");
    }

    private static boolean ended(String status) {
        return List.of("completed", "failed", "canceled", "rejected").contains(status);
    }

    private static void measure(
            List<Size> all,
            Path out,
            String jvm,
            String server,
            String user,
            String password,
            int requests,
            List<String> log)
            throws Exception {
        say(log, "measuring with JVM flags " + jvm + ", load average " + Measure.loadAverage());
        try {
            // Start-up to healthy, one instance at a time.
            for (Size size : all) {
                long s0 = System.nanoTime();
                size.platform =
                        start("growth-" + size.target, out, jvm, platformArgs(server + size.database, user, password));
                size.startSeconds.add((System.nanoTime() - s0) / 1e9);
                size.http = new Http(size.platform.base(), Api.ADMIN_KEY);
                size.endpoints = endpoints(size, server, user, password);
            }
            // Warm-up: 5 requests per endpoint and instance.
            for (Size size : all) {
                for (Endpoint e : size.endpoints) {
                    for (int i = 0; i < 5; i++) {
                        timed(size, e);
                    }
                }
                size.rssWarmKb = rssKb(size.platform);
            }
            say(log, "warmed up, load average " + Measure.loadAverage());
            // The sweep: per endpoint, request i goes to every instance in turn.
            for (int e = 0; e < all.getFirst().endpoints.size(); e++) {
                for (int i = 0; i < requests; i++) {
                    for (Size size : all) {
                        Endpoint endpoint = size.endpoints.get(e);
                        double t = timed(size, endpoint);
                        if (t >= 0) {
                            size.ms
                                    .computeIfAbsent(endpoint.name(), k -> new ArrayList<>())
                                    .add(t);
                        }
                    }
                }
            }
            for (int i = 0; i < 10; i++) {
                for (Size size : all) {
                    double t = submitToCompleted(size, i);
                    if (t >= 0) {
                        size.ms
                                .computeIfAbsent("submit → completed", k -> new ArrayList<>())
                                .add(t);
                    }
                }
            }
            for (Size size : all) {
                size.rssAfterKb = rssKb(size.platform);
            }
            say(log, "swept, load average " + Measure.loadAverage());
        } finally {
            for (Size size : all) {
                if (size.platform != null) {
                    if (!size.platform.isAlive()) {
                        size.failures.put("process", "exited: " + oom(size.platform));
                    }
                    size.platform.close();
                }
            }
        }
        // The figures so far, in case the second start-ups do not end.
        report(all).forEach(System.out::println);
        // A second start-up of each size, on the same (now warm) database.
        for (Size size : all) {
            long s0 = System.nanoTime();
            PlatformProcess p =
                    start("growth-" + size.target, out, jvm, platformArgs(server + size.database, user, password));
            size.startSeconds.add((System.nanoTime() - s0) / 1e9);
            p.close();
        }
    }

    /** One request; -1 (and a failure noted) when it does not answer 200 or the instance is gone. */
    private static double timed(Size size, Endpoint e) {
        if (size.failures.containsKey(e.name()) || !size.platform.isAlive()) {
            size.failures.putIfAbsent(e.name(), "instance exited: " + oom(size.platform));
            return -1;
        }
        try {
            long t0 = System.nanoTime();
            Http.Response r = size.http.get(e.path());
            double ms = (System.nanoTime() - t0) / 1e6;
            if (r.status() != 200) {
                size.failures.put(e.name(), "HTTP " + r.status() + ": " + abbreviate(r.body()));
                return -1;
            }
            return ms;
        } catch (Exception failed) {
            size.failures.put(e.name(), failed + (size.platform.isAlive() ? "" : " - " + oom(size.platform)));
            return -1;
        }
    }

    private static double submitToCompleted(Size size, int i) {
        if (!size.platform.isAlive()) {
            return -1;
        }
        try {
            long t0 = System.nanoTime();
            var r = size.http.post(
                    "/api/v1/runs",
                    Http.JSON.writeValueAsString(Map.of("agent", AGENT, "input", "check host bench-" + i)));
            if (r.status() != 202) {
                size.failures.put("submit → completed", "HTTP " + r.status() + ": " + abbreviate(r.body()));
                return -1;
            }
            String id = r.json().get("id").asString();
            long deadline = t0 + Duration.ofMinutes(2).toNanos();
            while (!ended(
                    size.http.get("/api/v1/runs/" + id).json().get("status").asString())) {
                if (System.nanoTime() > deadline) {
                    size.failures.put("submit → completed", "run " + id + " not ended within 2 minutes");
                    return -1;
                }
                Thread.sleep(5);
            }
            return (System.nanoTime() - t0) / 1e6;
        } catch (Exception failed) {
            size.failures.put("submit → completed", failed.toString());
            return -1;
        }
    }

    private static String oom(PlatformProcess p) {
        String tail = p.logTail(200);
        return tail.contains("OutOfMemoryError") ? "OutOfMemoryError in its log" : "see " + p.log();
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }

    /** The endpoints for one size; the ids and cursors come from that size's database. */
    private static List<Endpoint> endpoints(Size size, String server, String user, String password) throws Exception {
        String deep;
        String aged;
        try (Connection c = DriverManager.getConnection(server + size.database, user, password);
                Statement st = c.createStatement()) {
            // The cursor after the run 95 % of the way to the oldest: what a client holds after paging
            // that deep (read from the table, so the benchmark does not page through 1M runs first).
            try (ResultSet rs = st.executeQuery("SELECT created_at, id FROM cadre_run ORDER BY created_at, id"
                    + " OFFSET (SELECT COUNT(*) / 20 FROM cadre_run) LIMIT 1")) {
                rs.next();
                deep = new PageCursor(rs.getTimestamp(1).toInstant(), rs.getString(2)).encode();
            }
            // A run of a week ago: cloned with its events and spans, deep in their indexes.
            try (ResultSet rs = st.executeQuery("SELECT id FROM cadre_run WHERE created_at < now() - interval '7 days'"
                    + " AND status = 'completed' ORDER BY created_at DESC, id DESC LIMIT 1")) {
                aged = rs.next() ? rs.getString(1) : null;
            }
        }
        var first = size.http.get("/api/v1/runs?limit=50").json();
        if (aged == null) {
            aged = first.get("items").get(0).get("id").asString();
        }
        String next = first.path("nextCursor").asString("");
        return List.of(
                new Endpoint("GET /api/v1/runs first page", "/api/v1/runs"),
                new Endpoint("GET /api/v1/runs next page (cursor)", "/api/v1/runs?cursor=" + next),
                new Endpoint("GET /api/v1/runs page 95 % deep (cursor)", "/api/v1/runs?cursor=" + deep),
                new Endpoint(
                        "GET /api/v1/runs?status=completed&agent=…", "/api/v1/runs?status=completed&agent=" + AGENT),
                new Endpoint("GET /api/v1/runs?q=disk", "/api/v1/runs?q=disk"),
                // No run holds it: the search must not read the history to find nothing.
                new Endpoint("GET /api/v1/runs?q=<no match>", "/api/v1/runs?q=zzq-no-run-holds-this"),
                new Endpoint("GET /api/v1/stats/overview?hours=24", "/api/v1/stats/overview?hours=24"),
                new Endpoint("GET /api/v1/stats/overview?hours=744", "/api/v1/stats/overview?hours=744"),
                new Endpoint("GET /api/v1/stats/agents?hours=168", "/api/v1/stats/agents?hours=168"),
                new Endpoint("GET /api/v1/agents", "/api/v1/agents"),
                new Endpoint("GET /api/v1/runs/{id}", "/api/v1/runs/" + aged),
                new Endpoint("GET /api/v1/runs/{id}/trace", "/api/v1/runs/" + aged + "/trace"),
                new Endpoint("GET /api/v1/runs/{id}/events", "/api/v1/runs/" + aged + "/events?scope=all"));
    }

    private static double[] percentiles(List<Double> ms) {
        double[] sorted = ms.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (sorted.length == 0) {
            return new double[] {Double.NaN, Double.NaN};
        }
        return new double[] {
            sorted[(int) Math.ceil(0.50 * sorted.length) - 1], sorted[(int) Math.ceil(0.95 * sorted.length) - 1]
        };
    }

    private static long rssKb(PlatformProcess p) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + p.pid() + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    private static List<String> report(List<Size> all) {
        List<String> lines = new ArrayList<>();
        Size small = all.getFirst();
        Size big = all.getLast();
        StringBuilder head = new StringBuilder("| endpoint (p50 / p95 ms) |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Size s : all) {
            head.append(' ').append(s.runs).append(" runs |");
            rule.append("---|");
        }
        head.append(" p95 ").append(big.runs).append(" / ").append(small.runs).append(" |");
        rule.append("---|");
        lines.add(head.toString());
        lines.add(rule.toString());
        List<String> names = new ArrayList<>(small.endpoints == null ? List.of() : small.endpoints)
                .stream().map(Endpoint::name).toList();
        List<String> rows = new ArrayList<>(names);
        rows.add("submit → completed");
        for (String name : rows) {
            StringBuilder row = new StringBuilder("| `" + name + "` |");
            for (Size s : all) {
                if (s.failures.containsKey(name)) {
                    row.append(" FAILED: ")
                            .append(s.failures.get(name).replace('|', '/'))
                            .append(" |");
                } else {
                    double[] v = percentiles(s.ms.getOrDefault(name, List.of()));
                    row.append(Measure.fmt(" %.0f / %.0f |", v[0], v[1]));
                }
            }
            double[] a = percentiles(small.ms.getOrDefault(name, List.of()));
            double[] b = percentiles(big.ms.getOrDefault(name, List.of()));
            row.append(Measure.fmt(" %.2f |", b[1] / a[1]));
            lines.add(row.toString());
        }
        StringBuilder start = new StringBuilder("| start-up to healthy (s; 1st / 2nd start) |");
        StringBuilder warm = new StringBuilder("| RSS after warm-up (MB) |");
        StringBuilder rss = new StringBuilder("| RSS after the sweep (MB) |");
        StringBuilder db = new StringBuilder("| database size (GB) |");
        StringBuilder grow = new StringBuilder("| grow time (s) |");
        for (Size s : all) {
            start.append(' ')
                    .append(String.join(
                            " / ",
                            s.startSeconds.stream()
                                    .map(x -> Measure.fmt("%.1f", x))
                                    .toList()))
                    .append(" |");
            warm.append(Measure.fmt(" %d |", s.rssWarmKb / 1024));
            rss.append(Measure.fmt(" %d |", s.rssAfterKb / 1024));
            db.append(Measure.fmt(" %.1f |", s.dbBytes / 1e9));
            grow.append(s.growSeconds < 0 ? " (kept) |" : Measure.fmt(" %.0f |", s.growSeconds));
        }
        for (StringBuilder b : List.of(start, warm, rss, db, grow)) {
            lines.add(b.append(" |").toString());
        }
        for (Size s : all) {
            lines.add("- " + s.database + ": " + s.detail);
            s.failures.forEach((k, v) -> lines.add("- " + s.database + " FAILED " + k + ": " + v));
        }
        return lines;
    }
}
