package dev.cadre.memory;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Shared state that many agents read and write at once without lost updates: every entry carries a
 * version, and every write names the version it was based on (optimistic locking). A write based on
 * an outdated version is refused with a {@link WriteOutcome.Conflict} carrying the current version
 * and value; the caller re-reads and re-decides.
 *
 * <p>Values are JSON text; they are validated and stored in canonical (compact) form. Every write,
 * deletes included, increments the version; a deleted entry is a tombstone whose version stays, so a
 * version never goes back. Writes may carry a request id: retrying a write with the same id returns
 * the first outcome instead of writing twice.
 *
 * <p>Implementations are thread-safe. Backends: {@link InMemorySharedMemory}, {@link
 * JdbcSharedMemory}, {@link HybridSharedMemory}.
 */
public interface SharedMemory extends AutoCloseable {

    /** The live entry, possibly from a cache that lags the authority by a moment. */
    default Optional<MemoryEntry> get(String namespace, String key) {
        return get(namespace, key, false);
    }

    /**
     * The live entry; with {@code consistent} straight from the authority (never stale), otherwise
     * possibly from a cache. Absent when the entry never existed or is deleted.
     */
    Optional<MemoryEntry> get(String namespace, String key, boolean consistent);

    /** {@link #put(String, String, String, long, Writer, String)} without a request id. */
    default WriteOutcome put(String namespace, String key, String valueJson, long expectedVersion, Writer writer) {
        return put(namespace, key, valueJson, expectedVersion, writer, null);
    }

    /**
     * Writes {@code valueJson} if the entry's version is {@code expectedVersion}: 0 means "only if
     * absent" (never existed, or deleted), n &gt; 0 means "only if the live entry is at version n".
     *
     * @param requestId optional idempotency key (at most 128 characters): a retry with the same id
     *     returns the first outcome
     * @throws InvalidMemoryRequestException for a bad namespace, key, value or version
     */
    WriteOutcome put(
            String namespace,
            String key,
            String valueJson,
            long expectedVersion,
            Writer writer,
            @Nullable String requestId);

    /**
     * {@link #put(String, String, String, long, Writer, String)} with the value as a JSON tree, e.g.
     * a request body a web framework has already parsed: it is canonicalised straight from the tree
     * rather than printed and parsed again, and stored as the same text its printed form would be.
     */
    WriteOutcome put(
            String namespace,
            String key,
            JsonNode value,
            long expectedVersion,
            Writer writer,
            @Nullable String requestId);

    /** {@link #delete(String, String, long, Writer, String)} without a request id. */
    default WriteOutcome delete(String namespace, String key, long expectedVersion, Writer writer) {
        return delete(namespace, key, expectedVersion, writer, null);
    }

    /**
     * Deletes the live entry at {@code expectedVersion} (&gt; 0), leaving a tombstone at the next
     * version; the written version is returned.
     */
    WriteOutcome delete(String namespace, String key, long expectedVersion, Writer writer, @Nullable String requestId);

    /**
     * Read-modify-write: reads the entry, applies {@code updater}, writes with the version read, and
     * on a conflict starts again from the conflict's current value, at most {@code maxRetries} more
     * times. Returns the last conflict when every attempt lost.
     */
    WriteOutcome update(String namespace, String key, Updater updater, int maxRetries, Writer writer);

    /** Every version of an entry, oldest first, deletes included, each with its writer. */
    List<MemoryVersion> history(String namespace, String key);

    /** Live entries of a namespace whose key starts with {@code prefix}, in key order, after {@code afterKey}. */
    EntryPage list(String namespace, String prefix, @Nullable String afterKey, int limit);

    /**
     * Every namespace that holds or held an entry (one with only tombstones included), in name
     * order, with its counts; straight from the authority.
     */
    List<NamespaceSummary> namespaces();

    /**
     * Committed changes after {@code cursor} (0: from the beginning), in cursor order, at most {@code
     * limit} (1..1000). The pull form of {@link #subscribe}: a server-sent-events endpoint can pass
     * the client's Last-Event-ID as the cursor.
     */
    List<MemoryChange> changesSince(long cursor, int limit);

    /** The cursor of the newest change, to subscribe "from now on". */
    long latestCursor();

    /**
     * Delivers every change after {@code cursor} to {@code consumer}, in cursor order, on a thread of
     * the subscription's own, each change once, until the subscription is closed. A consumer that
     * throws does not stop delivery.
     */
    Subscription subscribe(long cursor, Consumer<MemoryChange> consumer);

    /**
     * Removes old history versions and request-id records as {@code retention} says, in batches (each
     * its own transaction), and never the current version of an entry, so reads, conflicts and the
     * next version number are unchanged. Changes whose version was removed are gone from {@link
     * #changesSince} too (a subscriber that far behind resumes at the next kept change). Safe to run
     * from several instances at once.
     */
    PruneResult prune(MemoryRetention retention);

    /** Whether the backend is fully working or serving in a degraded mode. */
    MemoryHealth health();

    /** Stops background work (relays, subscriptions) this instance started; does not close the DataSource or RedisClient. */
    @Override
    void close();
}
