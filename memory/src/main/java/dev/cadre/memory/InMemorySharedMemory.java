package dev.cadre.memory;

import dev.cadre.memory.internal.ChangeSignal;
import dev.cadre.memory.internal.PollingSubscription;
import dev.cadre.memory.internal.WriteRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Shared memory held in this process: thread-safe, complete (history, change log, request ids) and
 * lost when the process ends. For tests, single-process tools and as the reference for the other
 * backends. Writes are serialised by one lock (they take microseconds); reads never block.
 */
public final class InMemorySharedMemory extends AbstractSharedMemory {

    private record Id(String namespace, String key) implements Comparable<Id> {
        @Override
        public int compareTo(Id o) {
            int c = namespace.compareTo(o.namespace);
            return c != 0 ? c : key.compareTo(o.key);
        }
    }

    private record Recorded(String fingerprint, WriteOutcome outcome, Instant at) {}

    private final Object writeLock = new Object();
    /** Latest version of each entry, tombstones included; readable without the lock. */
    private final ConcurrentSkipListMap<Id, MemoryVersion> latest = new ConcurrentSkipListMap<>();

    private final Map<Id, List<MemoryVersion>> histories = new HashMap<>();
    /** The change log by cursor; pruning removes the changes of removed versions, leaving gaps. */
    private final TreeMap<Long, MemoryChange> log = new TreeMap<>();

    private long lastCursor; // guarded by writeLock
    private final Map<String, Recorded> requests = new HashMap<>();
    private final ChangeSignal signal = new ChangeSignal();

    public InMemorySharedMemory() {
        this(MemoryOptions.defaults());
    }

    public InMemorySharedMemory(MemoryOptions options) {
        super(options);
    }

    @Override
    Optional<MemoryEntry> readEntry(String namespace, String key, boolean consistent) {
        MemoryVersion v = latest.get(new Id(namespace, key));
        return v == null || v.value() == null ? Optional.empty() : Optional.of(toEntry(v));
    }

    @Override
    WriteOutcome write(WriteRequest request) {
        WriteOutcome outcome;
        synchronized (writeLock) {
            if (request.requestId() != null) {
                Recorded earlier = requests.get(request.requestId());
                if (earlier != null) {
                    return replay(earlier, request);
                }
            }
            Id id = new Id(request.namespace(), request.key());
            MemoryVersion current = latest.get(id);
            long currentVersion = current == null ? 0 : current.version();
            boolean live = current != null && current.value() != null;
            boolean matches =
                    request.expectedVersion() == 0 ? !live : live && currentVersion == request.expectedVersion();
            if (matches) {
                long next = currentVersion + 1;
                MemoryVersion written = new MemoryVersion(
                        request.namespace(), request.key(), next, request.value(), request.at(), request.writer());
                latest.put(id, written);
                histories.computeIfAbsent(id, k -> new ArrayList<>()).add(written);
                lastCursor++;
                log.put(
                        lastCursor,
                        new MemoryChange(
                                lastCursor,
                                written.namespace(),
                                written.key(),
                                next,
                                written.value(),
                                written.updatedAt(),
                                written.updatedBy()));
                outcome = new WriteOutcome.Written(next);
            } else {
                outcome = new WriteOutcome.Conflict(currentVersion, live ? toEntry(current) : null);
            }
            if (request.requestId() != null) {
                requests.put(request.requestId(), new Recorded(request.fingerprint(), outcome, request.at()));
            }
        }
        if (outcome instanceof WriteOutcome.Written) {
            signal.signal();
        }
        return outcome;
    }

    private static WriteOutcome replay(Recorded earlier, WriteRequest request) {
        if (!earlier.fingerprint().equals(request.fingerprint())) {
            throw new InvalidMemoryRequestException(
                    "requestId", "'" + request.requestId() + "' was already used for a different write");
        }
        return earlier.outcome();
    }

    @Override
    List<MemoryVersion> readHistory(String namespace, String key) {
        synchronized (writeLock) {
            return List.copyOf(histories.getOrDefault(new Id(namespace, key), List.of()));
        }
    }

    @Override
    void trimHistory(String namespace, String key, long latest, long upToVersion, @Nullable Long maxBytes) {
        synchronized (writeLock) {
            List<MemoryVersion> history = histories.get(new Id(namespace, key));
            if (history == null) {
                return;
            }
            long cut = Math.min(upToVersion, latest - 1);
            if (maxBytes != null) {
                long bytes = 0;
                for (int i = history.size() - 1; i >= 0; i--) {
                    MemoryVersion v = history.get(i);
                    bytes += v.value() == null ? 0 : v.value().length();
                    if (bytes > maxBytes && v.version() < latest) {
                        cut = Math.max(cut, v.version());
                        break;
                    }
                }
            }
            long upTo = cut;
            history.removeIf(v -> v.version() <= upTo);
        }
    }

    @Override
    PruneResult removeOld(MemoryRetention retention) {
        long versions = 0;
        long bytes = 0;
        long requestIds = 0;
        synchronized (writeLock) {
            Map<Id, Long> oldestKept = new HashMap<>();
            for (var e : histories.entrySet()) {
                List<MemoryVersion> history = e.getValue();
                long latestVersion = history.getLast().version();
                boolean deleted = history.getLast().deleted();
                int remove = 0;
                // Oldest first: the first version kept ends the run (the rest are newer or among the last N).
                while (remove < history.size()) {
                    MemoryVersion v = history.get(remove);
                    if (!retention.removes(v.version(), latestVersion, deleted, v.updatedAt())) {
                        break;
                    }
                    bytes += v.value() == null ? 0 : v.value().length();
                    remove++;
                }
                history.subList(0, remove).clear();
                versions += remove;
                oldestKept.put(e.getKey(), history.getFirst().version());
            }
            log.values()
                    .removeIf(ch ->
                            ch.version() < oldestKept.getOrDefault(new Id(ch.namespace(), ch.key()), Long.MIN_VALUE));
            var requestIt = requests.values().iterator();
            while (requestIt.hasNext()) {
                if (requestIt.next().at().isBefore(retention.requestIdsBefore())) {
                    requestIt.remove();
                    requestIds++;
                }
            }
        }
        return new PruneResult(versions, requestIds, bytes);
    }

    @Override
    EntryPage readPage(String namespace, String prefix, @Nullable String afterKey, int limit) {
        String from = afterKey != null && afterKey.compareTo(prefix) >= 0 ? afterKey : prefix;
        boolean inclusive = afterKey == null || afterKey.compareTo(prefix) < 0;
        NavigableMap<Id, MemoryVersion> tail = latest.tailMap(new Id(namespace, from), inclusive);
        List<MemoryEntry> entries = new ArrayList<>();
        boolean more = false;
        for (var e : tail.entrySet()) {
            Id id = e.getKey();
            if (!id.namespace().equals(namespace) || !id.key().startsWith(prefix)) {
                break;
            }
            if (e.getValue().value() == null) {
                continue;
            }
            if (entries.size() == limit) {
                more = true;
                break;
            }
            entries.add(toEntry(e.getValue()));
        }
        return new EntryPage(entries, more ? entries.getLast().key() : null);
    }

    @Override
    List<MemoryChange> readChanges(long cursor, int limit) {
        synchronized (writeLock) {
            return log.tailMap(cursor, false).values().stream().limit(limit).toList();
        }
    }

    @Override
    List<NamespaceSummary> readNamespaces() {
        List<NamespaceSummary> out = new ArrayList<>();
        // Under the write lock: one consistent snapshot, as the SQL backends' single query gives.
        synchronized (writeLock) {
            String namespace = null;
            long entries = 0;
            long deleted = 0;
            long versions = 0;
            Instant last = Instant.MIN;
            // Ordered by namespace, then key: each namespace is one run of the map.
            for (MemoryVersion v : latest.values()) {
                if (!v.namespace().equals(namespace)) {
                    if (namespace != null) {
                        out.add(new NamespaceSummary(namespace, entries, deleted, versions, last));
                    }
                    namespace = v.namespace();
                    entries = 0;
                    deleted = 0;
                    versions = 0;
                    last = Instant.MIN;
                }
                if (v.deleted()) {
                    deleted++;
                } else {
                    entries++;
                }
                versions += v.version();
                if (v.updatedAt().isAfter(last)) {
                    last = v.updatedAt();
                }
            }
            if (namespace != null) {
                out.add(new NamespaceSummary(namespace, entries, deleted, versions, last));
            }
        }
        return out;
    }

    @Override
    public long latestCursor() {
        synchronized (writeLock) {
            return lastCursor;
        }
    }

    @Override
    Subscription openSubscription(long cursor, Consumer<MemoryChange> consumer) {
        return new PollingSubscription(this::readChanges, signal, options.relayPollInterval(), cursor, consumer);
    }

    @Override
    public MemoryHealth health() {
        return MemoryHealth.up("in-memory");
    }

    @Override
    void stop() {
        // No background work of its own: the subscriptions were all there was.
    }

    private static MemoryEntry toEntry(MemoryVersion v) {
        return new MemoryEntry(v.namespace(), v.key(), v.value(), v.version(), v.updatedAt(), v.updatedBy());
    }
}
