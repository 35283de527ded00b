package dev.cadre.memory;

import dev.cadre.memory.MemoryListener.Op;
import dev.cadre.memory.MemoryListener.Outcome;
import dev.cadre.memory.internal.Validation;
import dev.cadre.memory.internal.WriteRequest;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Validation, the update loop, the listener and the subscriptions' lifecycle wrapped once around
 * every backend, so a backend only implements storage and every backend refuses and reports the
 * same way.
 */
abstract sealed class AbstractSharedMemory implements SharedMemory
        permits InMemorySharedMemory, JdbcSharedMemory, HybridSharedMemory {

    final MemoryOptions options;
    final Validation validation;
    private final List<Subscription> subscriptions = new ArrayList<>();

    AbstractSharedMemory(MemoryOptions options) {
        this.options = options;
        this.validation = new Validation(options.policy());
    }

    abstract Optional<MemoryEntry> readEntry(String namespace, String key, boolean consistent);

    abstract WriteOutcome write(WriteRequest request);

    abstract List<MemoryVersion> readHistory(String namespace, String key);

    abstract EntryPage readPage(String namespace, String prefix, @Nullable String afterKey, int limit);

    abstract List<MemoryChange> readChanges(long cursor, int limit);

    abstract List<NamespaceSummary> readNamespaces();

    abstract PruneResult removeOld(MemoryRetention retention);

    /**
     * Removes the key's history versions up to {@code upToVersion} (0: none) and, when {@code maxBytes}
     * is not null, the oldest ones beyond those whose values (newest first) fit in it; never the
     * current version {@code latest}. A version the backend still needs (the change feed has not
     * taken it yet) stays until a later write or prune.
     */
    abstract void trimHistory(String namespace, String key, long latest, long upToVersion, @Nullable Long maxBytes);

    /** Starts delivering changes after {@code cursor} (already validated). */
    abstract Subscription openSubscription(long cursor, Consumer<MemoryChange> consumer);

    /** Stops the backend's own background work; subscriptions are already closed. */
    abstract void stop();

    @Override
    public final Subscription subscribe(long cursor, Consumer<MemoryChange> consumer) {
        validation.cursor(cursor);
        Subscription subscription = openSubscription(cursor, consumer);
        synchronized (subscriptions) {
            subscriptions.add(subscription);
        }
        return subscription;
    }

    @Override
    public final void close() {
        synchronized (subscriptions) {
            subscriptions.forEach(Subscription::close);
            subscriptions.clear();
        }
        stop();
    }

    @Override
    public final Optional<MemoryEntry> get(String namespace, String key, boolean consistent) {
        return observe(
                Op.GET,
                namespace,
                () -> {
                    validation.namespace(namespace);
                    validation.key(key);
                    return readEntry(namespace, key, consistent);
                },
                r -> r.isPresent() ? Outcome.FOUND : Outcome.NOT_FOUND);
    }

    @Override
    public final WriteOutcome put(
            String namespace,
            String key,
            String valueJson,
            long expectedVersion,
            Writer writer,
            @Nullable String requestId) {
        return put(namespace, key, () -> validation.value(valueJson), expectedVersion, writer, requestId);
    }

    @Override
    public final WriteOutcome put(
            String namespace,
            String key,
            JsonNode value,
            long expectedVersion,
            Writer writer,
            @Nullable String requestId) {
        return put(namespace, key, () -> validation.value(value), expectedVersion, writer, requestId);
    }

    /** Both forms of a value (text or tree) are validated into the same canonical text, then written. */
    private WriteOutcome put(
            String namespace,
            String key,
            Supplier<String> canonicalValue,
            long expectedVersion,
            Writer writer,
            @Nullable String requestId) {
        return observe(
                Op.PUT,
                namespace,
                () -> {
                    validation.namespace(namespace);
                    validation.key(key);
                    validation.expectedVersion(expectedVersion);
                    validation.requestId(requestId);
                    String canonical = canonicalValue.get();
                    return writeWithinBudget(
                            new WriteRequest(namespace, key, canonical, expectedVersion, writer, requestId, now()));
                },
                AbstractSharedMemory::outcomeOf);
    }

    @Override
    public final WriteOutcome delete(
            String namespace, String key, long expectedVersion, Writer writer, @Nullable String requestId) {
        return observe(
                Op.DELETE,
                namespace,
                () -> {
                    validation.namespace(namespace);
                    validation.key(key);
                    validation.deleteVersion(expectedVersion);
                    validation.requestId(requestId);
                    return writeWithinBudget(
                            new WriteRequest(namespace, key, null, expectedVersion, writer, requestId, now()));
                },
                AbstractSharedMemory::outcomeOf);
    }

    @Override
    public final WriteOutcome update(String namespace, String key, Updater updater, int maxRetries, Writer writer) {
        return observe(
                Op.UPDATE,
                namespace,
                () -> {
                    validation.namespace(namespace);
                    validation.key(key);
                    validation.maxRetries(maxRetries);
                    @Nullable
                    MemoryEntry current = readEntry(namespace, key, false).orElse(null);
                    long expected = current == null ? 0 : current.version();
                    WriteOutcome last;
                    int attempt = 0;
                    while (true) {
                        String next = validation.value(updater.apply(current));
                        last = writeWithinBudget(new WriteRequest(namespace, key, next, expected, writer, null, now()));
                        switch (last) {
                            case WriteOutcome.Written w -> {
                                return w;
                            }
                            case WriteOutcome.Conflict c -> {
                                // The conflict carries the authority's current state: no extra read.
                                current = c.current();
                                expected = current == null ? 0 : c.currentVersion();
                            }
                        }
                        if (++attempt > maxRetries) {
                            return last;
                        }
                    }
                },
                AbstractSharedMemory::outcomeOf);
    }

    /**
     * Writes, then keeps the key's history within {@link MemoryOptions#historyBudget()}: after the
     * commit and outside its transaction, so the budget never makes a write wait on more than its own
     * rows, and a failure to trim (retried by the next write of the key) never fails the write.
     */
    private WriteOutcome writeWithinBudget(WriteRequest request) {
        WriteOutcome outcome = write(request);
        if (outcome instanceof WriteOutcome.Written w) {
            MemoryHistoryBudget budget = options.historyBudget();
            long upTo = budget.removesUpTo(w.version());
            boolean bytes = budget.checksBytesAt(w.version());
            if (upTo > 0 || bytes) {
                try {
                    trimHistory(
                            request.namespace(), request.key(), w.version(), upTo, bytes ? budget.maxBytes() : null);
                } catch (MemoryStorageException e) {
                    TRIM_LOG.log(
                            System.Logger.Level.WARNING,
                            "could not trim the history of " + request.namespace() + "/" + request.key()
                                    + " to its budget (the next write retries): " + e.getMessage());
                }
            }
        }
        return outcome;
    }

    private static final System.Logger TRIM_LOG = System.getLogger(AbstractSharedMemory.class.getName());

    @Override
    public final List<MemoryVersion> history(String namespace, String key) {
        return observe(
                Op.HISTORY,
                namespace,
                () -> {
                    validation.namespace(namespace);
                    validation.key(key);
                    return readHistory(namespace, key);
                },
                r -> Outcome.OK);
    }

    @Override
    public final EntryPage list(String namespace, String prefix, @Nullable String afterKey, int limit) {
        return observe(
                Op.LIST,
                namespace,
                () -> {
                    validation.namespace(namespace);
                    validation.prefix(prefix);
                    validation.limit(limit);
                    if (afterKey != null) {
                        validation.prefix(afterKey);
                    }
                    return readPage(namespace, prefix, afterKey, limit);
                },
                r -> Outcome.OK);
    }

    @Override
    public final List<MemoryChange> changesSince(long cursor, int limit) {
        return observe(
                Op.CHANGES,
                "",
                () -> {
                    validation.cursor(cursor);
                    validation.limit(limit);
                    return readChanges(cursor, limit);
                },
                r -> Outcome.OK);
    }

    @Override
    public final List<NamespaceSummary> namespaces() {
        return observe(Op.NAMESPACES, "", this::readNamespaces, r -> Outcome.OK);
    }

    @Override
    public final PruneResult prune(MemoryRetention retention) {
        return removeOld(retention);
    }

    private Instant now() {
        // Microseconds: what PostgreSQL keeps, so every backend returns the same instant it stored.
        return options.clock().instant().truncatedTo(ChronoUnit.MICROS);
    }

    private static Outcome outcomeOf(WriteOutcome outcome) {
        return switch (outcome) {
            case WriteOutcome.Written w -> Outcome.WRITTEN;
            case WriteOutcome.Conflict c -> Outcome.CONFLICT;
        };
    }

    private <T> T observe(Op op, String namespace, Supplier<T> action, Function<T, Outcome> outcomeOf) {
        long start = System.nanoTime();
        Outcome outcome = Outcome.ERROR;
        try {
            T result = action.get();
            outcome = outcomeOf.apply(result);
            return result;
        } catch (InvalidMemoryRequestException e) {
            outcome = Outcome.INVALID;
            throw e;
        } finally {
            report(op, namespace, outcome, start);
        }
    }

    private void report(Op op, @Nullable String namespace, Outcome outcome, long start) {
        try {
            options.listener()
                    .onOperation(new MemoryListener.Operation(
                            op,
                            namespace == null ? "" : namespace,
                            outcome,
                            Duration.ofNanos(System.nanoTime() - start)));
        } catch (RuntimeException ignored) {
            // A broken metrics hook must never fail a memory operation.
        }
    }
}
