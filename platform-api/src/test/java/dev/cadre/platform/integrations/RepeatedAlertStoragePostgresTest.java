package dev.cadre.platform.integrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.SharedMemory;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PostgresPlatformTest;
import dev.cadre.platform.support.PostgresSchemas;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * 300 repeats of one alert with a large annotation, each a new notification (its own {@code
 * startsAt}), on PostgreSQL: what they leave in the database is one sighting row each on the
 * incident's timeline and a bounded number of versions of the incident record, and the repeats
 * beyond the key's repeat rate are answered 429 with {@code Retry-After}. Prints the database's
 * growth (the figure behind the storage budget).
 */
@PostgresPlatformTest
@TestPropertySource(
        properties = {
            "cadre.integrations.alertmanager.agent=triage",
            "cadre.incidents.escalate-after=1000000",
            "cadre.integrations.alertmanager.repeats-per-minute=100"
        })
class RepeatedAlertStoragePostgresTest {

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        PostgresSchemas.fresh(registry, "repeats");
    }

    @LocalServerPort
    int port;

    @Autowired
    DataSource dataSource;

    @Autowired
    SharedMemory memory;

    private long databaseBytes(JdbcTemplate jdbc) {
        Long bytes = jdbc.queryForObject(
                "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')",
                Long.class);
        return bytes == null ? 0 : bytes;
    }

    private static String delivery(int i, String annotation) {
        String startsAt = Instant.parse("2026-12-05T03:00:00Z").plusSeconds(i).toString();
        return "{\"version\":\"4\",\"status\":\"firing\",\"alerts\":[{\"status\":\"firing\",\"labels\":"
                + "{\"alertname\":\"DiskFull\",\"instance\":\"db-1\",\"severity\":\"critical\"},"
                + "\"annotations\":{\"summary\":\"" + annotation + "\"},"
                + "\"startsAt\":\"" + startsAt + "\",\"fingerprint\":\"repeat-storage-1\"}]}";
    }

    @Test
    void threeHundredRepeatsOfOneAlert_leaveOneSightingRowEach_andABoundedRecord() {
        Api api = new Api(port);
        String intake = api.post("/api/v1/keys", Api.ADMIN_KEY, "{\"name\":\"am-repeats\",\"role\":\"intake\"}")
                .json()
                .get("secret")
                .asString();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String annotation = "x".repeat(60_000);
        var first = api.post("/api/v1/integrations/alertmanager", intake, delivery(0, annotation));
        assertThat(first.status()).as(first.body()).isEqualTo(200);
        String incident = first.json().get("alerts").get(0).get("incident").asString();
        long before = databaseBytes(jdbc);
        long started = System.nanoTime();
        int ok = 0;
        int limited = 0;
        for (int i = 1; i <= 300; i++) {
            var r = api.post("/api/v1/integrations/alertmanager", intake, delivery(i, annotation));
            if (r.status() == 200) {
                ok++;
            } else {
                assertThat(r.status()).as(r.body()).isEqualTo(429);
                assertThat(r.header("Retry-After")).isNotBlank();
                limited++;
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        long after = databaseBytes(jdbc);
        int versions = memory.history(IncidentService.NAMESPACE, incident).size();
        Integer sightings = jdbc.queryForObject(
                "SELECT COUNT(*) FROM cadre_incident_event WHERE incident_id = ? AND kind = 'SIGHTING'",
                Integer.class,
                incident);
        System.out.printf(
                "300 repeats of one alert (60 KB annotation) in %d ms: %d answered 200, %d answered 429;"
                        + " database %d -> %d bytes (+%d); %d versions of the incident record, %d sighting rows%n",
                millis, ok, limited, before, after, after - before, versions, sightings);
        assertThat(limited).isPositive();
        assertThat(sightings).isEqualTo(ok);
    }
}
