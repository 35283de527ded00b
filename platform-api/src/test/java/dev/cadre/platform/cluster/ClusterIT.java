package dev.cadre.platform.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two real platform processes (the packaged jar) share PostgreSQL and Redis; 200 runs are
 * submitted across both and one process is killed with {@code kill -9} while they execute. Every
 * run must end completed exactly once, no side effect may be doubled, none may be lost, and a
 * client following a run of the dead instance on the survivor sees it to the end. Timings go to
 * {@code target/cluster-it/timings.txt}.
 */
class ClusterIT {

    private static final int RUNS = 200;
    private static final Path OUT = Path.of("target", "cluster-it");

    private final ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("cluster_it");
    private final ExternalServices.Redis redis = ExternalServices.redis();
    private final String prefix = "cit" + UUID.randomUUID().toString().substring(0, 8);
    private final List<PlatformProcess> processes = new ArrayList<>();

    @AfterEach
    void tearDown() {
        processes.forEach(PlatformProcess::destroy);
        pg.dropSchema();
    }

    @Test
    void killingAnInstanceMidway_losesNoRun_doublesNoSideEffect_andFollowersSeeTheEnd() throws Exception {
        Files.createDirectories(OUT);
        Path agents = OUT.resolve("cluster-agents.yaml");
        Files.writeString(agents, """
                agents:
                  - name: cluster-worker
                    description: Records that a job ran (once) in shared memory, then reports. Cluster test agent.
                    model: scripted:default
                    tools: [memory_put]
                    memory: [effects]
                    budget: {maxIterations: 4, maxTokens: 20000, timeout: 2m}
                scripts:
                  cluster-worker:
                    latencyMillis: 400
                    turns:
                      - toolCalls:
                          - name: memory_put
                            arguments: {namespace: effects, key: "{{input}}", value: {done: true}, expectedVersion: 0}
                      - text: "done {{input}}"
                """);
        long t0 = System.nanoTime();
        PlatformProcess a = start("a", agents);
        PlatformProcess b = start("b", agents);
        Api apiA = a.api();
        Api apiB = b.api();
        a.awaitHealthy(Duration.ofSeconds(300));
        b.awaitHealthy(Duration.ofSeconds(300));
        long started = System.nanoTime();

        // Submit from a client thread while instance a is killed midway: a's share then goes to b.
        Map<String, String> inputOf = new java.util.concurrent.ConcurrentHashMap<>();
        List<String> submittedToA = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean aDead = new java.util.concurrent.atomic.AtomicBoolean();
        CompletableFuture<Long> submitting = CompletableFuture.supplyAsync(() -> {
            for (int i = 0; i < RUNS; i++) {
                boolean toA = i % 2 == 0 && !aDead.get();
                String input = "job-" + i;
                String body = Api.json(Map.of("agent", "cluster-worker", "input", input));
                // A client retrying on the other instance after a failed connection sends the same
                // Idempotency-Key: instance a may have stored the run before it died unanswered.
                Map<String, String> once = Map.of("Idempotency-Key", prefix + "-" + input);
                Api.Response r;
                try {
                    r = (toA ? apiA : apiB).send("POST", "/api/v1/runs", Api.ADMIN_KEY, body, once);
                } catch (IllegalStateException refused) {
                    toA = false;
                    r = apiB.send("POST", "/api/v1/runs", Api.ADMIN_KEY, body, once);
                }
                assertThat(r.status()).as(r.body()).isEqualTo(202);
                String id = r.json().get("id").asString();
                inputOf.put(id, input);
                if (toA) {
                    submittedToA.add(id);
                }
            }
            return System.nanoTime();
        });

        // Kill a while runs are in flight: after the first completions, long before the last.
        waitUntil(
                Duration.ofSeconds(120),
                () -> countStatus("completed") >= 20 && !submittedToA.isEmpty(),
                this::unfinishedRuns);
        String followed = pickUnfinished(submittedToA);
        aDead.set(true);
        a.kill();
        long killed = System.nanoTime();
        long completedAtKill = countStatus("completed");
        long submitted = submitting.get(120, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(inputOf).hasSize(RUNS);

        // A client follows one of A's unfinished runs on the survivor, to its end.
        CompletableFuture<String> stream = CompletableFuture.supplyAsync(() ->
                apiB.get("/api/v1/runs/" + followed + "/events", Api.ADMIN_KEY).body());

        waitUntil(Duration.ofSeconds(180), () -> countUnfinished() == 0, this::unfinishedRuns);
        long done = System.nanoTime();

        assertThat(countStatus("completed")).as("every run completed").isEqualTo(RUNS);
        assertThat(countAll()).as("one run per job, retries included").isEqualTo(RUNS);
        try (Connection c = pg.connect()) {
            // Exactly one outcome per run, and each run's single side effect happened exactly once.
            for (Map.Entry<String, String> run : inputOf.entrySet()) {
                long versions = scalar(
                        c,
                        "SELECT COUNT(*) FROM cadre_memory_history WHERE namespace = 'effects' AND entry_key = '"
                                + run.getValue() + "'");
                assertThat(versions).as("side effect of " + run.getKey()).isEqualTo(1);
            }
            long finishedOnce = scalar(c, "SELECT COUNT(*) FROM cadre_run WHERE finished_at IS NOT NULL");
            assertThat(finishedOnce).isEqualTo(RUNS);
        }
        String events = stream.get(Duration.ofSeconds(60).toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        assertThat(events).contains("event:done");

        long resumed;
        try (Connection c = pg.connect()) {
            resumed = scalar(c, "SELECT COUNT(*) FROM cadre_run WHERE resume_count > 0");
        }
        String timings = String.format(
                """
                cluster IT: %d runs over 2 instances, kill -9 of one midway
                  both instances healthy after  %6.1f s
                  killed instance a after        %6.2f s (%d runs completed by then)
                  %d runs submitted in           %6.2f s
                  all runs ended                 %6.2f s after the kill
                  runs resumed by the survivor   %d
                  total from first submit        %6.2f s
                """,
                RUNS,
                (started - t0) / 1e9,
                (killed - started) / 1e9,
                completedAtKill,
                RUNS,
                (submitted - started) / 1e9,
                (done - killed) / 1e9,
                resumed,
                (done - started) / 1e9);
        Files.writeString(OUT.resolve("timings.txt"), timings);
        System.out.println(timings);
    }

    private PlatformProcess start(String name, Path agents) throws IOException {
        PlatformProcess p = PlatformProcess.start(
                name,
                PlatformProcess.freePort(),
                OUT,
                List.of(
                        "--spring.datasource.url=" + pg.jdbcUrl(),
                        "--spring.datasource.username=" + pg.user(),
                        "--spring.datasource.password=" + pg.password(),
                        "--cadre.redis.url=" + redis.uri(),
                        "--cadre.redis.prefix=" + prefix,
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.agents.locations=file:" + agents.toAbsolutePath(),
                        "--cadre.runs.lease-ttl=PT3S",
                        "--cadre.runs.heartbeat-interval=PT1S",
                        "--cadre.runs.sweep-interval=PT1S",
                        "--cadre.runs.max-concurrent=32"));
        processes.add(p);
        return p;
    }

    private String pickUnfinished(List<String> ids) throws Exception {
        try (Connection c = pg.connect()) {
            for (String id : ids) {
                try (ResultSet rs =
                        c.createStatement().executeQuery("SELECT status FROM cadre_run WHERE id = '" + id + "'")) {
                    if (rs.next() && !rs.getString(1).matches("completed|failed|canceled|rejected")) {
                        return id;
                    }
                }
            }
        }
        throw new AssertionError("instance a had no unfinished run left to follow");
    }

    /** Every run not yet ended with its lease state, and the tail of each instance's log. */
    private String unfinishedRuns() {
        StringBuilder out = new StringBuilder("runs by status:");
        try (Connection c = pg.connect();
                ResultSet rs = c.createStatement()
                        .executeQuery("SELECT status, COUNT(*) FROM cadre_run GROUP BY status ORDER BY status")) {
            while (rs.next()) {
                out.append(' ').append(rs.getString(1)).append('=').append(rs.getLong(2));
            }
        } catch (Exception e) {
            out.append(" (could not count: ").append(e).append(')');
        }
        out.append("\nruns not ended (id status owner lease_version lease_until resume_count updated_at):\n");
        try (Connection c = pg.connect();
                ResultSet rs = c.createStatement()
                        .executeQuery(
                                "SELECT id, status, owner, lease_version, lease_until, resume_count,"
                                        + " updated_at FROM cadre_run WHERE finished_at IS NULL ORDER BY created_at LIMIT 40")) {
            while (rs.next()) {
                for (int i = 1; i <= 7; i++) {
                    out.append(rs.getString(i)).append(i < 7 ? " " : "\n");
                }
            }
        } catch (Exception e) {
            out.append("(could not read runs: ").append(e).append(")\n");
        }
        for (PlatformProcess p : processes) {
            out.append("--- last lines of instance ").append(p.name()).append(" ---\n");
            out.append(p.logTail(30)).append('\n');
        }
        return out.toString();
    }

    private long countUnfinished() {
        try (Connection c = pg.connect()) {
            return scalar(c, "SELECT COUNT(*) FROM cadre_run WHERE finished_at IS NULL");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private long countAll() {
        try (Connection c = pg.connect()) {
            return scalar(c, "SELECT COUNT(*) FROM cadre_run");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private long countStatus(String status) {
        try (Connection c = pg.connect()) {
            return scalar(c, "SELECT COUNT(*) FROM cadre_run WHERE status = '" + status + "'");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static long scalar(Connection c, String sql) throws Exception {
        try (ResultSet rs = c.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    /** Waits for {@code condition}; on timeout the failure carries {@code diagnosis} so CI shows why. */
    private static void waitUntil(Duration max, Condition condition, java.util.function.Supplier<String> diagnosis)
            throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached within " + max + "\n" + diagnosis.get());
            }
            Thread.sleep(100);
        }
    }
}
