package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.JdbcSharedMemory;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.MemorySchema;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * Copies of one notification delivered at once to two platform instances (an Alertmanager HA pair
 * each sending to another instance) on one PostgreSQL: one sighting. Each "instance" has its own
 * memory backend and pool on a schema of its own.
 */
class IncidentSightingsPostgresIT {

    private static ExternalServices.Postgres schema;
    private static HikariDataSource poolA;
    private static HikariDataSource poolB;

    @BeforeAll
    static void createSchema() {
        schema = ExternalServices.postgres().freshSchema("incident_sightings");
        poolA = TestDatabases.pool(schema, 4);
        poolB = TestDatabases.pool(schema, 4);
        MemorySchema.migrate(poolA);
        // The platform's timeline tables (Flyway creates them in the platform; here the migration alone).
        try (var in =
                IncidentSightingsPostgresIT.class.getResourceAsStream("/db/migration/V44__incident_timeline.sql")) {
            String sql = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            var jdbc = org.springframework.jdbc.core.simple.JdbcClient.create(poolA);
            for (String statement : sql.replaceAll("(?m)^--.*$", "").split(";")) {
                if (!statement.isBlank()) {
                    jdbc.sql(statement).update();
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterAll
    static void dropSchema() {
        poolA.close();
        poolB.close();
        schema.dropSchema();
    }

    @Test
    void copiesDeliveredToTwoInstancesAtOnce_areOneSighting() throws Exception {
        IncidentService a = instance(poolA);
        IncidentService b = instance(poolB);
        for (int round = 0; round < 5; round++) {
            List<IncidentService> eight = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                eight.add(a);
                eight.add(b);
            }
            assertThat(IncidentSightingsTest.concurrently(eight, "pg-pair-" + round))
                    .as("round " + round)
                    .isEqualTo(1);
        }
    }

    /**
     * An alert repeated 300 times (no delivery key: every call counts) writes two versions of the
     * incident record — its creation and its escalation — and 300 timeline rows, on PostgreSQL.
     */
    @Test
    void threeHundredRepeats_addNoVersionsPerRepeat() {
        JdbcSharedMemory memory = new JdbcSharedMemory(poolA, MemoryOptions.defaults());
        IncidentService service = new IncidentService(
                memory,
                JsonMapper.builder().build(),
                Clock.systemUTC(),
                // A write interval of an hour: however slow this machine, no counter rewrite falls due.
                new IncidentService.Settings(
                        Duration.ofHours(1), 3, Duration.ofMinutes(30), Duration.ofSeconds(10), Duration.ofHours(1)),
                dev.cadre.platform.web.SecretRedactor.standard(),
                new JdbcIncidentTimeline(
                        org.springframework.jdbc.core.simple.JdbcClient.create(poolA),
                        JsonMapper.builder().build()));
        IncidentService.OpenRequest alert = new IncidentService.OpenRequest(
                "pg-flood", "HostHighCpu on web-1", "critical", "alertmanager", java.util.Map.of(), "x".repeat(50_000));
        String id = service.open(alert, dev.cadre.memory.Writer.apiClient("alertmanager"), null)
                .incident()
                .id();
        int before = memory.history(IncidentService.NAMESPACE, id).size();
        for (int i = 1; i < 300; i++) {
            service.open(alert, dev.cadre.memory.Writer.apiClient("alertmanager"), null);
        }
        int after = memory.history(IncidentService.NAMESPACE, id).size();
        assertThat(before).isEqualTo(1);
        assertThat(after).as("its creation and its escalation").isEqualTo(2);
        Incident incident = service.get(id).orElseThrow();
        assertThat(incident.occurrences()).isEqualTo(300);
        assertThat(incident.value().path("summary").asString()).hasSize(IncidentService.MAX_SUMMARY);
        assertThat(service.timeline(id, 0, 1000)).hasSize(301); // opened, 299 sightings, escalated
    }

    private static IncidentService instance(HikariDataSource pool) {
        return new IncidentService(
                new JdbcSharedMemory(pool, MemoryOptions.defaults()),
                JsonMapper.builder().build(),
                Clock.systemUTC(),
                new IncidentService.Settings(Duration.ofHours(1), 3, Duration.ofMinutes(30), Duration.ofSeconds(10)),
                dev.cadre.platform.web.SecretRedactor.standard(),
                new JdbcIncidentTimeline(
                        org.springframework.jdbc.core.simple.JdbcClient.create(pool),
                        JsonMapper.builder().build()));
    }
}
