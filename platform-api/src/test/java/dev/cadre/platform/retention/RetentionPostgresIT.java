package dev.cadre.platform.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.TestTools;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Retention on PostgreSQL, where run events and spans are partitioned by day (V10): the same
 * scenario as on H2 with two instances at once (what predates partitioning goes by batched
 * deletes), and whole daily partitions created ahead and dropped once past retention, the rows of
 * a run that must stay moved out first.
 */
class RetentionPostgresIT {

    private final ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("retention_it");
    private ConfigurableApplicationContext context;

    @BeforeEach
    void start() {
        context = new SpringApplicationBuilder(CadreApplication.class, TestTools.class)
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=" + pg.jdbcUrl(),
                        "--spring.datasource.username=" + pg.user(),
                        "--spring.datasource.password=" + pg.password(),
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.retention.enabled=false");
    }

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
        pg.dropSchema();
    }

    @Test
    void removesWhatIsPastRetention_andKeepsWhatMustStay_withTwoInstancesAtOnce() throws Exception {
        RetentionScenario scenario = new RetentionScenario(context);
        scenario.seed();

        var passes = scenario.runTwoInstancesAtOnce();

        scenario.assertRemovedExactlyWhatItShould(passes);
    }

    @Test
    void dailyPartitionsAreCreatedAhead_andDroppedWholeOncePastRetention() {
        RetentionScenario scenario = new RetentionScenario(context);
        JdbcClient jdbc = scenario.jdbc;
        Instant now = Instant.now();
        // After the migration: the history so far and the DEFAULT partition.
        assertThat(scenario.instance("x", Clock.systemUTC()).partitions().counts())
                .containsEntry("cadre_run_event", 2)
                .containsEntry("cadre_span", 2);

        RetentionService today = scenario.instance("a", Clock.systemUTC());
        assertThat(today.runOnce().ran()).isTrue();
        // Tomorrow and the two days after (today is covered by the partition of the history).
        assertThat(today.partitions().counts())
                .containsEntry("cadre_run_event", 5)
                .containsEntry("cadre_span", 5);
        String tomorrow =
                LocalDate.ofInstant(now, ZoneOffset.UTC).plusDays(1).toString().replace("-", "");
        assertThat(today.partitions().events().list())
                .extracting(p -> p.name())
                .contains("cadre_run_event_p" + tomorrow);

        // Two runs whose events and spans are written tomorrow: one ends, one is still working.
        Instant at = LocalDate.ofInstant(now, ZoneOffset.UTC)
                .plusDays(1)
                .atStartOfDay()
                .toInstant(ZoneOffset.UTC)
                .plus(Duration.ofHours(1));
        for (String id : new String[] {"run_part_done_" + scenario.tag, "run_part_live_" + scenario.tag}) {
            boolean live = id.contains("live");
            // The working run holds another instance's lease, so the recovery sweep leaves it be.
            jdbc.sql("INSERT INTO cadre_run (id, agent, input, status, submitted_by, created_at, updated_at, owner,"
                            + " lease_until) VALUES (?, 'triage', 'x', ?, 'test', ?, ?, ?, ?)")
                    .params(
                            id,
                            live ? "working" : "completed",
                            Timestamp.from(at),
                            Timestamp.from(at),
                            live ? "another-instance" : null,
                            live ? Timestamp.from(now.plus(Duration.ofDays(30))) : null)
                    .update();
            for (int seq = 1; seq <= 4; seq++) {
                jdbc.sql("INSERT INTO cadre_run_event (run_id, seq, session_id, main_stream, type, data, at)"
                                + " VALUES (?, ?, ?, TRUE, 'status', '{\"x\":1}', ?)")
                        .params(id, seq, id, Timestamp.from(at.plusSeconds(seq)))
                        .update();
            }
            long nanos = at.getEpochSecond() * 1_000_000_000L;
            jdbc.sql("INSERT INTO cadre_span (trace_id, span_id, run_id, name, start_nanos, end_nanos, status,"
                            + " attributes) VALUES (?, 's1', ?, 'invoke_agent triage', ?, ?, 'OK', '{}')")
                    .params(Integer.toHexString(id.hashCode()), id, nanos, nanos + 5)
                    .update();
        }
        jdbc.sql("ANALYZE cadre_run_event_p" + tomorrow).update();

        // Twenty days on, tomorrow's partition is past the 14 days of events and spans.
        Clock later = Clock.fixed(now.plus(Duration.ofDays(20)), ZoneOffset.UTC);
        RetentionService.Pass pass = scenario.instance("b", later).runOnce();

        assertThat(pass.failures()).isEmpty();
        assertThat(today.partitions().events().list())
                .extracting(p -> p.name())
                .doesNotContain("cadre_run_event_p" + tomorrow);
        assertThat(scenario.count("cadre_run_event", "run_part_done_" + scenario.tag))
                .isZero();
        assertThat(scenario.count("cadre_span", "run_part_done_" + scenario.tag))
                .isZero();
        // The working run's rows were moved out of the partition before it went.
        assertThat(scenario.count("cadre_run_event", "run_part_live_" + scenario.tag))
                .isEqualTo(4);
        assertThat(scenario.count("cadre_span", "run_part_live_" + scenario.tag))
                .isEqualTo(1);
        assertThat(pass.of(RetentionKind.EVENTS).rows()).isGreaterThanOrEqualTo(4);
        assertThat(pass.of(RetentionKind.EVENTS).bytes()).isPositive();
        // Partitions for the days around the (simulated) present were created ahead.
        String day20 = LocalDate.ofInstant(now.plus(Duration.ofDays(20)), ZoneOffset.UTC)
                .toString()
                .replace("-", "");
        assertThat(today.partitions().events().list()).extracting(p -> p.name()).contains("cadre_run_event_p" + day20);
        assertThat(Set.of("cadre_run_event", "cadre_span"))
                .allSatisfy(
                        t -> assertThat(jdbc.sql("SELECT COUNT(*) FROM pg_inherits WHERE inhparent = to_regclass(?)")
                                        .param(t)
                                        .query(Long.class)
                                        .single())
                                .isGreaterThan(3));
    }

    @Test
    void aDayPartlyPastRetentionIsNotTrimmedRowByRow_butDroppedWholeOnceAllOfItIsPast() {
        RetentionScenario scenario = new RetentionScenario(context);
        JdbcClient jdbc = scenario.jdbc;
        Instant now = Instant.now();
        assertThat(scenario.instance("a", Clock.systemUTC()).runOnce().ran()).isTrue();
        Instant dayStart = LocalDate.ofInstant(now, ZoneOffset.UTC)
                .plusDays(1)
                .atStartOfDay()
                .toInstant(ZoneOffset.UTC);
        String run = "run_boundary_" + scenario.tag;
        jdbc.sql("INSERT INTO cadre_run (id, agent, input, status, submitted_by, created_at, updated_at)"
                        + " VALUES (?, 'triage', 'x', 'completed', 'test', ?, ?)")
                .params(run, Timestamp.from(dayStart), Timestamp.from(dayStart))
                .update();
        // Two events and a span in the morning of that day, one event in the evening.
        for (int hour : new int[] {1, 2, 20}) {
            jdbc.sql("INSERT INTO cadre_run_event (run_id, seq, session_id, main_stream, type, data, at)"
                            + " VALUES (?, ?, ?, TRUE, 'status', '{\"x\":1}', ?)")
                    .params(run, hour, run, Timestamp.from(dayStart.plus(Duration.ofHours(hour))))
                    .update();
        }
        long nanos = dayStart.plus(Duration.ofHours(1)).getEpochSecond() * 1_000_000_000L;
        jdbc.sql("INSERT INTO cadre_span (trace_id, span_id, run_id, name, start_nanos, end_nanos, status,"
                        + " attributes) VALUES ('b0', 's1', ?, 'invoke_agent triage', ?, ?, 'OK', '{}')")
                .params(run, nanos, nanos + 5)
                .update();

        // Fourteen days and twelve hours on, the morning is past the 14 days, the evening is not:
        // the day's partition stays whole and no row of it is deleted.
        RetentionService.Pass noon = scenario.instance(
                        "b", Clock.fixed(dayStart.plus(Duration.ofDays(14)).plus(Duration.ofHours(12)), ZoneOffset.UTC))
                .runOnce();
        assertThat(noon.failures()).isEmpty();
        assertThat(scenario.count("cadre_run_event", run)).isEqualTo(3);
        assertThat(scenario.count("cadre_span", run)).isEqualTo(1);
        assertThat(noon.of(RetentionKind.EVENTS).rows()).isZero();
        assertThat(noon.of(RetentionKind.SPANS).rows()).isZero();

        // Once the whole day is past, it goes as one partition.
        RetentionService.Pass next = scenario.instance(
                        "c", Clock.fixed(dayStart.plus(Duration.ofDays(15)).plusSeconds(60), ZoneOffset.UTC))
                .runOnce();
        assertThat(next.failures()).isEmpty();
        String day = LocalDate.ofInstant(dayStart, ZoneOffset.UTC).toString().replace("-", "");
        assertThat(scenario.instance("x", Clock.systemUTC())
                        .partitions()
                        .events()
                        .list())
                .extracting(p -> p.name())
                .doesNotContain("cadre_run_event_p" + day);
        assertThat(scenario.count("cadre_run_event", run)).isZero();
        assertThat(scenario.count("cadre_span", run)).isZero();
    }
}
