package dev.cadre.platform.integrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Five copies of one Alertmanager notification delivered at once (an HA pair and its retries) to a
 * freshly started packaged platform, as its first deliveries: every copy is answered 200, and they
 * are one incident with one sighting and one triage run — on the embedded H2 default and on
 * PostgreSQL with Redis. (On the embedded default 2–3 of 5 copies used to be answered 500 after
 * H2's 10 s lock wait.)
 */
class ConcurrentCopiesIT {

    private static final Path OUT = Path.of("target", "concurrent-copies-it");
    private static final int COPIES = 5;

    @Test
    void fiveCopiesAtOnce_onAFreshEmbeddedPlatform_areAllAnswered200_asOneSighting() throws Exception {
        Path work = Files.createTempDirectory("cadre-copies-h2");
        try (PlatformProcess p = PlatformProcess.start(
                "copies-h2",
                PlatformProcess.freePort(),
                OUT,
                PlatformProcess.DEFAULT_JVM_OPTIONS,
                work,
                List.of("--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY))) {
            p.awaitHealthy(Duration.ofMinutes(8));
            deliverCopies(p);
        }
    }

    @Test
    void fiveCopiesAtOnce_onAFreshPostgresPlatform_areAllAnswered200_asOneSighting() throws Exception {
        ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("copies_it");
        ExternalServices.Redis redis = ExternalServices.redis();
        try (PlatformProcess p = PlatformProcess.start(
                "copies-pg",
                PlatformProcess.freePort(),
                OUT,
                List.of(
                        "--spring.datasource.url=" + pg.jdbcUrl(),
                        "--spring.datasource.username=" + pg.user(),
                        "--spring.datasource.password=" + pg.password(),
                        "--cadre.redis.url=" + redis.uri(),
                        "--cadre.redis.prefix=copies"
                                + UUID.randomUUID().toString().substring(0, 8),
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY))) {
            p.awaitHealthy(Duration.ofMinutes(8));
            deliverCopies(p);
        } finally {
            pg.dropSchema();
        }
    }

    private static void deliverCopies(PlatformProcess p) throws Exception {
        Api api = p.api();
        String fp = "copies" + UUID.randomUUID().toString().substring(0, 8);
        String body = """
                {"version":"4","status":"firing","receiver":"cadre","groupLabels":{"alertname":"HostHighCpu"},
                 "commonLabels":{},"commonAnnotations":{},"externalURL":"http://alertmanager:9093",
                 "alerts":[{"status":"firing",
                   "labels":{"alertname":"HostHighCpu","instance":"web-1:9100","severity":"critical"},
                   "annotations":{"summary":"CPU above 90 percent for 5 minutes"},
                   "startsAt":"2026-05-08T03:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"%s"}]}
                """.formatted(fp);
        List<Api.Response> answers = new ArrayList<>();
        try (ExecutorService senders = Executors.newFixedThreadPool(COPIES)) {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Api.Response>> sent = new ArrayList<>();
            for (int i = 0; i < COPIES; i++) {
                sent.add(senders.submit(() -> {
                    go.await();
                    return api.post("/api/v1/integrations/alertmanager", Api.ADMIN_KEY, body);
                }));
            }
            go.countDown();
            for (Future<Api.Response> f : sent) {
                answers.add(f.get());
            }
        }
        for (Api.Response r : answers) {
            assertThat(r.status()).as(r.body() + "\n" + p.logTail(40)).isEqualTo(200);
        }
        List<String> actions = answers.stream()
                .map(r -> r.json().get("alerts").get(0).get("action").asString())
                .sorted()
                .toList();
        assertThat(actions).containsExactly("duplicate", "duplicate", "duplicate", "duplicate", "incident-opened");
        assertThat(answers.stream()
                        .map(r -> r.json().get("alerts").get(0).get("incident").asString())
                        .distinct())
                .hasSize(1);
        // One sighting: no copy counted another (each answer tells the count it saw or wrote).
        assertThat(answers.stream()
                        .map(r ->
                                r.json().get("alerts").get(0).get("occurrences").asInt()))
                .containsOnly(1);
    }
}
