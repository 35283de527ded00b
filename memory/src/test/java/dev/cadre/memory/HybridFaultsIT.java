package dev.cadre.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.memory.internal.RedisCache;
import dev.cadre.memory.internal.StreamSubscription;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.memory.testing.RedisServerProcess;
import dev.cadre.memory.testing.TestDatabases;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The hybrid backend under Redis faults, on a throw-away {@code redis-server} of its own that the
 * tests kill, restart and flush (never the machine's Redis), and a real PostgreSQL.
 */
class HybridFaultsIT {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private static ExternalServices.Postgres schema;
    private static HikariDataSource dataSource;
    private static RedisServerProcess server;
    private static ClientResources resources;
    private static RedisClient redis;

    private HybridSharedMemory memory;
    private MemoryOptions options;
    private String ns;

    @BeforeAll
    static void start() {
        schema = ExternalServices.postgres().freshSchema("memory_faults");
        dataSource = TestDatabases.pool(schema, 16);
        MemorySchema.migrate(dataSource);
        server = RedisServerProcess.start();
        // What platform-api should configure too: fail fast while disconnected, reconnect quickly.
        resources = ClientResources.builder()
                .reconnectDelay(Delay.constant(Duration.ofMillis(200)))
                .build();
        redis = RedisClient.create(resources, server.uri());
        redis.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
    }

    @AfterAll
    static void stop() {
        redis.shutdown();
        resources.shutdown();
        server.close();
        dataSource.close();
        schema.dropSchema();
    }

    @BeforeEach
    void open() {
        if (!server.running()) {
            server.restart();
        }
        ns = "f-" + UUID.randomUUID().toString().substring(0, 8);
        options = MemoryOptions.defaults()
                .withRedisPrefix("cadre-fault:" + UUID.randomUUID())
                .withRedisTimeout(Duration.ofMillis(300))
                .withRelayPollInterval(Duration.ofMillis(200));
        memory = new HybridSharedMemory(dataSource, redis, options);
    }

    @AfterEach
    void close() {
        memory.close();
    }

    private static List<String> keys(int n) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add("key-" + i);
        }
        return keys;
    }

    @Test
    void redisKilledMidWorkload_losesNoAcknowledgedWrite_andCacheConvergesAfterItIsBack() throws Exception {
        List<MemoryChange> received = new CopyOnWriteArrayList<>();
        Subscription subscription = memory.subscribe(memory.latestCursor(), received::add);
        AtomicBoolean sawDegraded = new AtomicBoolean();
        List<String> keys = keys(20);

        var result = withFault(
                () -> {
                    server.kill();
                    long killedAt = memory.latestCursor();
                    // Writes go on while Redis is gone; health must say so.
                    await().atMost(PATIENCE).until(() -> {
                        if (memory.health().status() == MemoryHealth.Status.DEGRADED) {
                            sawDegraded.set(true);
                        }
                        return sawDegraded.get() && memory.latestCursor() > killedAt + 200;
                    });
                    server.restart();
                },
                () -> AppendWorkload.cas(memory, ns, keys, 8, 150, 50));

        assertThat(sawDegraded).isTrue();
        assertThat(AppendWorkload.check(memory, ns, result)).isEmpty();
        assertRecovered(keys);
        assertSubscriberGotEverything(subscription, received);
    }

    @Test
    void redisFlushedMidWorkload_losesNoAcknowledgedWrite_andCacheConverges() throws Exception {
        List<MemoryChange> received = new CopyOnWriteArrayList<>();
        Subscription subscription = memory.subscribe(memory.latestCursor(), received::add);
        List<String> keys = keys(20);

        var result = withFault(
                () -> {
                    try (StatefulRedisConnection<String, String> c = redis.connect()) {
                        c.sync().flushall(); // our own throw-away server
                    }
                },
                () -> AppendWorkload.cas(memory, ns, keys, 8, 150, 50));

        assertThat(AppendWorkload.check(memory, ns, result)).isEmpty();
        assertRecovered(keys);
        assertSubscriberGotEverything(subscription, received);
    }

    @Test
    void staleCacheFill_neverOverwritesANewerVersion() {
        memory.put(ns, "k", "\"v1\"", 0, SharedMemoryContract.AGENT);
        memory.put(ns, "k", "\"v2\"", 1, SharedMemoryContract.AGENT);
        MemoryVersion v1 = memory.history(ns, "k").getFirst();
        RedisCache cache = new RedisCache(redis, options);
        try {
            await().atMost(PATIENCE).until(() -> {
                memory.get(ns, "k");
                return cache.get(ns, "k") instanceof RedisCache.Cached.Hit hit
                        && hit.entry().version() == 2;
            });
            // A reader that read version 1 from PostgreSQL long ago fills the cache only now. (The
            // fill is asynchronous; a read on the same connection is answered after it.)
            RedisCache.fill(cache, cache.epochForFill(), ns, "k", v1);
            assertThat(cache.get(ns, "k"))
                    .isInstanceOfSatisfying(
                            RedisCache.Cached.Hit.class,
                            hit -> assertThat(hit.entry().version()).isEqualTo(2));
            assertThat(memory.get(ns, "k").orElseThrow().value()).isEqualTo("\"v2\"");

            // A fill read before a flush must not land after it, not even into an empty cache.
            String epochBeforeFlush = cache.epochForFill();
            try (StatefulRedisConnection<String, String> c = redis.connect()) {
                c.sync().flushall();
            }
            RedisCache.fill(cache, epochBeforeFlush, ns, "k", v1);
            assertThat(cache.get(ns, "k")).isInstanceOf(RedisCache.Cached.Miss.class);
            // The first fills after the flush still carry the old epoch and are refused too (their
            // reads may predate the flush); once a new epoch is set, reads fill the cache again.
            await().atMost(PATIENCE).until(() -> {
                assertThat(memory.get(ns, "k").orElseThrow().value()).isEqualTo("\"v2\"");
                return cache.get(ns, "k") instanceof RedisCache.Cached.Hit hit
                        && hit.entry().version() == 2;
            });
        } finally {
            cache.close();
        }
    }

    @Test
    void everyWrite_showsUpInTheStream_inVersionOrderPerKey() throws Exception {
        long start = memory.latestCursor();
        var result = AppendWorkload.cas(memory, ns, keys(10), 8, 150, 50);
        assertThat(AppendWorkload.check(memory, ns, result)).isEmpty();
        await().atMost(PATIENCE).until(() -> memory.unpublishedChanges() == 0);

        List<MemoryChange> stream = new ArrayList<>();
        try (StatefulRedisConnection<String, String> c = redis.connect()) {
            for (StreamMessage<String, String> m :
                    c.sync().xrange(options.redisPrefix() + ":changes", Range.create("-", "+"))) {
                stream.add(RedisCache.change(m));
            }
        }
        List<MemoryChange> mine = stream.stream()
                .filter(ch -> ch.namespace().equals(ns) && ch.cursor() > start)
                .toList();
        Map<String, Long> lastVersion = new HashMap<>();
        for (MemoryChange ch : mine) {
            long previous = lastVersion.getOrDefault(ch.key(), 0L);
            assertThat(ch.version())
                    .as("version of %s after %d", ch.key(), previous)
                    .isEqualTo(previous + 1);
            lastVersion.put(ch.key(), ch.version());
        }
        Set<String> acknowledged = new java.util.HashSet<>();
        result.acknowledged().values().forEach(a -> acknowledged.add(a.key() + "@" + a.version()));
        assertThat(mine.stream().map(ch -> ch.key() + "@" + ch.version()).toList())
                .containsAll(acknowledged)
                .hasSize(acknowledged.size());
    }

    @Test
    void subscriberThatFallsBehindTheTrimmedStream_resyncsFromHistory() {
        memory.close();
        memory = new HybridSharedMemory(dataSource, redis, options.withStreamMaxLength(100));
        long start = memory.latestCursor();
        for (int i = 0; i < 600; i++) {
            memory.put(ns, "k" + i, Integer.toString(i), 0, SharedMemoryContract.AGENT);
        }
        await().atMost(PATIENCE).until(() -> memory.unpublishedChanges() == 0);
        try (StatefulRedisConnection<String, String> c = redis.connect()) {
            assertThat(c.sync().xlen(options.redisPrefix() + ":changes")).isLessThan(600);
        }

        List<MemoryChange> received = new CopyOnWriteArrayList<>();
        try (Subscription subscription = memory.subscribe(start, received::add)) {
            await().atMost(PATIENCE).until(() -> received.size() >= 600);
            assertThat(received)
                    .extracting(MemoryChange::cursor)
                    .doesNotHaveDuplicates()
                    .isSorted();
            assertThat(received).extracting(MemoryChange::key).first().isEqualTo("k0");
            assertThat(received).hasSize(600);
            assertThat(((StreamSubscription) subscription).resyncs()).isPositive();
        }
    }

    @Test
    void whileRedisIsDown_everyOperationWorks_andHealthRecoversByItself() {
        memory.put(ns, "k", "1", 0, SharedMemoryContract.AGENT);
        server.kill();

        assertThat(memory.put(ns, "k", "2", 1, SharedMemoryContract.AGENT)).isEqualTo(new WriteOutcome.Written(2));
        assertThat(memory.get(ns, "k").orElseThrow().value()).isEqualTo("2");
        assertThat(memory.history(ns, "k")).hasSize(2);
        assertThat(memory.changesSince(0, 1000)).isNotEmpty();
        assertThat(memory.health().status()).isEqualTo(MemoryHealth.Status.DEGRADED);
        assertThat(memory.health().detail()).contains("Redis");

        server.restart();
        await().atMost(PATIENCE).until(() -> memory.health().status() == MemoryHealth.Status.UP);
        await().atMost(PATIENCE).until(() -> memory.unpublishedChanges() == 0);
        assertThat(memory.get(ns, "k").orElseThrow().value()).isEqualTo("2");
    }

    // ------------------------------------------------------------------ helpers

    /** Runs the workload while {@code fault} strikes once a few hundred writes are in. */
    private AppendWorkload.Result withFault(ThrowingRunnable fault, Workload workload) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            long start = memory.latestCursor();
            Future<AppendWorkload.Result> run = pool.submit(workload::run);
            LongSupplier progress = memory::latestCursor;
            await().atMost(PATIENCE).until(() -> progress.getAsLong() > start + 200 || run.isDone());
            assertThat(run.isDone())
                    .as("workload still running when the fault strikes")
                    .isFalse();
            fault.run();
            return run.get();
        } finally {
            pool.shutdownNow();
        }
    }

    private void assertRecovered(List<String> keys) {
        await().atMost(PATIENCE).until(() -> memory.health().status() == MemoryHealth.Status.UP);
        await().atMost(PATIENCE).until(() -> memory.unpublishedChanges() == 0);
        for (String key : keys) {
            MemoryEntry authority = memory.get(ns, key, true).orElseThrow();
            await().atMost(PATIENCE)
                    .until(() -> memory.get(ns, key).orElseThrow().equals(authority));
        }
    }

    private void assertSubscriberGotEverything(Subscription subscription, List<MemoryChange> received) {
        try (subscription) {
            long latest = memory.latestCursor();
            await().atMost(PATIENCE).until(() -> subscription.cursor() >= latest);
            List<Long> cursors = received.stream().map(MemoryChange::cursor).toList();
            assertThat(cursors).doesNotHaveDuplicates().isSorted();
            for (int i = 1; i < cursors.size(); i++) {
                assertThat(cursors.get(i)).isEqualTo(cursors.get(i - 1) + 1);
            }
            Map<String, Long> last = new HashMap<>();
            for (MemoryChange ch : received) {
                if (ch.namespace().equals(ns)) {
                    assertThat(ch.version()).isEqualTo(last.getOrDefault(ch.key(), 0L) + 1);
                    last.put(ch.key(), ch.version());
                }
            }
        }
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @FunctionalInterface
    interface Workload {
        AppendWorkload.Result run() throws Exception;
    }
}
