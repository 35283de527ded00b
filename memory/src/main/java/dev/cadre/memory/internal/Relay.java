package dev.cadre.memory.internal;

import java.lang.System.Logger.Level;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Drains the outbox on a background thread: gives new rows their change-log cursors and, for the
 * hybrid backend, publishes them (cache update + stream event) before removing them. Woken at once
 * by local writes, by {@code pg_notify} from other instances, and otherwise polls.
 */
public final class Relay implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Relay.class.getName());
    private static final int BATCH = 500;
    private static final Duration COALESCE = Duration.ofMillis(100);

    private final JdbcOutbox outbox;
    private final JdbcOutbox.@Nullable Publisher publisher;
    private final Duration poll;
    private final ChangeSignal wake;
    private final ChangeSignal sequenced;
    private final Thread thread;
    private volatile boolean closed;
    private volatile @Nullable String publishError;
    private volatile @Nullable String sequenceError;

    /**
     * @param publisher null for the JDBC backend (the change log in the database is all there is)
     * @param wake bumped by local writes and remote notifications
     * @param sequenced bumped after new changes got cursors (subscriptions wait on it)
     */
    public Relay(
            JdbcOutbox outbox,
            JdbcOutbox.@Nullable Publisher publisher,
            Duration poll,
            ChangeSignal wake,
            ChangeSignal sequenced) {
        this.outbox = outbox;
        this.publisher = publisher;
        this.poll = poll;
        this.wake = wake;
        this.sequenced = sequenced;
        this.thread = Thread.ofPlatform().daemon().name("cadre-memory-relay").unstarted(this::run);
    }

    public Relay start() {
        thread.start();
        return this;
    }

    private void run() {
        long seen = wake.generation();
        while (!closed) {
            try {
                int sequencedNow = sequence();
                boolean published = publish();
                if (sequencedNow == 0 && published) {
                    seen = wake.await(seen, poll);
                    // Let writes gather into one batch: each relay pass commits (a disk flush on
                    // PostgreSQL), so passing per write would halve the write throughput. Readers
                    // of changesSince do not wait for this: they sequence on demand.
                    Thread.sleep(COALESCE.toMillis());
                } else if (!published) {
                    // The publisher (Redis) is failing: rows stay in the outbox; retry after a pause.
                    Thread.sleep(poll.toMillis());
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                sequenceError = e.getMessage();
                LOG.log(Level.WARNING, "memory relay could not sequence the outbox; retrying", e);
                ChangeSignal.sleepQuietly(poll.toMillis());
            }
        }
    }

    /**
     * Sequences committed writes not yet in the change log, if any, so a reader of the log sees its
     * own writes without waiting for the relay's next pass (a cheap check when there are none).
     */
    public void catchUp() {
        if (outbox.hasUnsequenced()) {
            sequence();
        }
    }

    /** Gives every waiting outbox row its cursor now; returns how many. Safe from any thread. */
    public int sequence() {
        int total = 0;
        int n;
        do {
            n = outbox.sequencePending(BATCH, publisher != null);
            total += n;
        } while (n == BATCH);
        sequenceError = null;
        if (total > 0) {
            sequenced.signal();
        }
        return total;
    }

    /** Publishes every sequenced row; false when the publisher failed (rows stay for a retry). */
    public boolean publish() {
        JdbcOutbox.Publisher p = publisher;
        if (p == null) {
            return true;
        }
        try {
            int n;
            do {
                n = outbox.publishSequenced(BATCH, p);
            } while (n == BATCH);
            publishError = null;
            return true;
        } catch (Exception e) {
            if (closed) {
                return false;
            }
            if (publishError == null) {
                LOG.log(Level.WARNING, "memory relay could not publish changes; they stay in the outbox: " + e);
            }
            publishError = String.valueOf(e.getMessage());
            return false;
        }
    }

    /** Why the last publish failed, or null. */
    public @Nullable String publishError() {
        return publishError;
    }

    public @Nullable String sequenceError() {
        return sequenceError;
    }

    @Override
    public void close() {
        // No interrupt: it would close an H2 file database if it struck during the relay's I/O
        // (NIO channels close on interrupt). The wake signal ends its wait; it sees the flag.
        closed = true;
        wake.signal();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
