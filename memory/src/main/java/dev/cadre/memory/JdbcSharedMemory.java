package dev.cadre.memory;

import dev.cadre.memory.internal.ChangeSignal;
import dev.cadre.memory.internal.Dialect;
import dev.cadre.memory.internal.JdbcStore;
import dev.cadre.memory.internal.PgWake;
import dev.cadre.memory.internal.PollingSubscription;
import dev.cadre.memory.internal.Relay;
import dev.cadre.memory.internal.WriteRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Shared memory in a SQL database through JDBC: PostgreSQL in production, H2 (e.g. {@code
 * jdbc:h2:file:./data/cadre;MODE=PostgreSQL}) for the embedded default. The compare-and-set is a
 * conditional {@code UPDATE} in the database, written together with a history row and an outbox row
 * in one transaction; a background relay turns the outbox into the ordered change log read by
 * {@link #changesSince} and {@link #subscribe}.
 *
 * <p>Run {@link MemorySchema#migrate} on the DataSource first. Give it a pooled DataSource (each
 * operation borrows a connection; on PostgreSQL one more is held for LISTEN). {@link #close()} stops
 * the relay; the DataSource stays open.
 */
public final class JdbcSharedMemory extends AbstractSharedMemory {

    private final JdbcStore store;
    private final ChangeSignal wake = new ChangeSignal();
    private final ChangeSignal sequenced = new ChangeSignal();
    private final Relay relay;
    private final @Nullable PgWake pgWake;
    private final List<Subscription> subscriptions = new ArrayList<>();

    public JdbcSharedMemory(DataSource dataSource) {
        this(dataSource, MemoryOptions.defaults());
    }

    public JdbcSharedMemory(DataSource dataSource, MemoryOptions options) {
        super(options);
        this.store = new JdbcStore(dataSource);
        store.requireSchema();
        this.relay = new Relay(store, null, options.relayPollInterval(), wake, sequenced).start();
        this.pgWake = store.dialect() == Dialect.POSTGRESQL ? new PgWake(dataSource, wake) : null;
    }

    @Override
    Optional<MemoryEntry> readEntry(String namespace, String key, boolean consistent) {
        return store.latest(namespace, key).filter(v -> !v.deleted()).map(JdbcStore::toEntry);
    }

    @Override
    WriteOutcome write(WriteRequest request) {
        WriteOutcome outcome = store.write(request);
        if (outcome instanceof WriteOutcome.Written) {
            wake.signal();
            if (pgWake != null) {
                pgWake.notifyOthers();
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
        var subscription =
                new PollingSubscription(store::changes, sequenced, options.relayPollInterval(), cursor, consumer);
        synchronized (subscriptions) {
            subscriptions.add(subscription);
        }
        return subscription;
    }

    @Override
    public MemoryHealth health() {
        String error = relay.sequenceError();
        if (error != null) {
            return MemoryHealth.degraded("relay cannot sequence changes: " + error);
        }
        return MemoryHealth.up("jdbc " + store.dialect().name().toLowerCase(java.util.Locale.ROOT));
    }

    @Override
    public void close() {
        synchronized (subscriptions) {
            subscriptions.forEach(Subscription::close);
            subscriptions.clear();
        }
        relay.close();
        if (pgWake != null) {
            pgWake.close();
        }
    }
}
