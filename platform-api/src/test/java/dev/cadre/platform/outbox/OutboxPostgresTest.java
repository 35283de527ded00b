package dev.cadre.platform.outbox;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link OutboxContract} on PostgreSQL (claims with FOR UPDATE SKIP LOCKED), in a schema of its own. */
class OutboxPostgresTest extends OutboxContract {

    private static ExternalServices.Postgres schema;
    private static HikariDataSource db;

    @BeforeAll
    static void open() {
        schema = ExternalServices.postgres().freshSchema("outbox");
        db = TestDatabases.pool(schema, 8);
        migrate(db, true);
    }

    @AfterAll
    static void close() {
        db.close();
        schema.dropSchema();
    }

    @Override
    DataSource dataSource() {
        return db;
    }

    @Override
    boolean postgres() {
        return true;
    }
}
