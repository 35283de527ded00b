package dev.cadre.memory.internal;

import dev.cadre.memory.MemoryChange;
import dev.cadre.memory.Subscription;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Delivers changes by reading the ordered change log after the subscriber's cursor, waking on a
 * local write signal and polling as a fallback (for writes of other processes).
 */
public final class PollingSubscription implements Subscription {

    /** Reads the change log after a cursor. */
    @FunctionalInterface
    public interface ChangeSource {
        List<MemoryChange> changesSince(long cursor, int limit);
    }

    private static final System.Logger LOG = System.getLogger(PollingSubscription.class.getName());

    private final ChangeSource source;
    private final ChangeSignal signal;
    private final Duration poll;
    private final Consumer<MemoryChange> consumer;
    private final Thread thread;
    private volatile long cursor;
    private volatile boolean closed;

    public PollingSubscription(
            ChangeSource source, ChangeSignal signal, Duration poll, long cursor, Consumer<MemoryChange> consumer) {
        this.source = source;
        this.signal = signal;
        this.poll = poll;
        this.cursor = cursor;
        this.consumer = consumer;
        this.thread =
                Thread.ofPlatform().daemon().name("cadre-memory-subscription").unstarted(this::run);
        thread.start();
    }

    private void run() {
        long seen = signal.generation();
        while (!closed) {
            try {
                List<MemoryChange> batch = source.changesSince(cursor, 500);
                for (MemoryChange change : batch) {
                    if (closed) {
                        return;
                    }
                    deliver(consumer, change);
                    cursor = change.cursor();
                }
                if (batch.size() < 500) {
                    seen = signal.await(seen, poll);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                LOG.log(Level.WARNING, "memory subscription could not read changes; retrying", e);
                ChangeSignal.sleepQuietly(poll.toMillis());
            }
        }
    }

    static void deliver(Consumer<MemoryChange> consumer, MemoryChange change) {
        try {
            consumer.accept(change);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "memory subscriber failed on change " + change.cursor() + "; continuing", e);
        }
    }

    @Override
    public long cursor() {
        return cursor;
    }

    @Override
    public void close() {
        // No interrupt: it would close an H2 file database if it struck during the thread's I/O
        // (NIO channels close on interrupt). The signal wakes the thread, which sees the flag.
        closed = true;
        signal.signal();
    }
}
