package dev.cadre.platform.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;

/**
 * Retention on the embedded default (H2, batched deletes): removes exactly what is past its
 * retention and nothing it must keep — runs that have not ended, runs with a pending approval, runs
 * an open incident lists, current memory versions — with two instances running it at once; and
 * reports what it did in metrics and {@code GET /api/v1/stats/storage}.
 */
@PlatformTest
class RetentionTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    MeterRegistry registry;

    @LocalServerPort
    int port;

    @Test
    void removesWhatIsPastRetention_andKeepsWhatMustStay_withTwoInstancesAtOnce() throws Exception {
        RetentionScenario scenario = new RetentionScenario(context);
        scenario.seed();

        var passes = scenario.runTwoInstancesAtOnce();

        scenario.assertRemovedExactlyWhatItShould(passes);
        // H2 has no partitions: the events and spans went by batched deletes.
        assertThat(context.getBean(RetentionService.class).partitions().counts())
                .containsValues(0, 0);
    }

    @Test
    void metricsExistAtZero_andTheStorageViewDescribesEveryKind() {
        for (RetentionKind kind : RetentionKind.values()) {
            assertThat(registry.find("cadre.retention.rows.removed")
                            .tag("kind", kind.wire())
                            .counter())
                    .as(kind.wire())
                    .isNotNull();
            assertThat(registry.find("cadre.retention.bytes.removed")
                            .tag("kind", kind.wire())
                            .counter())
                    .isNotNull();
        }
        assertThat(registry.find("cadre.storage.partitions").gauges()).hasSize(2);
        assertThat(registry.find("cadre.storage.oldest.age").gauges()).hasSize(4);

        JsonNode view =
                new Api(port).get("/api/v1/stats/storage", Api.ADMIN_KEY).json();
        assertThat(view.path("interval").asString()).isEqualTo("PT1H");
        assertThat(view.path("kinds").findValuesAsString("kind"))
                .containsExactly("runs", "events", "spans", "audit", "memory_history");
        assertThat(view.path("kinds").get(0).path("keep").asString()).isEqualTo("P90D");
        assertThat(view.path("kinds").get(4).path("keep").asString()).isEqualTo("last 20 versions + P7D");
    }

    @Test
    void rollupRowsOlderThanTheLongestStatisticsWindowGo_theAllTimeOutcomesAndTheBackfillMarkStay() {
        JdbcClient jdbc = context.getBean(JdbcClient.class);
        String agent = "rollup-trim-test";
        Instant hour = Instant.now().truncatedTo(ChronoUnit.HOURS);
        // 744 h back is the oldest hour a statistics window reads (one more is kept); 747 h is past both.
        Timestamp outside = Timestamp.from(hour.minus(Duration.ofHours(747)));
        Timestamp inside = Timestamp.from(hour.minus(Duration.ofHours(744)));
        Timestamp epoch = Timestamp.from(Instant.EPOCH);
        try {
            for (Timestamp at : List.of(outside, inside, epoch)) {
                jdbc.sql("INSERT INTO cadre_run_rollup (bucket_hour, agent, status, failure_category, runs)"
                                + " VALUES (?, ?, 'completed', '', 3)")
                        .params(at, agent)
                        .update();
                jdbc.sql("INSERT INTO cadre_model_rollup (bucket_hour, agent, model, calls) VALUES (?, ?, 'm', 4)")
                        .params(at, agent)
                        .update();
            }
            for (Timestamp at : List.of(outside, inside)) {
                jdbc.sql("INSERT INTO cadre_delegation_rollup (bucket_hour, agent, made) VALUES (?, ?, 2)")
                        .params(at, agent)
                        .update();
                jdbc.sql("INSERT INTO cadre_run_duration_rollup (bucket_hour, bucket, runs) VALUES (?, 9999, 1)")
                        .param(at)
                        .update();
            }
            jdbc.sql("INSERT INTO cadre_agent_outcome (agent, runs, completed) VALUES (?, 7, 7)")
                    .param(agent)
                    .update();

            RetentionService.Pass pass = new RetentionScenario(context)
                    .instance("rollups", Clock.systemUTC())
                    .runOnce();

            assertThat(pass.failures()).isEmpty();
            assertThat(pass.of(RetentionKind.ROLLUPS).rows()).isGreaterThanOrEqualTo(4);
            // The 1970 rows stand for V8's backfill markers (only these two tables have one).
            for (String table : List.of("cadre_run_rollup", "cadre_model_rollup")) {
                assertThat(jdbc.sql("SELECT bucket_hour FROM " + table + " WHERE agent = ? ORDER BY bucket_hour")
                                .param(agent)
                                .query(Timestamp.class)
                                .list())
                        .as(table)
                        .containsExactly(epoch, inside);
            }
            assertThat(jdbc.sql("SELECT bucket_hour FROM cadre_delegation_rollup WHERE agent = ?")
                            .param(agent)
                            .query(Timestamp.class)
                            .list())
                    .containsExactly(inside);
            assertThat(jdbc.sql("SELECT bucket_hour FROM cadre_run_duration_rollup WHERE bucket = 9999")
                            .query(Timestamp.class)
                            .list())
                    .containsExactly(inside);
            assertThat(jdbc.sql("SELECT runs FROM cadre_agent_outcome WHERE agent = ?")
                            .param(agent)
                            .query(Long.class)
                            .single())
                    .isEqualTo(7);
        } finally {
            for (String table : List.of(
                    "cadre_run_rollup", "cadre_delegation_rollup", "cadre_model_rollup", "cadre_agent_outcome")) {
                jdbc.sql("DELETE FROM " + table + " WHERE agent = ?")
                        .param(agent)
                        .update();
            }
            jdbc.sql("DELETE FROM cadre_run_duration_rollup WHERE bucket = 9999")
                    .update();
        }
    }

    /**
     * An incident's timeline goes once it has been resolved longer than cadre.retention.incident-events
     * (P365D), or once its record is gone; an active one, or one resolved since, keeps all of it. Delivery
     * keys older than the duplicate window go, except those of incidents resolved within that retention.
     */
    @Test
    void incidentTimelinesOfLongResolvedIncidentsGo_deliveriesOlderThanTheDuplicateWindowGo() {
        JdbcClient jdbc = context.getBean(JdbcClient.class);
        IncidentService incidents = context.getBean(IncidentService.class);
        SharedMemory memory = context.getBean(SharedMemory.class);
        Writer writer = Writer.apiClient("retention-test");
        String tag = UUID.randomUUID().toString().substring(0, 8);
        Instant now = Instant.now();
        String active = incidents
                .open(
                        new IncidentService.OpenRequest(
                                "retention-" + tag, "disk full " + tag, "critical", "test", Map.of(), "s", null),
                        writer,
                        null)
                .incident()
                .id();
        String longResolved = resolvedIncident(memory, writer, "inc-old" + tag, now.minus(Duration.ofDays(400)));
        String lateResolved = resolvedIncident(memory, writer, "inc-new" + tag, now.minus(Duration.ofDays(10)));
        String gone = "inc-gone" + tag;
        Instant old = now.minus(Duration.ofDays(401));
        for (String id : List.of(active, longResolved, lateResolved, gone)) {
            jdbc.sql("INSERT INTO cadre_incident_event (incident_id, at, kind, actor, text) VALUES (?, ?, 'COMMENTED',"
                            + " 'test', 'an old comment')")
                    .params(id, Timestamp.from(old))
                    .update();
        }
        for (String id : List.of(active, longResolved, lateResolved)) {
            delivery(jdbc, id, "old", now.minus(Duration.ofHours(1)));
        }
        delivery(jdbc, active, "fresh", now.plus(Duration.ofMinutes(5)));

        RetentionService.Pass pass = new RetentionScenario(context)
                .instance("incidents", Clock.systemUTC())
                .runOnce();

        assertThat(pass.failures()).isEmpty();
        assertThat(pass.of(RetentionKind.INCIDENT_EVENTS).rows()).isGreaterThanOrEqualTo(2);
        assertThat(pass.of(RetentionKind.INCIDENT_DELIVERIES).rows()).isGreaterThanOrEqualTo(2);
        Map<String, Long> events = Map.of(
                active, count(jdbc, "cadre_incident_event", active),
                longResolved, count(jdbc, "cadre_incident_event", longResolved),
                lateResolved, count(jdbc, "cadre_incident_event", lateResolved),
                gone, count(jdbc, "cadre_incident_event", gone));
        // The active incident keeps its old comment and its opening; the one resolved 10 days ago its comment.
        assertThat(events)
                .containsExactlyInAnyOrderEntriesOf(Map.of(active, 2L, longResolved, 0L, lateResolved, 1L, gone, 0L));
        assertThat(jdbc.sql("SELECT incident_id || '/' || delivery_key FROM cadre_incident_delivery"
                                + " WHERE incident_id IN (?, ?, ?)")
                        .params(active, longResolved, lateResolved)
                        .query(String.class)
                        .list())
                .containsExactlyInAnyOrder(active + "/fresh", lateResolved + "/old");
    }

    private static String resolvedIncident(SharedMemory memory, Writer writer, String id, Instant resolvedAt) {
        String value = "{\"id\":\"" + id + "\",\"status\":\"resolved\",\"title\":\"an old incident\","
                + "\"openedAt\":\"" + resolvedAt.minus(Duration.ofHours(1)) + "\",\"resolvedAt\":\"" + resolvedAt
                + "\"}";
        assertThat(memory.put(IncidentService.NAMESPACE, id, value, 0, writer))
                .isInstanceOf(dev.cadre.memory.WriteOutcome.Written.class);
        return id;
    }

    private static void delivery(JdbcClient jdbc, String incidentId, String key, Instant countedAt) {
        jdbc.sql("INSERT INTO cadre_incident_delivery (incident_id, delivery_key, counted_at) VALUES (?, ?, ?)")
                .params(incidentId, key, Timestamp.from(countedAt))
                .update();
    }

    private static long count(JdbcClient jdbc, String table, String incidentId) {
        return jdbc.sql("SELECT COUNT(*) FROM " + table + " WHERE incident_id = ?")
                .param(incidentId)
                .query(Long.class)
                .single();
    }
}
