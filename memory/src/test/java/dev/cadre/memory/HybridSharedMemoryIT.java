package dev.cadre.memory;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import dev.cadre.memory.testing.TestRedis;
import io.lettuce.core.RedisClient;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** The contract on {@link HybridSharedMemory} over a real PostgreSQL and the machine's Redis (own key prefix). */
class HybridSharedMemoryIT extends SharedMemoryContract {

    private static ExternalServices.Postgres schema;
    private static HikariDataSource dataSource;
    private static RedisClient redis;

    private final List<String> prefixes = new ArrayList<>();

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
        String prefix = "cadre-test:" + UUID.randomUUID();
        prefixes.add(prefix);
        return new HybridSharedMemory(dataSource, redis, options.withRedisPrefix(prefix));
    }

    @AfterEach
    void deleteRedisKeys() {
        // Runs before the contract's own @AfterEach: stop the relay first so nothing is written
        // under the prefix after it is cleaned (closing twice is harmless).
        memory.close();
        prefixes.forEach(prefix -> TestRedis.deletePrefix(redis, prefix));
    }
}
