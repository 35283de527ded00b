package dev.cadre.platform.recall;

import dev.cadre.memory.MemoryChange;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.Subscription;
import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.incidents.IncidentTimeline;
import dev.cadre.platform.incidents.TimelineEntry;
import dev.cadre.platform.incidents.TimelineKind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Keeps the {@link IncidentIndex} in step with the incidents in the database and answers "seen this
 * before?". On start it rebuilds the index from every resolved incident, then follows shared
 * memory's change stream (which carries other instances' writes too, on every backend), so a
 * resolution anywhere is searchable here within a poll; a periodic reconciliation re-reads the
 * incidents and repairs whatever a missed change left behind. The database stays the one copy.
 */
public final class RecallService implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RecallService.class);

    private final IncidentService incidents;
    private final SharedMemory memory;
    private final JsonMapper json;
    private final IncidentIndex index;
    private final Clock clock;
    private final Duration reconcileEvery;
    private volatile boolean closed;
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("cadre-recall").daemon().factory());
    private final AtomicReference<@Nullable Subscription> subscription = new AtomicReference<>();
    private volatile @Nullable Rebuilt lastRebuild;

    /** What a rebuild or reconciliation did. */
    public record Rebuilt(int indexed, int added, int removed, Duration took, Instant at) {}

    /** The index's state, for the REST status and the docs' figures. */
    public record Status(
            boolean ready,
            int indexed,
            long indexBytes,
            @Nullable Rebuilt lastRebuild) {}

    public RecallService(
            IncidentService incidents,
            SharedMemory memory,
            JsonMapper json,
            IncidentIndex index,
            Clock clock,
            Duration reconcileEvery) {
        this.incidents = incidents;
        this.memory = memory;
        this.json = json;
        this.index = index;
        this.clock = clock;
        this.reconcileEvery = reconcileEvery;
    }

    /** Rebuilds in the background, then follows changes; start-up does not wait for the embeddings. */
    public void start() {
        worker.execute(this::startNow);
    }

    /** Rebuilds now and follows changes (tests; {@link #start()} runs this on the worker). */
    public void startNow() {
        try {
            long cursor = memory.latestCursor();
            rebuild();
            subscription.set(memory.subscribe(cursor, this::onChange));
        } catch (RuntimeException e) {
            log.error("Incident memory could not be built; similar-incident lookups answer from what is indexed", e);
        }
        if (!reconcileEvery.isZero() && !reconcileEvery.isNegative()) {
            worker.scheduleWithFixedDelay(
                    this::reconcileQuietly,
                    reconcileEvery.toMillis(),
                    reconcileEvery.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Re-reads every incident: indexes resolved ones whose version is not the indexed one, drops
     * those that are gone or reopened. The first call is the rebuild; later ones only repair.
     */
    public synchronized Rebuilt rebuild() {
        long t0 = System.nanoTime();
        int added = 0;
        Set<String> resolved = new HashSet<>();
        for (Incident incident : incidents.list(true, Integer.MAX_VALUE)) {
            if (!Incident.RESOLVED.equals(incident.status())) {
                continue;
            }
            resolved.add(incident.id());
            if (index.indexedVersion(incident.id()) < incident.version()) {
                index.put(record(incident));
                added++;
            }
        }
        int removed = 0;
        for (String id : index.ids()) {
            if (!resolved.contains(id)) {
                index.remove(id);
                removed++;
            }
        }
        index.refresh();
        Rebuilt r =
                new Rebuilt(index.size(), added, removed, Duration.ofNanos(System.nanoTime() - t0), clock.instant());
        lastRebuild = r;
        log.info(
                "Incident memory: {} resolved incidents indexed ({} added, {} removed) in {} ms",
                r.indexed(),
                added,
                removed,
                r.took().toMillis());
        return r;
    }

    private void reconcileQuietly() {
        try {
            rebuild();
        } catch (RuntimeException e) {
            log.warn("Incident memory reconciliation failed; the next one retries", e);
        }
    }

    /** One committed change of shared memory: an incident resolved, changed or reopened anywhere. */
    synchronized void onChange(MemoryChange change) {
        if (closed
                || !IncidentService.NAMESPACE.equals(change.namespace())
                || !change.key().startsWith("inc-")) {
            return;
        }
        try {
            if (change.deleted()) {
                index.remove(change.key());
            } else {
                Incident incident = new Incident((ObjectNode) json.readTree(change.value()), change.version());
                if (Incident.RESOLVED.equals(incident.status())) {
                    if (index.indexedVersion(incident.id()) < change.version()) {
                        index.put(record(incident));
                    }
                } else if (index.indexedVersion(incident.id()) >= 0
                        && change.version() > index.indexedVersion(incident.id())) {
                    // Only a change newer than what is indexed reopens it: the stream may deliver the
                    // incident's earlier, still-open versions after a rebuild indexed its resolution.
                    index.remove(incident.id());
                }
            }
            index.refresh();
        } catch (RuntimeException e) {
            log.warn("Incident memory could not apply a change of {}; reconciliation will", change.key(), e);
        }
    }

    /** The incident's record with its timeline's notes and comments (read from the database). */
    private ResolutionRecord record(Incident incident) {
        List<TimelineEntry> notes = new ArrayList<>();
        try {
            for (IncidentTimeline.Stored s :
                    incidents.latestTimeline(incident.id(), ResolutionRecords.TIMELINE_ENTRIES)) {
                if (s.entry().kind() == TimelineKind.FINDINGS || s.entry().kind() == TimelineKind.COMMENTED) {
                    notes.add(s.entry());
                }
            }
        } catch (RuntimeException e) {
            // The record without its notes still finds the incident; a repair pass reads them again.
            log.warn("Timeline of {} not read for incident memory: {}", incident.id(), e.toString());
        }
        return ResolutionRecords.from(incident, notes.reversed());
    }

    /** Past incidents like this one (never itself), best first. */
    public Optional<List<SimilarIncident>> similarTo(String incidentId, Filters filters) {
        Optional<Incident> incident = incidents.get(incidentId);
        if (incident.isEmpty() || !incidentId.startsWith("inc-")) {
            return Optional.empty();
        }
        ResolutionRecord r = record(incident.get());
        return Optional.of(index.search(new SimilarQuery(
                ResolutionRecords.symptoms(r),
                incidentId,
                filters.sameKind() ? r.targetKind() : null,
                filters.sameService() ? r.service() : null,
                filters.sameNamespace() ? r.namespace() : null,
                filters.within() == null ? null : clock.instant().minus(filters.within()),
                filters.limit(),
                filters.mode())));
    }

    /** Past incidents like a description in words (an agent's or a person's), best first. */
    public List<SimilarIncident> similarToText(String text, @Nullable String targetKind, Filters filters) {
        return index.search(new SimilarQuery(
                text,
                null,
                targetKind,
                null,
                null,
                filters.within() == null ? null : clock.instant().minus(filters.within()),
                filters.limit(),
                filters.mode()));
    }

    /**
     * What to filter on, relative to the incident asked about.
     *
     * @param within only incidents resolved less than this long ago (null: any time)
     */
    public record Filters(
            boolean sameKind,
            boolean sameService,
            boolean sameNamespace,
            @Nullable Duration within,
            int limit,
            SimilarQuery.Mode mode) {
        public Filters {
            if (limit < 1 || limit > SimilarQuery.MAX_LIMIT) {
                throw new IllegalArgumentException("limit must be 1.." + SimilarQuery.MAX_LIMIT + ", was " + limit);
            }
            if (within != null && (within.isNegative() || within.isZero())) {
                throw new IllegalArgumentException("within must be a positive duration, was " + within);
            }
        }

        public static Filters none(int limit) {
            return new Filters(false, false, false, null, limit, SimilarQuery.Mode.HYBRID);
        }
    }

    public Status status() {
        return new Status(lastRebuild != null, index.size(), index.sizeBytes(), lastRebuild);
    }

    /**
     * Stops following changes and waits for an indexing step in progress (they hold this monitor)
     * before the index closes: the embedding model is native code (ONNX Runtime), and a change indexed
     * while the JVM exits — the model loading on the subscription thread — crashed the process with
     * SIGSEGV after the test suite's last test.
     */
    @Override
    public void close() {
        closed = true;
        Subscription s = subscription.getAndSet(null);
        if (s != null) {
            s.close();
        }
        worker.shutdownNow();
        synchronized (this) {
            index.close();
        }
    }
}
