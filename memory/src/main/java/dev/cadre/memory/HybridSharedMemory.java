package dev.cadre.memory;

import dev.cadre.memory.internal.ChangeSignal;
import dev.cadre.memory.internal.Dialect;
import dev.cadre.memory.internal.JdbcStore;
import dev.cadre.memory.internal.PgWake;
import dev.cadre.memory.internal.RedisCache;
import dev.cadre.memory.internal.Relay;
import dev.cadre.memory.internal.StreamSubscription;
import dev.cadre.memory.internal.WriteRequest;
import io.lettuce.core.RedisClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Production shared memory: PostgreSQL is the authority and does the compare-and-set (as {@link
 * JdbcSharedMemory}); Redis is a version-guarded read cache and carries change events on a stream.
 *
 * <ul>
 *   <li>Write: conditional update + history + outbox in one PostgreSQL transaction; after commit a
 *       Lua {@code set_if_newer} refreshes the cache.
 *   <li>Relay: a background thread takes outbox rows ({@code FOR UPDATE SKIP LOCKED}, woken by
 *       {@code pg_notify} and local writes, polling as fallback), gives them change-log cursors,
 *       applies {@code set_if_newer} and {@code XADD}s them to the stream, then deletes them:
 *       at-least-once, in cursor order.
 *   <li>Read: Redis hit, else PostgreSQL then {@code set_if_newer}; {@code consistent} reads go to
 *       PostgreSQL. A cached value may lag a moment, which can only cause a conflict and a re-read.
 *   <li>Redis down: everything is served from PostgreSQL, {@link #health()} says {@code DEGRADED},
 *       and the instance returns to Redis by itself once it answers; the outbox keeps every change
 *       until it is published.
 * </ul>
 *
 * <p>Run {@link MemorySchema#migrate} first. The DataSource must be PostgreSQL; the RedisClient is
 * the application's (this class opens its own connections on it and closes them on {@link
 * #close()}).
 */
public final class HybridSharedMemory extends AbstractSharedMemory {

    private final JdbcStore store;
    private final RedisCache cache;
    private final ChangeSignal wake = new ChangeSignal();
    private final ChangeSignal sequenced = new ChangeSignal();
    private final Relay relay;
    private final PgWake pgWake;
    private final List<Subscription> subscriptions = new ArrayList<>();

    public HybridSharedMemory(DataSource dataSource, RedisClient redis) {
        this(dataSource, redis, MemoryOptions.defaults());
    }

    public HybridSharedMemory(DataSource dataSource, RedisClient redis, MemoryOptions options) {
        super(options);
        this.store = new JdbcStore(dataSource);
        if (store.dialect() != Dialect.POSTGRESQL) {
            throw new IllegalArgumentException(
                    "HybridSharedMemory needs PostgreSQL (for SKIP LOCKED and LISTEN/NOTIFY); use JdbcSharedMemory on "
                            + store.dialect());
        }
        store.requireSchema();
        this.cache = new RedisCache(redis, options);
        this.relay = new Relay(store, cache::publish, options.relayPollInterval(), wake, sequenced).start();
        this.pgWake = new PgWake(dataSource, wake);
    }

    @Override
    Optional<MemoryEntry> readEntry(String namespace, String key, boolean consistent) {
        if (!consistent) {
            switch (cache.get(namespace, key)) {
                case RedisCache.Cached.Hit hit -> {
                    return Optional.of(hit.entry());
                }
                case RedisCache.Cached.Absent absent -> {
                    return Optional.empty();
                }
                case RedisCache.Cached.Miss miss -> {}
            }
        }
        // The epoch is taken before the read so a fill read before a flush cannot land after it.
        String epoch = cache.epochForFill();
        Optional<MemoryVersion> latest = store.latest(namespace, key);
        RedisCache.fill(cache, epoch, namespace, key, latest.orElse(null));
        return latest.filter(v -> !v.deleted()).map(JdbcStore::toEntry);
    }

    @Override
    WriteOutcome write(WriteRequest request) {
        String epoch = cache.epochForFill();
        WriteOutcome outcome = store.write(request);
        switch (outcome) {
            case WriteOutcome.Written w -> {
                wake.signal();
                pgWake.notifyOthers();
                cache.setIfNewer(
                        epoch,
                        request.namespace(),
                        request.key(),
                        w.version(),
                        request.value(),
                        request.at(),
                        request.writer());
            }
            case WriteOutcome.Conflict c -> {
                // The conflict carries the authority's state: refresh a stale cache with it.
                MemoryEntry current = c.current();
                if (current == null) {
                    cache.setIfNewer(epoch, request.namespace(), request.key(), c.currentVersion(), null, null, null);
                } else {
                    cache.setIfNewer(
                            epoch,
                            current.namespace(),
                            current.key(),
                            current.version(),
                            current.value(),
                            current.updatedAt(),
                            current.updatedBy());
                }
            }
        }
        return outcome;
    }

    @Override
    List<MemoryVersion> readHistory(String namespace, String key) {
        return store.history(namespace, key);
    }

    @Override
    EntryPage readPage(String namespace, String prefix, @Nullable String afterKey, int limit) {
        return store.page(namespace, prefix, afterKey, limit);
    }

    @Override
    List<MemoryChange> readChanges(long cursor, int limit) {
        relay.catchUp();
        return store.changes(cursor, limit);
    }

    @Override
    public long latestCursor() {
        relay.catchUp();
        return store.latestCursor();
    }

    @Override
    public Subscription subscribe(long cursor, Consumer<MemoryChange> consumer) {
        validation.cursor(cursor);
        var subscription = new StreamSubscription(
                cache, store::changes, store::latestCursor, options.relayPollInterval(), cursor, consumer);
        synchronized (subscriptions) {
            subscriptions.add(subscription);
        }
        return subscription;
    }

    @Override
    public MemoryHealth health() {
        cache.probe();
        String redis = cache.failure();
        String publish = relay.publishError();
        String sequence = relay.sequenceError();
        if (sequence != null) {
            return MemoryHealth.degraded("relay cannot sequence changes: " + sequence);
        }
        if (redis != null || publish != null) {
            return MemoryHealth.degraded(
                    "Redis unavailable, serving from PostgreSQL: " + (redis != null ? redis : publish));
        }
        return MemoryHealth.up("hybrid postgresql + redis");
    }

    /** Changes committed but not yet published to Redis (the relay's backlog). */
    public long unpublishedChanges() {
        return store.outboxSize();
    }

    @Override
    public void close() {
        synchronized (subscriptions) {
            subscriptions.forEach(Subscription::close);
            subscriptions.clear();
        }
        relay.close();
        pgWake.close();
        cache.close();
    }
}
