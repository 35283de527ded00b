package dev.cadre.memory;

import dev.cadre.memory.internal.Dialect;
import dev.cadre.memory.internal.JdbcReads;
import dev.cadre.memory.internal.RedisCache;
import dev.cadre.memory.internal.StreamSubscription;
import dev.cadre.memory.internal.WriteRequest;
import io.lettuce.core.RedisClient;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Production shared memory: a {@link JdbcSharedMemory} on PostgreSQL is the authority and does the
 * compare-and-set; this class decorates it with Redis as a version-guarded read cache and a stream
 * of change events. Everything but the cached read, the cache refresh after a write and the
 * stream subscription is the authority's own code.
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

    private final JdbcSharedMemory authority;
    private final JdbcReads reads;
    private final RedisCache cache;

    public HybridSharedMemory(DataSource dataSource, RedisClient redis) {
        this(dataSource, redis, MemoryOptions.defaults());
    }

    public HybridSharedMemory(DataSource dataSource, RedisClient redis, MemoryOptions options) {
        super(options);
        Dialect dialect = Dialect.of(dataSource);
        if (dialect != Dialect.POSTGRESQL) {
            throw new IllegalArgumentException(
                    "HybridSharedMemory needs PostgreSQL (for SKIP LOCKED and LISTEN/NOTIFY); use JdbcSharedMemory on "
                            + dialect);
        }
        this.cache = new RedisCache(redis, options);
        try {
            this.authority = new JdbcSharedMemory(dataSource, dialect, options, cache::publish);
        } catch (RuntimeException e) {
            cache.close(); // e.g. the schema is missing: leave no Redis connection behind
            throw e;
        }
        this.reads = authority.reads();
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
        Optional<MemoryVersion> latest = reads.latest(namespace, key);
        RedisCache.fill(cache, epoch, namespace, key, latest.orElse(null));
        return latest.filter(v -> !v.deleted()).map(JdbcReads::toEntry);
    }

    @Override
    WriteOutcome write(WriteRequest request) {
        String epoch = cache.epochForFill();
        WriteOutcome outcome = authority.write(request);
        switch (outcome) {
            case WriteOutcome.Written w ->
                cache.setIfNewer(
                        epoch,
                        request.namespace(),
                        request.key(),
                        w.version(),
                        request.value(),
                        request.at(),
                        request.writer());
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
        return authority.readHistory(namespace, key);
    }

    @Override
    void trimHistory(String namespace, String key, long latest, long upToVersion, @Nullable Long maxBytes) {
        // History lives in PostgreSQL only; the cache holds latest versions, which stay.
        authority.trimHistory(namespace, key, latest, upToVersion, maxBytes);
    }

    @Override
    PruneResult removeOld(MemoryRetention retention) {
        // Only history and request ids go; the cache holds latest versions only, which are kept.
        return authority.removeOld(retention);
    }

    @Override
    EntryPage readPage(String namespace, String prefix, @Nullable String afterKey, int limit) {
        return authority.readPage(namespace, prefix, afterKey, limit);
    }

    @Override
    List<MemoryChange> readChanges(long cursor, int limit) {
        return authority.readChanges(cursor, limit);
    }

    @Override
    List<NamespaceSummary> readNamespaces() {
        return authority.readNamespaces();
    }

    @Override
    public long latestCursor() {
        return authority.latestCursor();
    }

    @Override
    Subscription openSubscription(long cursor, Consumer<MemoryChange> consumer) {
        return new StreamSubscription(
                cache, reads::changes, reads::latestCursor, options.relayPollInterval(), cursor, consumer);
    }

    @Override
    public MemoryHealth health() {
        cache.probe();
        String redis = cache.failure();
        String publish = authority.relay().publishError();
        String sequence = authority.relay().sequenceError();
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
        return authority.outboxSize();
    }

    @Override
    void stop() {
        authority.close();
        cache.close();
    }
}
