package dev.cadre.platform.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;

/**
 * Issue 23, finding 1: an H2 file database closes itself for good when a thread is interrupted in
 * its file write, and health must then say DOWN (readiness and, for the embedded database, liveness);
 * on the {@code async:} file system the same interrupt leaves the database usable.
 */
class DatabaseHealthTest {

    private static HikariDataSource pool(String url) {
        HikariDataSource ds = new HikariDataSource();
        ds.setJdbcUrl(url);
        ds.setMaximumPoolSize(2);
        return ds;
    }

    private static String fileUrl() {
        return "jdbc:h2:file:./target/database-health/" + UUID.randomUUID() + ";MODE=PostgreSQL;WRITE_DELAY=0";
    }

    /** Writes a large row with the calling thread's interrupt status set, as a cancelled run's thread would. */
    private static void writeWhileInterrupted(HikariDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement p = c.prepareStatement("INSERT INTO t (v) VALUES (?)")) {
            p.setString(1, "x".repeat(1_000_000));
            Thread.currentThread().interrupt();
            try {
                p.executeUpdate();
            } finally {
                Thread.interrupted();
            }
        }
    }

    private static void createTable(HikariDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (v VARCHAR(2000000))");
        }
    }

    @Test
    void aFileDatabaseClosedByAnInterruptedWrite_isDownForReadinessAndLiveness() throws Exception {
        String url = H2Durability.durableUrl(fileUrl());
        try (HikariDataSource ds = pool(url)) {
            createTable(ds);
            DatabaseHealth readiness = DatabaseHealth.of(ds);
            DatabaseHealth liveness = DatabaseHealth.embedded(ds, url);
            assertThat(readiness.health().getStatus()).isEqualTo(Status.UP);
            assertThat(liveness.health().getStatus()).isEqualTo(Status.UP);

            assertThatThrownBy(() -> writeWhileInterrupted(ds)).isInstanceOf(SQLException.class);

            assertThat(readiness.health().getStatus()).isEqualTo(Status.DOWN);
            assertThat(liveness.health().getStatus()).isEqualTo(Status.DOWN);
            assertThat(readiness.health().getDetails().get("error").toString()).isNotBlank();
        }
    }

    @Test
    void onTheAsyncFileSystem_anInterruptedWriteLeavesTheDatabaseUsable() throws Exception {
        String url = H2InterruptSafety.interruptSafeUrl(H2Durability.durableUrl(fileUrl()));
        assertThat(url).startsWith("jdbc:h2:async:./target/database-health/");
        try (HikariDataSource ds = pool(url)) {
            createTable(ds);
            for (int i = 0; i < 5; i++) {
                writeWhileInterrupted(ds);
            }
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement();
                    var r = s.executeQuery("SELECT COUNT(*) FROM t")) {
                r.next();
                assertThat(r.getInt(1)).isEqualTo(5);
            }
            assertThat(DatabaseHealth.of(ds).health().getStatus()).isEqualTo(Status.UP);
        }
    }

    @Test
    void livenessLeavesAnExternalDatabaseToReadiness() {
        HikariDataSource unreachable = pool("jdbc:postgresql://127.0.0.1:1/none");
        unreachable.setConnectionTimeout(250);
        try (unreachable) {
            assertThat(DatabaseHealth.embedded(unreachable, unreachable.getJdbcUrl())
                            .health()
                            .getStatus())
                    .isEqualTo(Status.UP);
            assertThat(DatabaseHealth.of(unreachable).health().getStatus()).isEqualTo(Status.DOWN);
        }
    }

    @Test
    void onlyPlainH2FileUrlsMoveToTheAsyncFileSystem() {
        assertThat(H2InterruptSafety.interruptSafeUrl("jdbc:h2:file:./data/cadre;MODE=PostgreSQL"))
                .isEqualTo("jdbc:h2:async:./data/cadre;MODE=PostgreSQL");
        assertThat(H2InterruptSafety.interruptSafeUrl("jdbc:h2:./data/cadre;WRITE_DELAY=0"))
                .isEqualTo("jdbc:h2:async:./data/cadre;WRITE_DELAY=0");
        assertThat(H2InterruptSafety.interruptSafeUrl("jdbc:h2:~/cadre")).isEqualTo("jdbc:h2:async:~/cadre");
        assertThat(H2InterruptSafety.interruptSafeUrl("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1"))
                .isEqualTo("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1");
        assertThat(H2InterruptSafety.interruptSafeUrl("jdbc:h2:tcp://localhost/~/x"))
                .isEqualTo("jdbc:h2:tcp://localhost/~/x");
        assertThat(H2InterruptSafety.interruptSafeUrl("jdbc:h2:nio:./x")).isEqualTo("jdbc:h2:nio:./x");
        assertThat(H2InterruptSafety.interruptSafeUrl("jdbc:postgresql://db/cadre"))
                .isEqualTo("jdbc:postgresql://db/cadre");
    }
}
