package dev.cadre.platform.recall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.JdbcSharedMemory;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.MemorySchema;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.Writer;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.incidents.JdbcIncidentTimeline;
import dev.cadre.platform.incidents.Resolution;
import dev.cadre.platform.web.SecretRedactor;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two platform instances on one PostgreSQL, each with its own memory backend, pool and index: an
 * incident resolved through instance A is found by instance B (B's index follows the change log
 * written by A), and an instance started afterwards rebuilds from the database and answers the same.
 */
class RecallPostgresIT {

    private static ExternalServices.Postgres schema;
    private static HikariDataSource poolA;
    private static HikariDataSource poolB;
    private final JsonMapper json = JsonMapper.builder().build();

    @BeforeAll
    static void createSchema() throws Exception {
        schema = ExternalServices.postgres().freshSchema("recall");
        poolA = TestDatabases.pool(schema, 4);
        poolB = TestDatabases.pool(schema, 4);
        MemorySchema.migrate(poolA);
        try (var in = RecallPostgresIT.class.getResourceAsStream("/db/migration/V44__incident_timeline.sql")) {
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            JdbcClient jdbc = JdbcClient.create(poolA);
            for (String statement : sql.replaceAll("(?m)^--.*$", "").split(";")) {
                if (!statement.isBlank()) {
                    jdbc.sql(statement).update();
                }
            }
        }
    }

    @AfterAll
    static void dropSchema() {
        poolA.close();
        poolB.close();
        schema.dropSchema();
    }

    private IncidentService incidents(SharedMemory memory, HikariDataSource pool) {
        return new IncidentService(
                memory,
                json,
                Clock.systemUTC(),
                new IncidentService.Settings(Duration.ofHours(1), 3, Duration.ofMinutes(30)),
                SecretRedactor.standard(),
                new JdbcIncidentTimeline(JdbcClient.create(pool), json));
    }

    private RecallService recall(IncidentService incidents, SharedMemory memory) {
        RecallService s = new RecallService(
                incidents,
                memory,
                json,
                new IncidentIndex(new MiniLmEmbedder(), json, IncidentIndex.Settings.defaults()),
                Clock.systemUTC(),
                Duration.ZERO);
        s.startNow();
        return s;
    }

    private static String open(IncidentService incidents, String alert, String host, String summary) {
        return incidents
                .open(
                        new IncidentService.OpenRequest(
                                "alertmanager:" + alert + "/" + host,
                                alert + " on " + host + ":9100",
                                "high",
                                "alertmanager",
                                Map.of("alertname", alert, "instance", host + ":9100"),
                                summary),
                        Writer.apiClient("alertmanager"),
                        null)
                .incident()
                .id();
    }

    @Test
    void a_resolution_on_one_instance_is_remembered_on_the_other_and_after_a_restart() {
        try (SharedMemory memoryA = new JdbcSharedMemory(poolA, MemoryOptions.defaults());
                SharedMemory memoryB = new JdbcSharedMemory(poolB, MemoryOptions.defaults())) {
            IncidentService a = incidents(memoryA, poolA);
            IncidentService b = incidents(memoryB, poolB);
            RecallService recallB = recall(b, memoryB);

            String past = open(a, "HostClockSkew", "db-3", "Clock offset 40 seconds, chronyd stopped");
            a.resolve(past, new Resolution("chronyd was disabled", "enabled and started chronyd"), "alice");
            String now = open(b, "NodeClockNotSynchronising", "db-9", "System time wrong by seconds, logins fail");

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> !recallB.similarTo(now, RecallService.Filters.none(3))
                            .orElseThrow()
                            .isEmpty());
            SimilarIncident top = recallB.similarTo(now, RecallService.Filters.none(3))
                    .orElseThrow()
                    .getFirst();
            assertThat(top.record().incidentId()).isEqualTo(past);
            assertThat(top.record().rootCause()).isEqualTo("chronyd was disabled");
            assertThat(top.record().fix()).isEqualTo("enabled and started chronyd");
            assertThat(top.record().resolvedBy()).isEqualTo("alice");

            List<String> before = recallB.similarTo(now, RecallService.Filters.none(3)).orElseThrow().stream()
                    .map(h -> h.record().incidentId())
                    .toList();
            recallB.close();
            RecallService restarted = recall(b, memoryB);
            assertThat(restarted.similarTo(now, RecallService.Filters.none(3)).orElseThrow())
                    .extracting(h -> h.record().incidentId())
                    .isEqualTo(before);
            restarted.close();
        }
    }
}
