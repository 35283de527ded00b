package dev.cadre.memory.internal;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Wakes the relays of other instances through PostgreSQL {@code LISTEN/NOTIFY}. Notifications are
 * sent after commit and at most every {@link #MIN_GAP} per instance: NOTIFY serialises committing
 * transactions on a global lock, so one per write would cap write throughput; local relays are woken
 * in-process instead, and the relay's polling covers anything missed.
 */
public final class PgWake implements AutoCloseable {

    public static final String CHANNEL = "cadre_memory_outbox";
    private static final Duration MIN_GAP = Duration.ofMillis(100);
    private static final System.Logger LOG = System.getLogger(PgWake.class.getName());

    private final DataSource dataSource;
    private final ChangeSignal wake;
    private final AtomicLong lastNotify = new AtomicLong();
    private final Thread listener;
    private volatile boolean closed;

    public PgWake(DataSource dataSource, ChangeSignal wake) {
        this.dataSource = dataSource;
        this.wake = wake;
        this.listener = Thread.ofPlatform().daemon().name("cadre-memory-listen").unstarted(this::listen);
        listener.start();
    }

    /** Tells other instances that the outbox has rows, unless this instance did so a moment ago. */
    public void notifyOthers() {
        long now = System.nanoTime();
        long last = lastNotify.get();
        if (now - last < MIN_GAP.toNanos() || !lastNotify.compareAndSet(last, now)) {
            return;
        }
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            // NOTIFY is delivered at commit: make sure there is one, whatever the pool's default.
            c.setAutoCommit(true);
            st.execute("SELECT pg_notify('" + CHANNEL + "', '')");
        } catch (SQLException e) {
            // Only a wake-up: the relays poll anyway.
            LOG.log(Level.DEBUG, "pg_notify failed", e);
        }
    }

    private void listen() {
        while (!closed) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true); // LISTEN takes effect at commit
                try (Statement st = c.createStatement()) {
                    st.execute("LISTEN " + CHANNEL);
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] notifications = pg.getNotifications(1_000);
                    if (notifications != null && notifications.length > 0) {
                        wake.signal();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                LOG.log(Level.DEBUG, "memory LISTEN connection failed; reconnecting", e);
                ChangeSignal.sleepQuietly(1_000);
            }
        }
    }

    @Override
    public void close() {
        // No join and no interrupt: the listener sees the flag within a second (its wait time)
        // and hands its connection back.
        closed = true;
    }
}
