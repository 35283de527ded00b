package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.cluster.RedisRunQueue;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PostgresSchemas;
import dev.cadre.platform.support.TestTools;
import java.util.UUID;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link DeadlineSweepContract} as a cluster runs: PostgreSQL and the Redis queue. A run past its
 * deadline is acknowledged and deleted from its priority's stream, so no instance reads it later.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:test-agents/*.yaml",
            "cadre.runbooks.dir=target/runbooks",
            "cadre.runs.max-concurrent=1",
            // The tests expire runs themselves; a scheduled sweep ending one first would race them.
            "cadre.runs.sweep-interval=PT1H",
            "cadre.approvals.separation-of-duties=false"
        })
@Import(TestTools.class)
class RedisDeadlineSweepTest extends DeadlineSweepContract {

    @DynamicPropertySource
    static void postgresAndRedis(DynamicPropertyRegistry registry) {
        PostgresSchemas.fresh(registry, "deadline_sweep");
        registry.add("cadre.redis.url", () -> ExternalServices.redis().uri());
        // Streams of its own, empty at the start whatever earlier runs left.
        registry.add("cadre.redis.prefix", () -> "deadline-" + UUID.randomUUID());
    }

    /** Entries in the run streams not being executed: read by nobody yet. */
    @Override
    protected long queuedEntries() {
        assertThat(queue).isInstanceOf(RedisRunQueue.class);
        return ((RedisRunQueue) queue).streamLength() - queue.executing();
    }
}
