package dev.cadre.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Comparator;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Memory's migrations live beside an application's own tables, on PostgreSQL and on H2. */
class MemorySchemaIT {

    @Test
    void migrate_inASchemaWithTheApplicationsTables_usesItsOwnHistory_andRunsOnce_onPostgres() throws Exception {
        ExternalServices.Postgres schema = ExternalServices.postgres().freshSchema("memory_schema");
        try (HikariDataSource ds = TestDatabases.pool(schema, 2)) {
            assertMigratesBesideAnApplication(ds);
        } finally {
            schema.dropSchema();
        }
    }

    @Test
    void migrate_inASchemaWithTheApplicationsTables_usesItsOwnHistory_andRunsOnce_onH2() throws Exception {
        Path dir = Files.createTempDirectory("cadre-memory-schema");
        try (HikariDataSource ds = TestDatabases.h2File(dir, 2)) {
            assertMigratesBesideAnApplication(ds);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void aBackendOnAnUnmigratedDatabase_failsAtOnce_sayingToMigrate() {
        ExternalServices.Postgres schema = ExternalServices.postgres().freshSchema("memory_nomigrate");
        try (HikariDataSource ds = TestDatabases.pool(schema, 2)) {
            assertThatThrownBy(() -> new JdbcSharedMemory(ds))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("MemorySchema.migrate");
        } finally {
            schema.dropSchema();
        }
    }

    private static void assertMigratesBesideAnApplication(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            // What platform-api's own Flyway leaves behind: its tables and its default history.
            st.execute("CREATE TABLE flyway_schema_history (installed_rank INT PRIMARY KEY, version VARCHAR(50))");
            st.execute("CREATE TABLE runs (id INT PRIMARY KEY)");
        }

        assertThat(MemorySchema.migrate(ds)).isEqualTo(1);
        assertThat(MemorySchema.migrate(ds)).isZero();

        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            try (ResultSet rs =
                    st.executeQuery("SELECT count(*) FROM " + MemorySchema.HISTORY_TABLE + " WHERE success")) {
                rs.next();
                assertThat(rs.getInt(1)).isGreaterThanOrEqualTo(1);
            }
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM flyway_schema_history")) {
                rs.next();
                assertThat(rs.getInt(1))
                        .as("the application's history is untouched")
                        .isZero();
            }
        }
        try (JdbcSharedMemory memory = new JdbcSharedMemory(ds)) {
            assertThat(memory.put("ops", "k", "{}", 0, Writer.apiClient("it"))).isEqualTo(new WriteOutcome.Written(1));
        }
    }
}
