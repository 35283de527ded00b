package dev.cadre.platform.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * V50 turns an install from before teams into the team {@code default}, on H2 and on PostgreSQL:
 * every key belongs to it, and the admin keys stay platform admins (who may act in any team).
 */
class TeamMigrationTest {

    private static final Timestamp NOW = Timestamp.from(Instant.parse("2026-12-01T00:00:00Z"));

    @Test
    void v50_makesEveryKeyTeamDefaults_andAdminsPlatformAdmins_onH2() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:teams-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH");
        upgrades(h2, "classpath:db/migration");
    }

    @Test
    void v50_makesEveryKeyTeamDefaults_andAdminsPlatformAdmins_onPostgres() {
        ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("teams");
        try {
            upgrades(
                    new DriverManagerDataSource(pg.jdbcUrl(), pg.user(), pg.password()),
                    "classpath:db/migration",
                    "classpath:db/vendor/postgresql");
        } finally {
            pg.dropSchema();
        }
    }

    private static void upgrades(DataSource db, String... locations) {
        // The schema as it was before V50: up to the newest earlier version, whichever that is.
        MigrationVersion before = Arrays.stream(Flyway.configure()
                        .dataSource(db)
                        .locations(locations)
                        .load()
                        .info()
                        .all())
                .map(MigrationInfo::getVersion)
                .filter(java.util.Objects::nonNull)
                .filter(v -> v.isNewerThan("1") && !v.isAtLeast("50"))
                .max(MigrationVersion::compareTo)
                .orElseThrow();
        Flyway.configure()
                .dataSource(db)
                .locations(locations)
                .target(before)
                .load()
                .migrate();
        JdbcClient jdbc = JdbcClient.create(db);
        key(jdbc, "key-admin", "ops-admin", "ADMIN");
        key(jdbc, "key-operator", "oncall", "OPERATOR");
        key(jdbc, "key-intake", "alertmanager", "INTAKE");

        Flyway.configure().dataSource(db).locations(locations).load().migrate();

        record Key(String id, String team, boolean platformAdmin) {}
        assertThat(jdbc.sql("SELECT id, team, platform_admin FROM cadre_api_key ORDER BY id")
                        .query((rs, i) -> new Key(rs.getString(1), rs.getString(2), rs.getBoolean(3)))
                        .list())
                .isEqualTo(List.of(
                        new Key("key-admin", "default", true),
                        new Key("key-intake", "default", false),
                        new Key("key-operator", "default", false)));
        assertThat(jdbc.sql("SELECT name, title, created_by FROM cadre_team")
                        .query((rs, i) -> rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3))
                        .list())
                .isEqualTo(List.of("default|Default team|system"));
    }

    private static void key(JdbcClient jdbc, String id, String name, String role) {
        jdbc.sql("INSERT INTO cadre_api_key (id, name, name_key, key_prefix, key_hash, role, created_at, created_by)"
                        + " VALUES (?, ?, ?, '', ?, ?, ?, 'test')")
                .params(id, name, name, "hash-" + id, role, NOW)
                .update();
    }
}
