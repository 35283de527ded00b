package dev.cadre.platform.retention;

import dev.cadre.memory.MemoryRetention;
import dev.cadre.memory.PruneResult;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.Writer;
import dev.cadre.platform.approvals.ApprovalStore;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.observability.TraceStore;
import dev.cadre.platform.runs.JdbcToolJournal;
import dev.cadre.platform.runs.RunEvents;
import dev.cadre.platform.runs.RunStore;
import dev.cadre.platform.storage.Removed;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The platform's retention: removes what {@link RetentionSettings} lets go, kind by kind, through
 * each table's owner (only the owner names its table), in batches of {@code batch-size} rows, each
 * its own transaction. Of several instances one works at a time ({@link MaintenanceLease}); the
 * deletes are guarded, so a second pass or a racing instance can only find less to do.
 *
 * <p>Never removed: runs that have not ended, runs with a pending approval and runs an active
 * incident lists (with their events, spans, approvals and journal), the current version of any
 * memory entry, and the {@code run:<id>} links of runs an active incident lists.
 *
 * <p>With a storage budget ({@link StorageBudget}, PostgreSQL), each pass then measures the run
 * history on disk and, while it is over the budget, removes the oldest removable data first: whole
 * days of events and spans older than today, then the oldest ended runs with everything of theirs
 * ({@link BudgetControl} says how many), counted apart from what the age limits removed.
 */
public final class RetentionService {

    static final String JOB = "retention";

    /** How far back the statistics' hourly rollups are kept: the longest window (31 days) and an hour. */
    static final Duration ROLLUPS_KEPT = Duration.ofHours(24 * 31 + 1);

    private static final Logger log = LoggerFactory.getLogger(RetentionService.class);
    private static final Writer WRITER = Writer.apiClient("cadre-retention");

    /**
     * What one call of {@link #runOnce()} did: {@code ran} false when another instance held the
     * lease; {@code removed} by the age limits, {@code removedForBudget} by the storage budget;
     * {@code usedBytes} the run history on disk at the end of the pass (-1 where the database
     * cannot tell).
     */
    public record Pass(
            boolean ran,
            Map<RetentionKind, Removed> removed,
            List<String> failures,
            Map<RetentionKind, Removed> removedForBudget,
            long usedBytes) {

        Pass(boolean ran, Map<RetentionKind, Removed> removed, List<String> failures) {
            this(ran, removed, failures, Map.of(), -1);
        }

        public Removed of(RetentionKind kind) {
            return removed.getOrDefault(kind, Removed.NONE);
        }

        /** What the storage budget removed of a kind. */
        public Removed forBudget(RetentionKind kind) {
            return removedForBudget.getOrDefault(kind, Removed.NONE);
        }
    }

    private final RetentionSettings settings;
    private final RunStore runs;
    private final RunEvents events;
    private final JdbcToolJournal journal;
    private final TraceStore spans;
    private final AuditLog audit;
    private final ApprovalStore approvals;
    private final IncidentService incidents;
    private final SharedMemory memory;
    private final MaintenanceLease lease;
    private final Clock clock;
    private final RetentionMetrics metrics;
    private final Partitions partitions;
    private final Duration leaseTtl;
    private final BudgetControl budget;
    private volatile @Nullable Pass lastPass;

    RetentionService(
            RetentionSettings settings,
            RunStore runs,
            RunEvents events,
            JdbcToolJournal journal,
            TraceStore spans,
            AuditLog audit,
            ApprovalStore approvals,
            IncidentService incidents,
            SharedMemory memory,
            MaintenanceLease lease,
            Clock clock,
            RetentionMetrics metrics,
            Partitions partitions,
            StorageBudget budget) {
        this.budget = new BudgetControl(budget);
        this.settings = settings;
        this.runs = runs;
        this.events = events;
        this.journal = journal;
        this.spans = spans;
        this.audit = audit;
        this.approvals = approvals;
        this.incidents = incidents;
        this.memory = memory;
        this.lease = lease;
        this.clock = clock;
        this.metrics = metrics;
        this.partitions = partitions;
        // Longer than any pass should take; renewed between steps, released at the end.
        this.leaseTtl = Duration.ofMinutes(15);
    }

    public RetentionSettings settings() {
        return settings;
    }

    public StorageBudget budget() {
        return budget.budget();
    }

    /** One maintenance pass, if this instance gets the lease. */
    public Pass runOnce() {
        if (!lease.acquire(JOB, leaseTtl)) {
            return new Pass(false, Map.of(), List.of());
        }
        Map<RetentionKind, Removed> removed = new EnumMap<>(RetentionKind.class);
        Map<RetentionKind, Removed> forBudget = new EnumMap<>(RetentionKind.class);
        long[] used = {-1};
        List<String> failures = new java.util.ArrayList<>();
        try {
            Instant now = clock.instant();
            Set<String> keep = protectedRuns();
            int batch = settings.batchSize();
            step("partitions", failures, () -> partitions.maintain(now, keep, removed));
            step("runs", failures, () -> removeRuns(now.minus(settings.runs()), keep, batch, removed, Long.MAX_VALUE));
            step(
                    "events",
                    failures,
                    () -> add(
                            removed,
                            RetentionKind.EVENTS,
                            events.deleteBefore(
                                    Partitions.rowDeletesBefore(partitions.events(), now.minus(settings.events())),
                                    keep,
                                    batch)));
            step(
                    "spans",
                    failures,
                    () -> add(
                            removed,
                            RetentionKind.SPANS,
                            spans.deleteBefore(
                                    Partitions.rowDeletesBefore(partitions.spans(), now.minus(settings.spans())),
                                    keep,
                                    batch)));
            step(
                    "audit",
                    failures,
                    () -> add(removed, RetentionKind.AUDIT, audit.deleteBefore(now.minus(settings.audit()), batch)));
            step(
                    "incident run links",
                    failures,
                    () -> add(
                            removed,
                            RetentionKind.INCIDENT_RUN_LINKS,
                            new Removed(incidents.pruneRunLinks(now.minus(settings.incidentRunLinks()), WRITER), 0)));
            step("incident timelines", failures, () -> {
                IncidentService.PrunedTimeline pruned = incidents.pruneTimeline(
                        now.minus(settings.incidentEvents()),
                        now.minus(incidents.settings().duplicateWindow()),
                        batch);
                add(removed, RetentionKind.INCIDENT_EVENTS, new Removed(pruned.events(), 0));
                add(removed, RetentionKind.INCIDENT_DELIVERIES, new Removed(pruned.deliveries(), 0));
            });
            step("memory", failures, () -> {
                PruneResult pruned = memory.prune(new MemoryRetention(
                        settings.memoryHistoryVersions(),
                        now.minus(settings.memoryHistoryAge()),
                        now.minus(settings.memoryRequestIds())));
                add(removed, RetentionKind.MEMORY_HISTORY, new Removed(pruned.versions(), pruned.valueBytes()));
                add(removed, RetentionKind.MEMORY_REQUEST_IDS, new Removed(pruned.requestIds(), 0));
            });
            step("rollups", failures, () -> {
                // Statistics windows reach back at most 744 h from the start of an hour
                // (StatsController.MAX_HOURS); one hour more keeps the oldest window whole.
                Instant before = now.minus(ROLLUPS_KEPT).truncatedTo(java.time.temporal.ChronoUnit.HOURS);
                add(
                        removed,
                        RetentionKind.ROLLUPS,
                        new Removed(runs.trimRollups(before) + spans.trimModelRollup(before), 0));
            });
            // Last: what the age limits removed no longer counts against the budget.
            step("budget", failures, () -> used[0] = enforceBudget(now, keep, batch, forBudget, failures));
        } finally {
            lease.release(JOB);
        }
        removed.forEach((kind, r) -> metrics.removed(kind, r, false));
        forBudget.forEach((kind, r) -> metrics.removed(kind, r, true));
        Pass pass = new Pass(
                true,
                Collections.unmodifiableMap(removed),
                List.copyOf(failures),
                Collections.unmodifiableMap(forBudget),
                used[0]);
        lastPass = pass;
        if (removed.values().stream().anyMatch(r -> r.rows() > 0)) {
            log.info("Retention removed {}", removed);
        }
        if (forBudget.values().stream().anyMatch(r -> r.rows() > 0)) {
            log.info(
                    "Retention removed {} to stay within the storage budget of {} (run history now {} bytes)",
                    forBudget,
                    budget.budget().display(),
                    used[0]);
        }
        return pass;
    }

    /**
     * Bytes on disk of the run history the budget covers: runs, events, spans, tool journal and
     * approvals (with indexes, TOAST and partitions); empty where the database cannot tell (H2).
     */
    public java.util.OptionalLong usedBytes() {
        long sum = 0;
        for (java.util.OptionalLong part : List.of(
                runs.sizeBytes(), events.sizeBytes(), spans.sizeBytes(), journal.sizeBytes(), approvals.sizeBytes())) {
            if (part.isEmpty()) {
                return java.util.OptionalLong.empty();
            }
            sum += part.getAsLong();
        }
        return java.util.OptionalLong.of(sum);
    }

    /**
     * Removes the oldest removable data while the run history is over the budget: first whole days
     * of events and spans before today (dropped partitions shrink the files at once, so they are
     * measured again after each), then the oldest ended runs with everything of theirs, as many as
     * {@link BudgetControl} says, followed by a VACUUM of the tables they were removed from so that
     * the runs arriving next reuse the space. Returns the bytes measured at the end (-1: unknown).
     */
    private long enforceBudget(
            Instant now, Set<String> keep, int batch, Map<RetentionKind, Removed> forBudget, List<String> failures) {
        java.util.OptionalLong measured = usedBytes();
        if (!budget.budget().enabled() || measured.isEmpty()) {
            return measured.orElse(-1);
        }
        long used = measured.getAsLong();
        Instant todayStart = now.truncatedTo(java.time.temporal.ChronoUnit.DAYS);
        while (budget.over(used) && partitions.dropOldestDay(todayStart, keep, forBudget)) {
            used = usedBytes().orElse(used);
            lease.acquire(JOB, leaseTtl);
        }
        if (!budget.over(used)) {
            budget.within(used);
            return used;
        }
        long stored = runs.storedRuns();
        long excess = stored - budget.runsToKeep(used, stored);
        if (excess <= 0) {
            return used;
        }
        long gone = removeRuns(now, keep, batch, forBudget, excess);
        if (gone > 0) {
            runs.reclaimSpace();
            events.reclaimSpace();
            spans.reclaimSpace();
            journal.reclaimSpace();
            approvals.reclaimSpace();
        }
        if (gone < excess) {
            failures.add("budget: the run history takes " + used + " bytes of a budget of "
                    + budget.budget().bytes()
                    + " and the " + (excess - gone) + " runs more it would remove must be kept (not ended, waiting"
                    + " for an approval, or listed by an open incident)");
        }
        return usedBytes().orElse(used);
    }

    /** The last pass this instance ran, if any. */
    public Optional<Pass> lastPass() {
        return Optional.ofNullable(lastPass);
    }

    /** When a pass last completed on any instance. */
    public Optional<Instant> lastRunAt() {
        return lease.lastRunAt(JOB);
    }

    /** Runs kept whatever their age: not ended, waiting for an approval, or listed by an active incident. */
    Set<String> protectedRuns() {
        Set<String> keep = new HashSet<>(runs.liveRunIds());
        keep.addAll(approvals.runsWithPendingApprovals());
        keep.addAll(incidents.runsOfActiveIncidents());
        return keep;
    }

    /**
     * Removes ended runs submitted (and ended) before {@code before}, oldest first, at most {@code
     * max} of them, skipping {@code keep}; returns how many went.
     */
    private long removeRuns(
            Instant before, Set<String> keep, int batch, Map<RetentionKind, Removed> removed, long max) {
        RunStore.Expired after = null;
        long total = 0;
        while (total < max) {
            List<RunStore.Expired> expired = runs.expired(before, after, batch);
            if (expired.isEmpty()) {
                return total;
            }
            after = expired.getLast();
            List<RunStore.Expired> gone = expired.stream()
                    .filter(e -> !keep.contains(e.id()))
                    .limit(max - total)
                    .toList();
            if (!gone.isEmpty()) {
                List<String> ids = gone.stream().map(RunStore.Expired::id).toList();
                // The run's own rows first: a crash in between leaves a run without its events, never
                // events without their run.
                add(removed, RetentionKind.SPANS, spans.deleteOfRuns(ids));
                add(removed, RetentionKind.EVENTS, events.deleteOfRuns(ids));
                add(removed, RetentionKind.TOOL_JOURNAL, journal.deleteOfRuns(ids));
                add(removed, RetentionKind.APPROVALS, approvals.deleteOfRuns(ids));
                int n = runs.deleteEnded(ids);
                total += n;
                add(
                        removed,
                        RetentionKind.RUNS,
                        new Removed(
                                n,
                                gone.stream().mapToLong(RunStore.Expired::bytes).sum()));
            }
            lease.acquire(JOB, leaseTtl);
            if (expired.size() < batch) {
                return total;
            }
        }
        return total;
    }

    private void step(String what, List<String> failures, Runnable step) {
        try {
            step.run();
            lease.acquire(JOB, leaseTtl);
        } catch (RuntimeException e) {
            // One kind failing (say, the database refusing a statement) must not stop the others.
            log.warn("Retention of {} failed: {}", what, e.getMessage(), e);
            failures.add(what + ": " + e.getMessage());
        }
    }

    static void add(Map<RetentionKind, Removed> removed, RetentionKind kind, Removed r) {
        removed.merge(kind, r, Removed::plus);
    }

    /** Oldest data per kind, for the gauges and the storage view. */
    Map<RetentionKind, Optional<Instant>> oldest() {
        Map<RetentionKind, Optional<Instant>> out = new EnumMap<>(RetentionKind.class);
        out.put(RetentionKind.RUNS, quietly(runs::oldestRunAt));
        out.put(RetentionKind.EVENTS, quietly(events::oldestAt));
        out.put(RetentionKind.SPANS, quietly(spans::oldestStart));
        out.put(RetentionKind.AUDIT, quietly(audit::oldestAt));
        return out;
    }

    private static Optional<Instant> quietly(Supplier<Optional<Instant>> read) {
        try {
            return read.get();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    RunStore runStore() {
        return runs;
    }

    RunEvents runEvents() {
        return events;
    }

    TraceStore traceStore() {
        return spans;
    }

    AuditLog auditLog() {
        return audit;
    }

    Partitions partitions() {
        return partitions;
    }
}
