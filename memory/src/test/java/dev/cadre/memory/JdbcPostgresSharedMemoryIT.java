package dev.cadre.memory;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract on {@link JdbcSharedMemory} over a real PostgreSQL (a schema of its own), through a
 * pool whose connections are <em>not</em> in autocommit, as JPA-tuned applications configure it
 * (the hybrid suite covers the autocommit pool).
 */
class JdbcPostgresSharedMemoryIT extends SharedMemoryContract {

    private static ExternalServices.Postgres schema;
    private static HikariDataSource dataSource;

    @BeforeAll
    static void createSchema() {
        schema = ExternalServices.postgres().freshSchema("memory_jdbc");
        dataSource = TestDatabases.pool(schema, 12, false);
        MemorySchema.migrate(dataSource);
    }

    @AfterAll
    static void dropSchema() {
        dataSource.close();
        schema.dropSchema();
    }

    @Override
    protected SharedMemory create(MemoryOptions options) {
        return new JdbcSharedMemory(dataSource, options);
    }
}
