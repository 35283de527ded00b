package dev.cadre.platform.bench;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
import dev.cadre.platform.web.PageCursor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The growth benchmark of docs/benchmarks.md ("History growth", issue #18); not a test. It grows
 * the history of a PostgreSQL schema by cloning real runs of the shipped ops team, with their
 * events and spans, spread over the last 30 days, and measures at each size the p50/p95 latency
 * of the console's and API's read endpoints, submit-to-completed, start-up time and RSS of the
 * packaged platform.
 *
 * <p>Run: {@code ./mvnw -B -pl platform-api -am -Dbench=platform-api
 * -Dbench.main=dev.cadre.platform.bench.GrowthBenchmark verify} (or {@code -Pbench-growth}), with
 * {@code CADRE_TEST_POSTGRES_URL} pointing at a database it may create a schema in. Arguments
 * ({@code -Dbench.args="..."}): {@code --sizes=10000,100000} (runs; add 1000000 for the 1M row,
 * hours on a small machine), {@code --requests=N} per endpoint (default 40), {@code --keep}
 * (keep the schema for EXPLAIN), {@code --schema=NAME} (only measure a schema kept earlier).
 */
public final class GrowthBenchmark {

    private static final String AGENT = "ops-orchestrator";
    private static final int SEEDS = 50;
    private static final Duration SPREAD = Duration.ofDays(30);

    private record Endpoint(String name, String path) {}

    private record Figures(long runs, Map<String, double[]> latencies, double startSeconds, long rssKb) {}

    public static void main(String[] args) throws Exception {
        List<String> options = Arrays.asList(args);
        List<Long> sizes = options.stream()
                .filter(o -> o.startsWith("--sizes="))
                .findFirst()
                .map(o -> Arrays.stream(o.substring(8).split(","))
                        .map(Long::parseLong)
                        .toList())
                .orElse(List.of(10_000L, 100_000L));
        int requests = options.stream()
                .filter(o -> o.startsWith("--requests="))
                .findFirst()
                .map(o -> Integer.parseInt(o.substring(11)))
                .orElse(40);
        boolean keep = options.contains("--keep");

        Path out = Path.of("target", "bench").toAbsolutePath();
        Files.createDirectories(out);
        String existing = options.stream()
                .filter(o -> o.startsWith("--schema="))
                .findFirst()
                .map(o -> o.substring(9))
                .orElse(null);
        ExternalServices.Postgres base = ExternalServices.postgres();
        ExternalServices.Postgres pg = existing == null
                ? base.freshSchema("growth")
                : new ExternalServices.Postgres(
                        base.jdbcUrl() + (base.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + existing,
                        base.user(),
                        base.password(),
                        existing);
        System.out.println("growth benchmark on schema " + pg.schema() + " - " + Instant.now() + ", load average "
                + Measure.loadAverage());
        List<String> platformArgs = List.of(
                "--spring.datasource.url=" + pg.jdbcUrl(),
                "--spring.datasource.username=" + pg.user(),
                "--spring.datasource.password=" + pg.password(),
                "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                "--logging.level.root=WARN",
                "--logging.level.dev.cadre=WARN");
        List<Figures> figures = new ArrayList<>();
        if (existing != null) {
            // Measure a schema an earlier run kept (--keep), as it is.
            long runs;
            try (Connection c = pg.connect()) {
                c.createStatement().execute("SET search_path TO " + existing);
                runs = count(c);
            }
            PlatformProcess p = start(out, platformArgs);
            figures.add(measure(p, out, platformArgs, requests, runs, pg));
            report(figures).forEach(System.out::println);
            return;
        }
        try {
            List<String> seeds;
            PlatformProcess p = start(out, platformArgs);
            try {
                seeds = seed(new Http(p.base(), Api.ADMIN_KEY));
                figures.add(measure(p, out, platformArgs, requests, -1, pg));
            } finally {
                p.close();
            }
            try (Connection c = pg.connect()) {
                c.createStatement().execute("SET search_path TO " + pg.schema());
                long have = count(c);
                for (long size : sizes) {
                    long t0 = System.nanoTime();
                    grow(c, seeds, have, size);
                    have = count(c);
                    System.out.println(Measure.fmt(
                            "grew to %d runs in %.0f s (%s)", have, (System.nanoTime() - t0) / 1e9, sizes(c)));
                    // Rollups of the clones: as after an upgrade, the next start builds them once.
                    resetRollups(c);
                    long b0 = System.nanoTime();
                    start(out, platformArgs).close();
                    System.out.println(Measure.fmt(
                            "first start with the one-time rollup build: %.1f s", (System.nanoTime() - b0) / 1e9));
                    p = start(out, platformArgs);
                    try {
                        figures.add(measure(p, out, platformArgs, requests, have, pg));
                    } finally {
                        p.close();
                    }
                }
            }
        } finally {
            if (!keep) {
                pg.dropSchema();
            }
        }
        List<String> report = report(figures);
        report.forEach(System.out::println);
        Files.write(out.resolve("growth-benchmark.md"), report);
    }

    /**
     * The packaged jar with the shipped agents, the heap the shipped Kubernetes limits leave
     * (1536Mi container, ≈ 1.1 GB heap), waited for until healthy.
     */
    private static PlatformProcess start(Path out, List<String> args) throws Exception {
        PlatformProcess p = PlatformProcess.start(
                "growth", PlatformProcess.freePort(), out, List.of("-Xms1100m", "-Xmx1100m"), out, args);
        try {
            p.awaitHealthy(Duration.ofSeconds(600));
        } catch (AssertionError | InterruptedException e) {
            System.err.println(p.logTail(40));
            p.destroy();
            throw e;
        }
        return p;
    }

    /** Real runs of the shipped ops team, all ended: what the history is cloned from. */
    private static List<String> seed(Http http) throws Exception {
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
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        List<String> ended = new ArrayList<>();
        for (String id : ids) {
            while (true) {
                String status =
                        http.get("/api/v1/runs/" + id).json().get("status").asString();
                if (List.of("completed", "failed", "canceled", "rejected").contains(status)) {
                    ended.add(id);
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
        System.out.println(ended.size() + " seed runs ended");
        return ended;
    }

    private static long count(Connection c) throws Exception {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM cadre_run")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String sizes(Connection c) throws Exception {
        try (ResultSet rs = c.createStatement()
                .executeQuery("SELECT pg_size_pretty(pg_total_relation_size('cadre_run')),"
                        + " pg_size_pretty(pg_total_relation_size('cadre_run_event')),"
                        + " pg_size_pretty(pg_total_relation_size('cadre_span'))")) {
            rs.next();
            return "runs " + rs.getString(1) + ", events " + rs.getString(2) + ", spans " + rs.getString(3);
        }
    }

    /**
     * Clones the seed runs (with events and spans) until the table holds {@code target} runs; copy
     * k is shifted back by k·(30 days / copies), so the history spreads evenly over 30 days. Ids and
     * trace ids are md5s of the original and the copy number (unique, stable).
     */
    private static void grow(Connection c, List<String> seeds, long have, long target) throws Exception {
        long copies = Math.max(0, (target - have + seeds.size() - 1) / seeds.size());
        if (copies == 0) {
            return;
        }
        // Copies numbered from the current size on, so a later growth step adds new ones.
        long first = have / seeds.size() + 1;
        long last = first + copies - 1;
        long totalCopies = target / seeds.size();
        double stepSeconds = (double) SPREAD.toSeconds() / Math.max(1, totalCopies);
        c.setAutoCommit(false);
        String seedList =
                String.join(",", seeds.stream().map(s -> "'" + s + "'").toList());
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TEMP TABLE IF NOT EXISTS growth_seed AS SELECT * FROM cadre_run WHERE false");
            st.execute("TRUNCATE growth_seed");
            st.execute("INSERT INTO growth_seed SELECT * FROM cadre_run WHERE id IN (" + seedList + ")");
            long batch = Math.max(1, 5000 / seeds.size());
            for (long from = first; from <= last; from += batch) {
                long to = Math.min(last, from + batch - 1);
                String copy = "generate_series(" + from + ", " + to + ") AS k";
                String shift = "(k * " + stepSeconds + ") * interval '1 second'";
                st.execute("INSERT INTO cadre_run (id, agent, input, context, status, result, failure_category,"
                        + " failure_code, failure_message, subagents, tools_called, input_tokens, output_tokens,"
                        + " iterations, submitted_by, idempotency_key, request_hash, trace_id, checkpoint, checkpoint_at,"
                        + " resume_count, owner, lease_until, lease_version, created_at, started_at, finished_at,"
                        + " updated_at, version, trace_parent)"
                        + " SELECT md5(s.id || ':' || k)::uuid::text, agent, input, context, status, result,"
                        + " failure_category, failure_code, failure_message, subagents, tools_called, input_tokens,"
                        + " output_tokens, iterations, submitted_by, NULL, NULL,"
                        + " CASE WHEN trace_id IS NULL THEN NULL ELSE md5(trace_id || ':' || k) END, checkpoint,"
                        + " checkpoint_at - " + shift + ", resume_count, NULL, NULL, lease_version,"
                        + " created_at - " + shift + ", started_at - " + shift + ", finished_at - " + shift + ","
                        + " updated_at - " + shift + ", version, NULL"
                        + " FROM growth_seed s, " + copy);
                st.execute("INSERT INTO cadre_run_event (run_id, seq, session_id, parent_session_id, main_stream, type,"
                        + " data, at) SELECT md5(e.run_id || ':' || k)::uuid::text, seq, session_id, parent_session_id,"
                        + " main_stream, type, data, at - " + shift
                        + " FROM cadre_run_event e, " + copy + " WHERE e.run_id IN (" + seedList + ")");
                st.execute("INSERT INTO cadre_span (trace_id, span_id, parent_span_id, run_id, name, start_nanos,"
                        + " end_nanos, status, status_message, attributes) SELECT md5(trace_id || ':' || k), span_id,"
                        + " parent_span_id, md5(sp.run_id || ':' || k)::uuid::text, name,"
                        + " start_nanos - (k * " + (long) (stepSeconds * 1e9) + "), end_nanos - (k * "
                        + (long) (stepSeconds * 1e9) + "), status, status_message, attributes"
                        + " FROM cadre_span sp, " + copy + " WHERE sp.run_id IN (" + seedList + ")");
                c.commit();
            }
            c.setAutoCommit(true);
            st.execute("VACUUM ANALYZE cadre_run");
            st.execute("VACUUM ANALYZE cadre_run_event");
            st.execute("VACUUM ANALYZE cadre_span");
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Empties the rollups and puts back V8's markers, so the next start rebuilds them from all runs. */
    private static void resetRollups(Connection c) throws Exception {
        try (Statement st = c.createStatement()) {
            for (String t : List.of(
                    "cadre_run_rollup",
                    "cadre_run_duration_rollup",
                    "cadre_delegation_rollup",
                    "cadre_agent_outcome",
                    "cadre_model_rollup")) {
                st.execute("TRUNCATE " + t);
            }
            st.execute("INSERT INTO cadre_run_rollup (bucket_hour, agent, status, failure_category)"
                    + " VALUES (TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', '', 'backfill', '')");
            st.execute("INSERT INTO cadre_model_rollup (bucket_hour, agent, model)"
                    + " VALUES (TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', '', 'backfill')");
        }
    }

    private static Figures measure(
            PlatformProcess p, Path out, List<String> args, int requests, long runsHint, ExternalServices.Postgres pg)
            throws Exception {
        Http http = new Http(p.base(), Api.ADMIN_KEY);
        JsonPage first = page(http, "/api/v1/runs?limit=50");
        long runs = runsHint;
        if (runs < 0) {
            runs = first.items;
        }
        // A page deep in history: continue after the 95th-percentile-oldest run (keyset, no offset).
        String deepCursor = deepCursor(pg);
        String anId = first.firstId;
        List<Endpoint> endpoints = List.of(
                new Endpoint("GET /api/v1/runs first page", "/api/v1/runs"),
                new Endpoint("GET /api/v1/runs page near the oldest (cursor)", "/api/v1/runs?cursor=" + deepCursor),
                new Endpoint(
                        "GET /api/v1/runs?status=completed&agent=…", "/api/v1/runs?status=completed&agent=" + AGENT),
                new Endpoint("GET /api/v1/runs?q=disk", "/api/v1/runs?q=disk"),
                new Endpoint("GET /api/v1/stats/overview?hours=24", "/api/v1/stats/overview?hours=24"),
                new Endpoint("GET /api/v1/stats/overview?hours=744", "/api/v1/stats/overview?hours=744"),
                new Endpoint("GET /api/v1/stats/agents?hours=168", "/api/v1/stats/agents?hours=168"),
                new Endpoint("GET /api/v1/agents", "/api/v1/agents"),
                new Endpoint("GET /api/v1/runs/{id}", "/api/v1/runs/" + anId),
                new Endpoint("GET /api/v1/runs/{id}/trace", "/api/v1/runs/" + anId + "/trace"),
                new Endpoint("GET /api/v1/runs/{id}/events", "/api/v1/runs/" + anId + "/events?scope=all"));
        Map<String, double[]> latencies = new LinkedHashMap<>();
        for (Endpoint e : endpoints) {
            for (int i = 0; i < 5; i++) {
                check(http.get(e.path()), e);
            }
            double[] ms = new double[requests];
            for (int i = 0; i < requests; i++) {
                long t0 = System.nanoTime();
                check(http.get(e.path()), e);
                ms[i] = (System.nanoTime() - t0) / 1e6;
            }
            latencies.put(e.name(), percentiles(ms));
        }
        double[] submit = new double[10];
        for (int i = 0; i < submit.length; i++) {
            long t0 = System.nanoTime();
            String id = http.post(
                            "/api/v1/runs",
                            Http.JSON.writeValueAsString(Map.of("agent", AGENT, "input", "check host bench-" + i)))
                    .json()
                    .get("id")
                    .asString();
            while (!List.of("completed", "failed", "canceled", "rejected")
                    .contains(
                            http.get("/api/v1/runs/" + id).json().get("status").asString())) {
                Thread.sleep(5);
            }
            submit[i] = (System.nanoTime() - t0) / 1e6;
        }
        latencies.put("submit → completed", percentiles(submit));
        long rss = rssKb(p.pid());
        // Start-up: a fresh process on the same database, to healthy.
        p.close();
        long s0 = System.nanoTime();
        PlatformProcess again = start(out, args);
        double startSeconds = (System.nanoTime() - s0) / 1e9;
        long idleRss = rssKb(again.pid());
        again.close();
        System.out.println(Measure.fmt(
                "measured at %d runs: start %.1f s, RSS after the requests %d MB (idle after start %d MB)",
                runs, startSeconds, rss / 1024, idleRss / 1024));
        latencies.forEach(
                (k, v) -> System.out.println(Measure.fmt("  %-50s p50 %7.1f ms  p95 %7.1f ms", k, v[0], v[1])));
        return new Figures(runs, latencies, startSeconds, rss);
    }

    private record JsonPage(int items, String firstId) {}

    private static JsonPage page(Http http, String path) throws Exception {
        var j = http.get(path).json();
        return new JsonPage(
                j.get("items").size(), j.get("items").get(0).get("id").asString());
    }

    /**
     * The cursor after the run 95 % of the way to the oldest: what a client holds after paging that
     * deep (read from the table here, so the benchmark does not page through 100k runs first).
     */
    private static String deepCursor(ExternalServices.Postgres pg) throws Exception {
        try (Connection c = pg.connect();
                Statement st = c.createStatement()) {
            st.execute("SET search_path TO " + pg.schema());
            try (ResultSet rs = st.executeQuery("SELECT created_at, id FROM cadre_run ORDER BY created_at, id"
                    + " OFFSET (SELECT COUNT(*) / 20 FROM cadre_run) LIMIT 1")) {
                rs.next();
                return new PageCursor(rs.getTimestamp(1).toInstant(), rs.getString(2)).encode();
            }
        }
    }

    private static void check(Http.Response r, Endpoint e) {
        if (r.status() != 200) {
            throw new IllegalStateException(e.name() + " answered " + r.status() + ": " + r.body());
        }
    }

    private static double[] percentiles(double[] ms) {
        double[] sorted = ms.clone();
        Arrays.sort(sorted);
        return new double[] {
            sorted[(int) Math.ceil(0.50 * sorted.length) - 1], sorted[(int) Math.ceil(0.95 * sorted.length) - 1]
        };
    }

    private static long rssKb(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    private static List<String> report(List<Figures> figures) {
        List<String> lines = new ArrayList<>();
        StringBuilder head = new StringBuilder("| endpoint (p50 / p95 ms) |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Figures f : figures) {
            head.append(' ').append(f.runs()).append(" runs |");
            rule.append("---|");
        }
        lines.add(head.toString());
        lines.add(rule.toString());
        for (String endpoint : figures.getFirst().latencies().keySet()) {
            StringBuilder row = new StringBuilder("| `" + endpoint + "` |");
            for (Figures f : figures) {
                double[] v = f.latencies().get(endpoint);
                row.append(Measure.fmt(" %.0f / %.0f |", v[0], v[1]));
            }
            lines.add(row.toString());
        }
        StringBuilder start = new StringBuilder("| start-up to healthy (s) |");
        StringBuilder rss = new StringBuilder("| RSS after the requests (MB) |");
        for (Figures f : figures) {
            start.append(Measure.fmt(" %.1f |", f.startSeconds()));
            rss.append(Measure.fmt(" %d |", f.rssKb() / 1024));
        }
        lines.add(start.toString());
        lines.add(rss.toString());
        return lines;
    }
}
