package dev.cadre.memory;

import dev.cadre.memory.internal.ChangeSignal;
import dev.cadre.memory.internal.Dialect;
import dev.cadre.memory.internal.JdbcOutbox;
import dev.cadre.memory.internal.JdbcPrune;
import dev.cadre.memory.internal.JdbcReads;
import dev.cadre.memory.internal.JdbcWrites;
import dev.cadre.memory.internal.PgWake;
import dev.cadre.memory.internal.PollingSubscription;
import dev.cadre.memory.internal.Relay;
import dev.cadre.memory.internal.WriteRequest;
import java.util.List;
import java.util.Locale;
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

    private final Dialect dialect;
    private final JdbcReads reads;
    private final JdbcWrites writes;
    private final JdbcOutbox outbox;
    private final JdbcPrune prune;
    private final ChangeSignal wake = new ChangeSignal();
    private final ChangeSignal sequenced = new ChangeSignal();
    private final Relay relay;
    private final @Nullable PgWake pgWake;

    public JdbcSharedMemory(DataSource dataSource) {
        this(dataSource, MemoryOptions.defaults());
    }

    public JdbcSharedMemory(DataSource dataSource, MemoryOptions options) {
        this(dataSource, Dialect.of(dataSource), options, null);
    }

    /**
     * The authority under {@link HybridSharedMemory}: with a {@code publisher} the relay keeps
     * sequenced outbox rows until the publisher took them (the Redis cache and stream).
     */
    JdbcSharedMemory(
            DataSource dataSource, Dialect dialect, MemoryOptions options, JdbcOutbox.@Nullable Publisher publisher) {
        super(options);
        this.dialect = dialect;
        this.reads = new JdbcReads(dataSource);
        this.writes = new JdbcWrites(dataSource, dialect);
        this.outbox = new JdbcOutbox(dataSource, dialect);
        this.prune = new JdbcPrune(dataSource, dialect);
        reads.requireSchema();
        this.relay = new Relay(outbox, publisher, options.relayPollInterval(), wake, sequenced).start();
        this.pgWake = dialect == Dialect.POSTGRESQL ? new PgWake(dataSource, wake) : null;
    }

    @Override
    Optional<MemoryEntry> readEntry(String namespace, String key, boolean consistent) {
        return reads.latest(namespace, key).filter(v -> !v.deleted()).map(JdbcReads::toEntry);
    }

    @Override
    WriteOutcome write(WriteRequest request) {
        WriteOutcome outcome = writes.write(request);
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
        return reads.history(namespace, key);
    }

    @Override
    PruneResult removeOld(MemoryRetention retention) {
        return prune.prune(retention);
    }

    @Override
    void trimHistory(String namespace, String key, long latest, long upToVersion, @Nullable Long maxBytes) {
        prune.trim(namespace, key, latest, upToVersion, maxBytes);
    }

    @Override
    EntryPage readPage(String namespace, String prefix, @Nullable String afterKey, int limit) {
        return reads.page(namespace, prefix, afterKey, limit);
    }

    @Override
    List<MemoryChange> readChanges(long cursor, int limit) {
        relay.catchUp();
        return reads.changes(cursor, limit);
    }

    @Override
    List<NamespaceSummary> readNamespaces() {
        return reads.namespaces();
    }

    @Override
    public long latestCursor() {
        relay.catchUp();
        return reads.latestCursor();
    }

    @Override
    Subscription openSubscription(long cursor, Consumer<MemoryChange> consumer) {
        return new PollingSubscription(reads::changes, sequenced, options.relayPollInterval(), cursor, consumer);
    }

    @Override
    public MemoryHealth health() {
        String error = relay.sequenceError();
        if (error != null) {
            return MemoryHealth.degraded("relay cannot sequence changes: " + error);
        }
        return MemoryHealth.up("jdbc " + dialect.name().toLowerCase(Locale.ROOT));
    }

    @Override
    void stop() {
        relay.close();
        if (pgWake != null) {
            pgWake.close();
        }
    }

    // For the hybrid decorator: the authority's parts it reads around.

    JdbcReads reads() {
        return reads;
    }

    Relay relay() {
        return relay;
    }

    long outboxSize() {
        return outbox.size();
    }
}
