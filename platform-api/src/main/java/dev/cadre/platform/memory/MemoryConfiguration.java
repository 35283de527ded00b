package dev.cadre.platform.memory;

import dev.cadre.memory.HybridSharedMemory;
import dev.cadre.memory.JdbcSharedMemory;
import dev.cadre.memory.MemoryHistoryBudget;
import dev.cadre.memory.MemoryListener;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.MemorySchema;
import dev.cadre.memory.SharedMemory;
import dev.cadre.platform.agents.ToolProvider;
import io.lettuce.core.RedisClient;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.json.JsonMapper;

/**
 * Shared memory on the platform's database: JDBC alone by default (the embedded H2 file), the
 * hybrid PostgreSQL + Redis backend when {@code cadre.redis.url} is set.
 */
@Configuration(proxyBeanMethods = false)
class MemoryConfiguration {

    @Bean(destroyMethod = "close")
    SharedMemory sharedMemory(
            DataSource dataSource,
            ObjectProvider<RedisClient> redis,
            ObjectProvider<MemoryListener> listener,
            @Value("${cadre.redis.prefix:cadre}") String prefix,
            @Value("${cadre.memory.history.max-versions:1000}") int maxVersions,
            @Value("${cadre.memory.history.max-bytes:16MB}") String maxBytes) {
        MemorySchema.migrate(dataSource);
        MemoryOptions options = MemoryOptions.defaults()
                .withListener(listener.getIfAvailable(() -> MemoryListener.NONE))
                .withRedisPrefix(prefix + ":memory")
                .withHistoryBudget(historyBudget(maxVersions, maxBytes));
        RedisClient client = redis.getIfAvailable();
        if (client == null) {
            return new JdbcSharedMemory(dataSource, options);
        }
        return new HybridSharedMemory(dataSource, client, options);
    }

    /**
     * {@code cadre.memory.history.*}: how much history one key keeps whatever its age, so a key written
     * in a loop (an alert repeated for days) cannot fill the disk between two retention passes.
     */
    static MemoryHistoryBudget historyBudget(int maxVersions, String maxBytes) {
        if (maxVersions < 1) {
            throw new IllegalArgumentException("cadre.memory.history.max-versions must be at least 1 (the current"
                    + " version is always kept), was " + maxVersions);
        }
        DataSize size;
        try {
            size = DataSize.parse(maxBytes.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cadre.memory.history.max-bytes must be a size such as 16MB or 512KB, was '" + maxBytes + "'");
        }
        if (size.toBytes() < 1024) {
            throw new IllegalArgumentException(
                    "cadre.memory.history.max-bytes must be at least 1KB, was '" + maxBytes + "'");
        }
        return new MemoryHistoryBudget(maxVersions, size.toBytes());
    }

    @Bean
    ToolProvider memoryTools(
            SharedMemory memory, JsonMapper json, ObjectProvider<dev.cadre.platform.agents.AgentCatalog> catalog) {
        // The catalog is built from the tools, so it is looked up when a tool runs, not now.
        MemoryTools tools =
                new MemoryTools(memory, json, agent -> catalog.getObject().memoryNamespaces(agent));
        return tools::tools;
    }

    /** DEGRADED (Redis down, serving from PostgreSQL) keeps the instance in rotation: it still works. */
    @Bean
    HealthIndicator memory(SharedMemory memory) {
        return () -> {
            var h = memory.health();
            return switch (h.status()) {
                case UP -> Health.up().withDetail("detail", h.detail()).build();
                case DEGRADED ->
                    Health.status(new Status("DEGRADED", h.detail()))
                            .withDetail("detail", h.detail())
                            .build();
            };
        };
    }
}
