package dev.cadre.memory.internal;

import dev.cadre.memory.MemoryChange;
import dev.cadre.memory.MemoryEntry;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.MemoryVersion;
import dev.cadre.memory.Writer;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The hybrid backend's Redis side: a version-guarded cache of entries and the change stream.
 *
 * <p>Every cache write goes through the Lua {@code set_if_newer}: it replaces a cached entry only
 * with a higher version, so a late, stale fill or reordered updates never overwrite newer data. A
 * cache write also carries the cache <em>epoch</em> its caller saw before reading PostgreSQL; a
 * flushed or restarted Redis has lost the epoch key and refuses such writes until a new epoch is set,
 * so a fill read before the flush cannot land after it.
 *
 * <p>When Redis fails, the cache reports itself unavailable for a second and callers go straight to
 * PostgreSQL; the next call after that pause probes Redis again, so recovery needs no one's help.
 */
public final class RedisCache implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisCache.class.getName());
    private static final long RETRY_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final String SET_IF_NEWER_BODY = """
            local cur = redis.call('HGET', KEYS[1], 'v')
            if cur and tonumber(cur) >= tonumber(ARGV[2]) then return 0 end
            redis.call('DEL', KEYS[1])
            if ARGV[3] == '1' then
              redis.call('HSET', KEYS[1], 'v', ARGV[2], 'e', ARGV[2] .. '\t' .. ARGV[5] .. '\t' .. ARGV[6] .. '\t' .. ARGV[7] .. '\t' .. ARGV[8] .. '\t' .. ARGV[4])
            else
              redis.call('HSET', KEYS[1], 'v', ARGV[2], 'e', ARGV[2])
            end
            redis.call('PEXPIRE', KEYS[1], ARGV[9])
            return 1
            """;

    /** set_if_newer(key, version, value): KEYS entry, epoch; ARGV epoch, version, live, value, at, writer…, ttl. */
    static final String SET_IF_NEWER = "local function set()\n" + SET_IF_NEWER_BODY + "end\n"
            + "if redis.call('GET', KEYS[2]) ~= ARGV[1] then return -1 end\nreturn set()\n";

    /**
     * The relay's publish of one change: set_if_newer, then XADD with the change's cursor as the
     * stream id. A duplicate (the id is not above the stream's top: already published) is ignored.
     */
    static final String PUBLISH = "local function set()\n" + SET_IF_NEWER_BODY + "end\n"
            + "local r = -1\n"
            + "if redis.call('GET', KEYS[2]) == ARGV[1] then r = set() end\n"
            + "redis.pcall('XADD', KEYS[3], 'MAXLEN', '~', ARGV[11], ARGV[10], 'ns', ARGV[12], 'k', ARGV[13],"
            + " 'v', ARGV[2], 'd', ARGV[3], 'val', ARGV[4], 'at', ARGV[5], 'wk', ARGV[6], 'wi', ARGV[7], 'wr', ARGV[8])\n"
            + "return r\n";

    private final RedisClient client;
    private final MemoryOptions options;
    private final String prefix;
    private final String epochKey;
    private final String streamKey;
    private volatile @Nullable StatefulRedisConnection<String, String> connection;
    private volatile @Nullable String epoch;
    private volatile @Nullable String setIfNewerSha;
    private volatile @Nullable String publishSha;
    private volatile long retryAt;
    private volatile @Nullable String failure;

    public RedisCache(RedisClient client, MemoryOptions options) {
        this.client = client;
        this.options = options;
        this.prefix = options.redisPrefix();
        this.epochKey = prefix + ":epoch";
        this.streamKey = prefix + ":changes";
    }

    public String streamKey() {
        return streamKey;
    }

    /** Null while Redis is known to be failing (and for a pause after), else why it last failed or null. */
    public @Nullable String failure() {
        return failure;
    }

    /**
     * After a failure, asks Redis whether it is back once the pause is over (so health recovers
     * without waiting for traffic); returns whether Redis is usable now.
     */
    public boolean probe() {
        if (failure == null) {
            return true;
        }
        if (!available()) {
            return false;
        }
        call(c -> c.sync().ping());
        return failure == null;
    }

    public boolean available() {
        return failure == null || System.nanoTime() - retryAt >= 0;
    }

    // ---------------------------------------------------------------- cache

    /** What the cache knows about an entry. */
    public sealed interface Cached {
        /** A cached live entry. */
        record Hit(MemoryEntry entry) implements Cached {}

        /** Cached as absent (never existed, or deleted at that version). */
        record Absent(long version) implements Cached {}

        /** Not cached, or Redis unavailable. */
        record Miss() implements Cached {}
    }

    public Cached get(String namespace, String key) {
        // One field, one bulk reply: "version" when absent, else "version TAB at TAB writer kind TAB
        // writer id TAB writer run TAB value". Canonical JSON and writer names hold no tab.
        String e = call(c -> c.sync().hget(entryKey(namespace, key), "e"));
        if (e == null) {
            return new Cached.Miss();
        }
        int t1 = e.indexOf('\t');
        if (t1 < 0) {
            return new Cached.Absent(Long.parseLong(e));
        }
        int t2 = e.indexOf('\t', t1 + 1);
        int t3 = e.indexOf('\t', t2 + 1);
        int t4 = e.indexOf('\t', t3 + 1);
        int t5 = e.indexOf('\t', t4 + 1);
        return new Cached.Hit(new MemoryEntry(
                namespace,
                key,
                e.substring(t5 + 1),
                Long.parseLong(e, 0, t1, 10),
                fromMicros(e.substring(t1 + 1, t2)),
                Writer.of(e.substring(t2 + 1, t3), e.substring(t3 + 1, t4), e.substring(t4 + 1, t5))));
    }

    /**
     * The epoch to pass to {@link #setIfNewer}; read it <em>before</em> reading PostgreSQL. Null when
     * Redis is unavailable (then skip the cache write).
     */
    public @Nullable String epochForFill() {
        String e = epoch;
        if (e != null || !available()) {
            return e;
        }
        return call(c -> {
            // SET NX then GET: every instance converges on the first epoch set after a flush.
            String fresh = UUID.randomUUID().toString();
            c.sync().set(epochKey, fresh, io.lettuce.core.SetArgs.Builder.nx());
            String current = c.sync().get(epochKey);
            epoch = current;
            return current;
        });
    }

    /**
     * set_if_newer with the state read from PostgreSQL: {@code value} null for absent (version 0
     * if it never existed). Best effort and asynchronous: the caller does not wait for Redis (a
     * later command on the same connection still sees it, Redis runs them in order); a failure
     * only marks Redis unavailable, and the relay applies every committed change again anyway.
     */
    public void setIfNewer(
            @Nullable String epochSeen,
            String namespace,
            String key,
            long version,
            @Nullable String value,
            @Nullable Instant at,
            @Nullable Writer writer) {
        if (epochSeen == null || !available()) {
            return;
        }
        String[] keys = {entryKey(namespace, key), epochKey};
        String[] args = args(epochSeen, version, value, at, writer);
        try {
            StatefulRedisConnection<String, String> c = connect();
            String sha = setIfNewerSha;
            if (sha == null) {
                sha = c.sync().scriptLoad(SET_IF_NEWER);
                setIfNewerSha = sha;
            }
            RedisFuture<Long> future = c.async().evalsha(sha, ScriptOutputType.INTEGER, keys, args);
            future.whenComplete((result, error) -> {
                if (error != null) {
                    if (error instanceof RedisNoScriptException) {
                        setIfNewerSha = null; // a restarted Redis forgot the script
                    } else {
                        failed(error instanceof Exception e ? e : new IllegalStateException(error));
                    }
                } else if (result != null && result == -1) {
                    epoch = null; // Redis lost the epoch (flushed/restarted): next fill sets a new one
                }
            });
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    // ---------------------------------------------------------------- stream

    /** The relay's publish: set_if_newer + XADD for every change, pipelined; throws if Redis fails. */
    public void publish(List<MemoryChange> changes) throws Exception {
        String e = epochForFill();
        if (e == null) {
            throw new IllegalStateException("Redis unavailable: " + failure);
        }
        StatefulRedisConnection<String, String> c = connect();
        try {
            RedisAsyncCommands<String, String> async = c.async();
            String sha = publishSha;
            if (sha == null) {
                sha = c.sync().scriptLoad(PUBLISH);
                publishSha = sha;
            }
            List<RedisFuture<Long>> futures = new ArrayList<>(changes.size());
            for (MemoryChange ch : changes) {
                String[] keys = {entryKey(ch.namespace(), ch.key()), epochKey, streamKey};
                String[] base = args(e, ch.version(), ch.value(), ch.updatedAt(), ch.updatedBy());
                String[] args = new String[base.length + 4];
                System.arraycopy(base, 0, args, 0, base.length);
                args[base.length] = ch.cursor() + "-0";
                args[base.length + 1] = Long.toString(options.streamMaxLength());
                args[base.length + 2] = ch.namespace();
                args[base.length + 3] = ch.key();
                futures.add(async.evalsha(sha, ScriptOutputType.INTEGER, keys, args));
            }
            long timeout = options.redisTimeout().toMillis() + changes.size();
            if (!LettuceFutures.awaitAll(timeout, TimeUnit.MILLISECONDS, futures.toArray(new RedisFuture<?>[0]))) {
                throw new IllegalStateException(
                        "Redis did not answer " + changes.size() + " publishes in " + timeout + " ms");
            }
            for (RedisFuture<Long> f : futures) {
                if (f.get() == -1) {
                    epoch = null;
                }
            }
            succeeded();
        } catch (RedisCommandInterruptedException ex) {
            throw ex; // the relay is shutting down: Redis is not at fault
        } catch (Exception ex) {
            Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            if (cause instanceof RedisNoScriptException) {
                publishSha = null; // Redis restarted and forgot the script: load it on the retry
            }
            failed(ex);
            throw ex;
        }
    }

    /** Parses one stream entry (written by {@link #PUBLISH}) back into a change. */
    public static MemoryChange change(StreamMessage<String, String> message) {
        Map<String, String> f = message.getBody();
        String id = message.getId();
        long cursor = Long.parseLong(id.substring(0, id.indexOf('-')));
        boolean live = "1".equals(f.get("d"));
        return new MemoryChange(
                cursor,
                f.get("ns"),
                f.get("k"),
                Long.parseLong(f.get("v")),
                live ? f.get("val") : null,
                fromMicros(f.get("at")),
                Writer.of(f.get("wk"), f.get("wi"), f.getOrDefault("wr", "")));
    }

    /** A connection of its own (for blocking XREAD), with a timeout longer than {@code block}. */
    public StatefulRedisConnection<String, String> dedicatedConnection(Duration block) {
        StatefulRedisConnection<String, String> c = client.connect();
        c.setTimeout(block.plus(options.redisTimeout()).plusSeconds(1));
        return c;
    }

    // ---------------------------------------------------------------- plumbing

    private String[] args(
            String epochSeen, long version, @Nullable String value, @Nullable Instant at, @Nullable Writer writer) {
        String run = writer == null ? null : writer.run();
        return new String[] {
            epochSeen,
            Long.toString(version),
            value == null ? "0" : "1",
            value == null ? "" : value,
            at == null ? "" : Long.toString(toMicros(at)),
            writer == null ? "" : writer.kind(),
            writer == null ? "" : writer.id(),
            run == null ? "" : run,
            Long.toString(options.cacheTtl().toMillis())
        };
    }

    public static void fill(
            RedisCache cache, @Nullable String epochSeen, String ns, String key, @Nullable MemoryVersion v) {
        if (v == null) {
            cache.setIfNewer(epochSeen, ns, key, 0, null, null, null);
        } else {
            cache.setIfNewer(epochSeen, ns, key, v.version(), v.value(), v.updatedAt(), v.updatedBy());
        }
    }

    private <T> @Nullable T call(Function<StatefulRedisConnection<String, String>, T> command) {
        if (!available()) {
            return null;
        }
        try {
            T result = command.apply(connect());
            succeeded();
            return result;
        } catch (RuntimeException e) {
            failed(e);
            return null;
        }
    }

    private StatefulRedisConnection<String, String> connect() {
        StatefulRedisConnection<String, String> c = connection;
        if (c == null) {
            synchronized (this) {
                c = connection;
                if (c == null) {
                    c = client.connect();
                    c.setTimeout(options.redisTimeout());
                    connection = c;
                }
            }
        }
        return c;
    }

    private void succeeded() {
        if (failure != null) {
            LOG.log(Level.INFO, "Redis answers again: memory cache and events back in use");
            failure = null;
        }
    }

    private void failed(Exception e) {
        if (failure == null) {
            LOG.log(Level.WARNING, "Redis failed, memory serves from PostgreSQL until it answers again: " + e);
        }
        failure = e.getClass().getSimpleName() + ": " + e.getMessage();
        retryAt = System.nanoTime() + RETRY_PAUSE_NANOS;
    }

    private String entryKey(String namespace, String key) {
        // Namespaces cannot contain ':', so this is unambiguous.
        return prefix + ":e:" + namespace + ":" + key;
    }

    private static long toMicros(Instant at) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, at);
    }

    private static Instant fromMicros(String micros) {
        return Instant.EPOCH.plus(Long.parseLong(micros), ChronoUnit.MICROS);
    }

    @Override
    public void close() {
        StatefulRedisConnection<String, String> c = connection;
        if (c != null) {
            c.close();
        }
    }
}
