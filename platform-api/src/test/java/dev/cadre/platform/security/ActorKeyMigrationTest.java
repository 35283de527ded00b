package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.memory.testing.ExternalServices;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * V40 gives the rows that name an actor the id of the key that had that name, on H2 and on
 * PostgreSQL: runs, approvals (proposer and decider) and evaluations. Names no key ever had keep no
 * id, and the idempotency index scopes a key's keys by its id and a keyless actor's by its name.
 */
class ActorKeyMigrationTest {

    private static final Timestamp NOW = Timestamp.from(Instant.parse("2026-12-01T00:00:00Z"));

    @Test
    void v40_backfillsKeyIdsFromNames_onH2() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:actor-keys-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH");
        backfillsKeyIds(h2, "classpath:db/migration");
    }

    @Test
    void v40_backfillsKeyIdsFromNames_onPostgres() {
        ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("actor_keys");
        try {
            backfillsKeyIds(
                    new DriverManagerDataSource(pg.jdbcUrl(), pg.user(), pg.password()),
                    "classpath:db/migration",
                    "classpath:db/vendor/postgresql");
        } finally {
            pg.dropSchema();
        }
    }

    private static void backfillsKeyIds(DataSource db, String... locations) {
        // The schema as it was before V40: up to the newest earlier version, whichever that is.
        MigrationVersion before = Arrays.stream(Flyway.configure()
                        .dataSource(db)
                        .locations(locations)
                        .load()
                        .info()
                        .all())
                .map(MigrationInfo::getVersion)
                .filter(java.util.Objects::nonNull)
                .filter(v -> v.isNewerThan("1") && !v.isAtLeast("40"))
                .max(MigrationVersion::compareTo)
                .orElseThrow();
        Flyway.configure()
                .dataSource(db)
                .locations(locations)
                .target(before)
                .load()
                .migrate();
        JdbcClient jdbc = JdbcClient.create(db);
        key(jdbc, "key-alice", "alice");
        key(jdbc, "key-bob", "bob");
        run(jdbc, "run-alice", "alice", "same-key");
        run(jdbc, "run-bob", "bob", "same-key");
        run(jdbc, "run-system", "system", "same-key");
        run(jdbc, "run-intake", "alertmanager", null);
        jdbc.sql("INSERT INTO cadre_approval (id, run_id, session_id, call_id, agent, tool, arguments, status,"
                        + " proposed_by, decided_by, created_at, expires_at)"
                        + " VALUES ('appr-1', 'run-alice', 's', 'c1', 'fixer', 'run_runbook', '{}', 'approved', 'alice',"
                        + " 'bob', ?, ?)")
                .params(NOW, NOW)
                .update();
        jdbc.sql("INSERT INTO cadre_approval (id, run_id, session_id, call_id, agent, tool, arguments, status,"
                        + " decided_by, created_at, expires_at)"
                        + " VALUES ('appr-2', 'run-alice', 's', 'c2', 'fixer', 'run_runbook', '{}', 'canceled', 'system',"
                        + " ?, ?)")
                .params(NOW, NOW)
                .update();
        jdbc.sql("INSERT INTO cadre_eval (id, suite, agent, repeat_count, status, submitted_by, created_at,"
                        + " runs_total, suite_json, run_ids) VALUES ('eval-1', 'ops', 'triage', 1, 'completed', 'alice',"
                        + " ?, 1, '{}', '{}')")
                .param(NOW)
                .update();

        Flyway.configure().dataSource(db).locations(locations).load().migrate();

        assertThat(value(jdbc, "SELECT submitted_by_key FROM cadre_run WHERE id = 'run-alice'"))
                .isEqualTo("key-alice");
        assertThat(value(jdbc, "SELECT submitted_by_key FROM cadre_run WHERE id = 'run-bob'"))
                .isEqualTo("key-bob");
        // No key ever had these names: no key id (the run table's '' for "no key").
        assertThat(value(jdbc, "SELECT submitted_by_key FROM cadre_run WHERE id = 'run-system'"))
                .isEmpty();
        assertThat(value(jdbc, "SELECT submitted_by_key FROM cadre_run WHERE id = 'run-intake'"))
                .isEmpty();
        assertThat(value(jdbc, "SELECT proposed_by_key FROM cadre_approval WHERE id = 'appr-1'"))
                .isEqualTo("key-alice");
        assertThat(value(jdbc, "SELECT decided_by_key FROM cadre_approval WHERE id = 'appr-1'"))
                .isEqualTo("key-bob");
        assertThat(value(jdbc, "SELECT decided_by_key FROM cadre_approval WHERE id = 'appr-2'"))
                .isNull();
        assertThat(value(jdbc, "SELECT proposed_by_key FROM cadre_approval WHERE id = 'appr-2'"))
                .isNull();
        assertThat(value(jdbc, "SELECT submitted_by_key FROM cadre_eval WHERE id = 'eval-1'"))
                .isEqualTo("key-alice");

        // Idempotency keys: another key with alice's name has its own scope; a keyless name has one too.
        jdbc.sql("INSERT INTO cadre_run (id, agent, input, status, submitted_by, submitted_by_key, idempotency_key,"
                        + " created_at, updated_at) VALUES ('run-namesake', 'fixer', 'x', 'completed', 'alice',"
                        + " 'key-other', 'same-key', ?, ?)")
                .params(NOW, NOW)
                .update();
        assertThatThrownBy(() -> jdbc.sql("INSERT INTO cadre_run (id, agent, input, status, submitted_by,"
                                + " idempotency_key, created_at, updated_at) VALUES ('run-system-2', 'fixer', 'x',"
                                + " 'completed', 'system', 'same-key', ?, ?)")
                        .params(NOW, NOW)
                        .update())
                .isInstanceOf(DuplicateKeyException.class);
    }

    private static void key(JdbcClient jdbc, String id, String name) {
        jdbc.sql("INSERT INTO cadre_api_key (id, name, name_key, key_prefix, key_hash, role, created_at, created_by)"
                        + " VALUES (?, ?, ?, '', ?, 'OPERATOR', ?, 'test')")
                .params(id, name, name, "hash-" + id, NOW)
                .update();
    }

    private static void run(JdbcClient jdbc, String id, String submittedBy, String idempotencyKey) {
        jdbc.sql("INSERT INTO cadre_run (id, agent, input, status, submitted_by, idempotency_key, created_at,"
                        + " updated_at) VALUES (?, 'fixer', 'x', 'completed', ?, ?, ?, ?)")
                .params(id, submittedBy, idempotencyKey, NOW, NOW)
                .update();
    }

    private static String value(JdbcClient jdbc, String sql) {
        return jdbc.sql(sql).query((rs, row) -> rs.getString(1)).list().getFirst();
    }
}
