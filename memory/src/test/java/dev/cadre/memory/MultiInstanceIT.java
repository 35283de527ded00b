package dev.cadre.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.TestDatabases;
import dev.cadre.memory.testing.TestRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two platform instances share PostgreSQL and Redis: their relays compete for the same outbox, and
 * a subscriber on one instance must still see every write of both, once, in order.
 */
class MultiInstanceIT {

    private static ExternalServices.Postgres schema;
    private static HikariDataSource dataSource;
    private static RedisClient redis;

    @BeforeAll
    static void start() {
        schema = ExternalServices.postgres().freshSchema("memory_multi");
        dataSource = TestDatabases.pool(schema, 24);
        MemorySchema.migrate(dataSource);
        redis = RedisClient.create(ExternalServices.redis().uri());
    }

    @AfterAll
    static void stop() {
        redis.shutdown();
        dataSource.close();
        schema.dropSchema();
    }

    @Test
    void twoHybridInstances_appendConcurrently_andEachSubscriberSeesEveryWriteOnceInOrder() throws Exception {
        String prefix = "cadre-multi:" + UUID.randomUUID();
        MemoryOptions options =
                MemoryOptions.defaults().withRedisPrefix(prefix).withRelayPollInterval(Duration.ofMillis(300));
        try (HybridSharedMemory a = new HybridSharedMemory(dataSource, redis, options);
                HybridSharedMemory b = new HybridSharedMemory(dataSource, redis, options)) {
            String ns = "multi";
            long start = a.latestCursor();
            List<MemoryChange> seenByB = new CopyOnWriteArrayList<>();
            List<MemoryChange> seenByA = new CopyOnWriteArrayList<>();
            try (Subscription onB = b.subscribe(start, seenByB::add);
                    Subscription onA = a.subscribe(start, seenByA::add)) {
                List<String> keys = List.of("k0", "k1", "k2", "k3", "k4");
                // The same keys through both instances: their CAS meets in PostgreSQL.
                var fromA = CompletableFuture.supplyAsync(() -> run(a, ns, keys, 0));
                var fromB = CompletableFuture.supplyAsync(() -> run(b, ns, keys, 1_000_000));
                AppendWorkload.Result both = AppendWorkload.merge(fromA.get(), fromB.get());
                assertThat(AppendWorkload.check(a, ns, both)).isEmpty();
                Set<String> written = new HashSet<>();
                both.acknowledged().values().forEach(ack -> written.add(ack.key() + "@" + ack.version()));
                assertThat(written)
                        .as("no version acknowledged twice")
                        .hasSize(both.acknowledged().size());

                long latest = a.latestCursor();
                assertThat(latest - start).isEqualTo(written.size());
                await().atMost(Duration.ofSeconds(60)).until(() -> onA.cursor() >= latest && onB.cursor() >= latest);
                for (List<MemoryChange> seen : List.of(seenByA, seenByB)) {
                    assertThat(seen)
                            .extracting(MemoryChange::cursor)
                            .doesNotHaveDuplicates()
                            .isSorted();
                    assertThat(seen.stream().map(ch -> ch.key() + "@" + ch.version()))
                            .containsExactlyInAnyOrderElementsOf(written);
                }
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> a.unpublishedChanges() == 0 && b.unpublishedChanges() == 0);
            }
        } finally {
            TestRedis.deletePrefix(redis, prefix);
        }
    }

    private static AppendWorkload.Result run(SharedMemory memory, String ns, List<String> keys, int firstElement) {
        try {
            return AppendWorkload.cas(memory, ns, keys, 4, 100, 30, firstElement);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
