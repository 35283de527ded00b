package dev.cadre.memory;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import io.lettuce.core.RedisClient;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract on {@link HybridSharedMemory} over a real PostgreSQL and the machine's Redis (own key prefix). */
class HybridSharedMemoryIT extends SharedMemoryContract {

    private static ExternalServices.Postgres schema;
    private static HikariDataSource dataSource;
    private static RedisClient redis;

    @BeforeAll
    static void createSchema() {
        schema = ExternalServices.postgres().freshSchema("memory_hybrid");
        dataSource = TestDatabases.pool(schema, 12);
        MemorySchema.migrate(dataSource);
        redis = RedisClient.create(ExternalServices.redis().uri());
    }

    @AfterAll
    static void dropSchema() {
        redis.shutdown();
        dataSource.close();
        schema.dropSchema();
    }

    @Override
    protected SharedMemory create(MemoryOptions options) {
        // A key prefix per test: never touch another test's (or anyone's) Redis keys.
        return new HybridSharedMemory(dataSource, redis, options.withRedisPrefix("cadre-test:" + UUID.randomUUID()));
    }
}
