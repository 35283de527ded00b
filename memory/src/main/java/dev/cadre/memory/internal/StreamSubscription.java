package dev.cadre.memory.internal;

import dev.cadre.memory.MemoryChange;
import dev.cadre.memory.Subscription;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A hybrid subscriber: reads the Redis stream after its cursor ({@code XREAD BLOCK}), skips
 * duplicates (a change whose cursor it already passed: same key and version), and resyncs from the
 * PostgreSQL change log whenever the stream has a gap (trimmed, flushed, Redis restarted, or a
 * publish still pending) or Redis is down. Delivery is therefore complete and in cursor order.
 */
public final class StreamSubscription implements Subscription {

    private static final System.Logger LOG = System.getLogger(StreamSubscription.class.getName());
    private static final Duration BLOCK = Duration.ofMillis(500);
    private static final int BATCH = 500;

    private final RedisCache cache;
    private final PollingSubscription.ChangeSource log;
    private final LongSupplier latestCursor;
    private final Duration poll;
    private final Consumer<MemoryChange> consumer;
    private final Thread thread;
    private volatile long cursor;
    private volatile boolean closed;
    private volatile long resyncs;
    private @Nullable StatefulRedisConnection<String, String> connection;

    public StreamSubscription(
            RedisCache cache,
            PollingSubscription.ChangeSource log,
            LongSupplier latestCursor,
            Duration poll,
            long cursor,
            Consumer<MemoryChange> consumer) {
        this.cache = cache;
        this.log = log;
        this.latestCursor = latestCursor;
        this.poll = poll;
        this.cursor = cursor;
        this.consumer = consumer;
        this.thread = Thread.ofPlatform().daemon().name("cadre-memory-stream").unstarted(this::run);
        thread.start();
    }

    private void run() {
        long lastCheck = System.nanoTime();
        while (!closed) {
            try {
                if (!cache.available()) {
                    resync(); // Redis is down: PostgreSQL's change log is the source
                    Thread.sleep(poll.toMillis());
                    continue;
                }
                List<StreamMessage<String, String>> messages = connection()
                        .sync()
                        .xread(
                                XReadArgs.Builder.block(BLOCK).count(BATCH),
                                XReadArgs.StreamOffset.from(cache.streamKey(), cursor + "-0"));
                for (StreamMessage<String, String> message : messages) {
                    if (closed) {
                        return;
                    }
                    MemoryChange change = RedisCache.change(message);
                    if (change.cursor() <= cursor) {
                        continue; // duplicate of a change already delivered
                    }
                    if (change.cursor() > cursor + 1) {
                        resync(); // gap: the stream lost or has not yet got some changes
                        if (change.cursor() != cursor + 1) {
                            continue;
                        }
                    }
                    PollingSubscription.deliver(consumer, change);
                    cursor = change.cursor();
                }
                // A quiet stream may hide changes it never got (Redis flushed before publish):
                // now and then compare with the authority.
                if (messages.isEmpty() || System.nanoTime() - lastCheck > poll.toNanos()) {
                    lastCheck = System.nanoTime();
                    if (latestCursor.getAsLong() > cursor) {
                        resync();
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                LOG.log(Level.DEBUG, "memory stream subscription failed; resyncing from PostgreSQL", e);
                dropConnection();
                try {
                    resync();
                } catch (RuntimeException again) {
                    LOG.log(Level.WARNING, "memory subscription cannot read changes; retrying", again);
                }
                ChangeSignal.sleepQuietly(poll.toMillis());
            }
        }
        dropConnection();
    }

    private void resync() {
        resyncs++;
        List<MemoryChange> batch;
        do {
            batch = log.changesSince(cursor, BATCH);
            for (MemoryChange change : batch) {
                if (closed) {
                    return;
                }
                PollingSubscription.deliver(consumer, change);
                cursor = change.cursor();
            }
        } while (batch.size() == BATCH);
    }

    private StatefulRedisConnection<String, String> connection() {
        StatefulRedisConnection<String, String> c = connection;
        if (c == null) {
            c = cache.dedicatedConnection(BLOCK);
            connection = c;
        }
        return c;
    }

    private void dropConnection() {
        StatefulRedisConnection<String, String> c = connection;
        connection = null;
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // closing a broken connection
            }
        }
    }

    /** How often this subscriber read from PostgreSQL instead of the stream (for tests and health). */
    public long resyncs() {
        return resyncs;
    }

    @Override
    public long cursor() {
        return cursor;
    }

    @Override
    public void close() {
        // No interrupt (it could strike inside a JDBC call): the blocking read ends within
        // its block time and the thread sees the flag.
        closed = true;
    }
}
