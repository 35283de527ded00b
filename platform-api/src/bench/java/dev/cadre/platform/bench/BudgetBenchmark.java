package dev.cadre.platform.bench;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.retention.RetentionService;
import dev.cadre.platform.retention.RunHistoryClones;
import dev.cadre.platform.support.Api;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.util.unit.DataSize;

/**
 * The storage-budget benchmark of docs/benchmarks.md ("Storage budget", issue #18); not a test.
 * The platform on PostgreSQL with a small budget and retention running often, while runs keep
 * arriving: copies of real runs of the shipped ops team (with their events and spans) at a fixed
 * rate, plus a real run through the API every few seconds. It samples the run history on disk
 * (what the budget covers) and the whole schema every 2 s and reports, after the warm-up (the
 * first time the budget is exceeded plus a minute), the median, minimum and maximum of used /
 * budget.
 *
 * <p>Run: {@code ./mvnw -B -pl platform-api -am -Dbench=platform-api
 * -Dbench.main=dev.cadre.platform.bench.BudgetBenchmark verify}, with {@code
 * CADRE_TEST_POSTGRES_URL} pointing at a database it may create a schema in. Arguments ({@code
 * -Dbench.args="..."}): {@code --budget=200MB}, {@code --rate=10} (runs per second), {@code
 * --interval=PT10S} (retention), {@code --minutes=15} (arrivals in all), {@code --seeds=10}.
 */
public final class BudgetBenchmark {

    private static final String AGENT = "ops-orchestrator";

    private record Sample(double seconds, long used, long schema, long runs) {}

    public static void main(String[] args) throws Exception {
        List<String> options = Arrays.asList(args);
        long budget = DataSize.parse(option(options, "budget", "200MB")).toBytes();
        int rate = Integer.parseInt(option(options, "rate", "10"));
        String interval = option(options, "interval", "PT10S");
        double minutes = Double.parseDouble(option(options, "minutes", "15"));
        int seedCount = Integer.parseInt(option(options, "seeds", "10"));

        ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("budget_bench");
        System.out.println("budget benchmark on schema " + pg.schema() + " - " + Instant.now() + ", budget "
                + option(options, "budget", "200MB") + ", " + rate + " runs/s, retention every " + interval
                + ", load average " + Measure.loadAverage());
        ConfigurableApplicationContext context = new SpringApplicationBuilder(CadreApplication.class)
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=" + pg.jdbcUrl(),
                        "--spring.datasource.username=" + pg.user(),
                        "--spring.datasource.password=" + pg.password(),
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.approvals.separation-of-duties=false",
                        "--cadre.retention.budget=" + option(options, "budget", "200MB"),
                        "--cadre.retention.interval=" + interval,
                        "--cadre.retention.initial-delay=PT5S",
                        "--logging.level.root=WARN",
                        "--logging.level.dev.cadre=WARN");
        AtomicBoolean stop = new AtomicBoolean();
        try {
            int port = ((WebServerApplicationContext) context).getWebServer().getPort();
            Http http = new Http("http://127.0.0.1:" + port, Api.ADMIN_KEY);
            JdbcClient jdbc = context.getBean(JdbcClient.class);
            RetentionService retention = context.getBean(RetentionService.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);

            List<String> seeds = seed(http, seedCount);
            RunHistoryClones clones = new RunHistoryClones(jdbc, seeds);
            long t0 = System.nanoTime();
            long end = t0 + (long) (minutes * 60e9);
            AtomicLong arrived = new AtomicLong();
            AtomicLong real = new AtomicLong();
            AtomicLong approved = new AtomicLong();
            // Copies: `rate` runs a second, in ticks of one second (seeds × copies per tick).
            Thread copies = Thread.ofPlatform().start(() -> {
                int perTick = Math.max(1, rate / seeds.size());
                long next = System.nanoTime();
                while (!stop.get() && System.nanoTime() < end) {
                    arrived.addAndGet(clones.arrive(perTick, Instant.now()).size());
                    next += 1_000_000_000L;
                    long sleep = (next - System.nanoTime()) / 1_000_000;
                    if (sleep > 0) {
                        try {
                            Thread.sleep(sleep);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
            });
            // Real runs through the platform meanwhile: live ones must never be removed.
            Thread realRuns = Thread.ofPlatform().start(() -> {
                int i = 0;
                while (!stop.get() && System.nanoTime() < end) {
                    try {
                        var r = http.post(
                                "/api/v1/runs",
                                Http.JSON.writeValueAsString(
                                        Map.of("agent", AGENT, "input", "check host web-" + (i++ % 7))));
                        if (r.status() == 202) {
                            real.incrementAndGet();
                        }
                        // The on-call operator: repeated sightings escalate to the repairer, whose
                        // runbook waits for a human. Unanswered, those runs wait for ever and must be
                        // kept, so the history would grow past any budget with runs retention may not
                        // touch; answered, they end like the rest, as in service.
                        approved.addAndGet(approvePending(http));
                        Thread.sleep(3000);
                    } catch (Exception e) {
                        return;
                    }
                }
            });
            List<Sample> samples = new ArrayList<>();
            double firstOver = -1;
            while (System.nanoTime() < end) {
                double s = (System.nanoTime() - t0) / 1e9;
                long used = retention.usedBytes().orElseThrow();
                long schema = jdbc.sql("SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
                                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"
                                + " AND c.relkind IN ('r', 'm')")
                        .query(Long.class)
                        .single();
                long runs = jdbc.sql("SELECT COUNT(*) FROM cadre_run")
                        .query(Long.class)
                        .single();
                long waiting = jdbc.sql("SELECT COUNT(*) FROM cadre_run WHERE status NOT IN ('completed', 'failed',"
                                + " 'canceled', 'rejected')")
                        .query(Long.class)
                        .single();
                samples.add(new Sample(s, used, schema, runs));
                if (firstOver < 0 && used > budget) {
                    firstOver = s;
                    System.out.println(
                            Measure.fmt("budget first exceeded after %.0f s (%d runs arrived)", s, arrived.get()));
                }
                if (samples.size() % 15 == 0) {
                    System.out.println(Measure.fmt(
                            "%5.0f s: run history %.1f MB (%.3f of the budget), schema %.1f MB, %d runs stored (%d not"
                                    + " ended), %d arrived",
                            s,
                            used / 1048576.0,
                            (double) used / budget,
                            schema / 1048576.0,
                            runs,
                            waiting,
                            arrived.get()));
                }
                Thread.sleep(2000);
            }
            stop.set(true);
            copies.join();
            realRuns.join();
            double warm = firstOver < 0 ? Double.MAX_VALUE : firstOver + 60;
            List<Sample> steady =
                    samples.stream().filter(x -> x.seconds() >= warm).toList();
            double removedRuns = registry.get("cadre.retention.rows.removed")
                    .tag("kind", "runs")
                    .tag("reason", "budget")
                    .counter()
                    .count();
            List<String> report = new ArrayList<>();
            report.add(Measure.fmt(
                    "budget %s, %d runs/s copied + a real run every 3 s (%d; %d approvals answered), retention every %s,"
                            + " %.0f min; load average %s",
                    option(options, "budget", "200MB"),
                    rate,
                    real.get(),
                    approved.get(),
                    interval,
                    minutes,
                    Measure.loadAverage()));
            report.add(Measure.fmt(
                    "arrived %d runs; budget first exceeded at %.0f s; the budget removed %.0f runs; %d samples after"
                            + " the warm-up",
                    arrived.get() + real.get(), firstOver, removedRuns, steady.size()));
            if (!steady.isEmpty()) {
                report.add("| after warm-up | median | min | max |");
                report.add("|---|---|---|---|");
                report.add(row("run history on disk / budget", steady, x -> (double) x.used() / budget));
                report.add(row("whole schema / budget", steady, x -> (double) x.schema() / budget));
                report.add(row("runs stored", steady, x -> (double) x.runs()));
            }
            report.forEach(System.out::println);
            Path out = Path.of("target", "bench").toAbsolutePath();
            Files.createDirectories(out);
            Files.write(out.resolve("budget-benchmark.md"), report);
            List<String> csv = new ArrayList<>(List.of("seconds,used_bytes,schema_bytes,runs"));
            samples.forEach(x -> csv.add(Measure.fmt("%.1f,%d,%d,%d", x.seconds(), x.used(), x.schema(), x.runs())));
            Files.write(out.resolve("budget-benchmark.csv"), csv);
        } finally {
            stop.set(true);
            context.close();
            if (!options.contains("--keep")) {
                pg.dropSchema();
            }
        }
    }

    private static String row(String what, List<Sample> steady, java.util.function.ToDoubleFunction<Sample> f) {
        double[] v = steady.stream().mapToDouble(f).sorted().toArray();
        double median = v[(v.length - 1) / 2];
        String fmt = what.startsWith("runs") ? "| %s | %.0f | %.0f | %.0f |" : "| %s | %.3f | %.3f | %.3f |";
        return Measure.fmt(fmt, what, median, v[0], v[v.length - 1]);
    }

    private static String option(List<String> options, String name, String fallback) {
        return options.stream()
                .filter(o -> o.startsWith("--" + name + "="))
                .findFirst()
                .map(o -> o.substring(name.length() + 3))
                .orElse(fallback);
    }

    /** Approves every pending approval (separation of duties is off here); returns how many. */
    private static int approvePending(Http http) throws Exception {
        int n = 0;
        for (var item :
                http.get("/api/v1/approvals?status=pending&limit=100").json().get("items")) {
            if (http.post("/api/v1/approvals/" + item.get("id").asString() + "/approve", "{}")
                            .status()
                    == 200) {
                n++;
            }
        }
        return n;
    }

    /** Real runs of the shipped ops team that ended: the templates of the copies. */
    private static List<String> seed(Http http, int n) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String input = (i % 2 == 0 ? "check host web-" : "cpu spike on web-") + i;
            var r = http.post("/api/v1/runs", Http.JSON.writeValueAsString(Map.of("agent", AGENT, "input", input)));
            if (r.status() != 202) {
                throw new IllegalStateException("submit failed: " + r.status() + " " + r.body());
            }
            ids.add(r.json().get("id").asString());
        }
        List<String> ended = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        for (String id : ids) {
            while (true) {
                String status =
                        http.get("/api/v1/runs/" + id).json().get("status").asString();
                if (status.equals("completed") || status.equals("failed")) {
                    ended.add(id);
                    break;
                }
                if (List.of("canceled", "rejected").contains(status) || System.nanoTime() > deadline) {
                    break;
                }
                Thread.sleep(50);
            }
        }
        Thread.sleep(3000); // the last spans reach the trace store in batches
        if (ended.isEmpty()) {
            throw new IllegalStateException("no seed run ended");
        }
        System.out.println(ended.size() + " seed runs ended");
        return ended;
    }
}
