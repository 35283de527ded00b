package dev.cadre.platform.outbox;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.testing.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link OutboxContract} on the embedded default (an H2 file database). */
class OutboxH2Test extends OutboxContract {

    private static Path dir;
    private static HikariDataSource db;

    @BeforeAll
    static void open() throws Exception {
        dir = Files.createTempDirectory("cadre-outbox-h2");
        db = TestDatabases.h2File(dir, 8);
        migrate(db, false);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Override
    DataSource dataSource() {
        return db;
    }

    @Override
    boolean postgres() {
        return false;
    }
}
