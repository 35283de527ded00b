package dev.cadre.platform.retention;

import dev.cadre.platform.storage.Removed;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/stats/storage}: per kind of data how long it is kept, how old the oldest row
 * is, its size on disk where the database tells (PostgreSQL) and its partitions; and when
 * retention last ran. The console's overview shows it as "Storage". Every figure is an index
 * lookup or a catalogue read, never a scan.
 */
@RestController
class StorageController {

    private final RetentionService retention;
    private final Clock clock;

    StorageController(RetentionService retention, Clock clock) {
        this.retention = retention;
        this.clock = clock;
    }

    /** One kind of data. */
    record KindView(
            String kind,
            String keep,
            @Nullable Instant oldestAt,
            @Nullable Long oldestAgeSeconds,
            @Nullable Long bytes,
            int partitions,
            @Nullable Long removedRows,
            @Nullable Long removedBytes) {}

    /**
     * The storage budget: {@code budget} as set ("none" without one), its bytes (null: none), the
     * run history on disk now (null where the database cannot tell) and its share of the budget,
     * and what the last pass removed to stay within it (rows and bytes over all kinds, runs).
     */
    record BudgetView(
            String budget,
            @Nullable Long budgetBytes,
            @Nullable Long usedBytes,
            @Nullable Double usedRatio,
            @Nullable Long removedRuns,
            @Nullable Long removedRows,
            @Nullable Long removedBytes) {}

    record StorageView(
            List<KindView> kinds,
            @Nullable Instant lastRunAt,
            String interval,
            List<String> lastFailures,
            BudgetView budget) {}

    @GetMapping("/api/v1/stats/storage")
    StorageView storage() {
        RetentionSettings s = retention.settings();
        Map<RetentionKind, Optional<Instant>> oldest = retention.oldest();
        Map<String, Integer> partitions = retention.partitions().counts();
        Optional<RetentionService.Pass> last = retention.lastPass().filter(RetentionService.Pass::ran);
        List<KindView> kinds = new ArrayList<>();
        kinds.add(kind(
                RetentionKind.RUNS,
                period(s.runs()),
                oldest,
                size(retention.runStore().sizeBytes()),
                0,
                last));
        kinds.add(kind(
                RetentionKind.EVENTS,
                period(s.events()),
                oldest,
                size(retention.runEvents().sizeBytes()),
                partitions.getOrDefault(retention.partitions().events().table(), 0),
                last));
        kinds.add(kind(
                RetentionKind.SPANS,
                period(s.spans()),
                oldest,
                size(retention.traceStore().sizeBytes()),
                partitions.getOrDefault(retention.partitions().spans().table(), 0),
                last));
        kinds.add(kind(
                RetentionKind.AUDIT,
                period(s.audit()),
                oldest,
                size(retention.auditLog().sizeBytes()),
                0,
                last));
        kinds.add(kind(
                RetentionKind.MEMORY_HISTORY,
                "last " + s.memoryHistoryVersions() + " versions + " + period(s.memoryHistoryAge()),
                oldest,
                null,
                0,
                last));
        return new StorageView(
                kinds,
                retention.lastRunAt().orElse(null),
                period(s.interval()),
                last.map(RetentionService.Pass::failures).orElse(List.of()),
                budget(last));
    }

    private BudgetView budget(Optional<RetentionService.Pass> last) {
        StorageBudget budget = retention.budget();
        Long used = size(retention.usedBytes());
        Removed removed = last.map(p -> p.removedForBudget().values().stream().reduce(Removed.NONE, Removed::plus))
                .orElse(null);
        return new BudgetView(
                budget.display(),
                budget.enabled() ? budget.bytes() : null,
                used,
                budget.enabled() && used != null ? Math.round(1000.0 * used / budget.bytes()) / 1000.0 : null,
                last.map(p -> p.forBudget(RetentionKind.RUNS).rows()).orElse(null),
                removed == null ? null : removed.rows(),
                removed == null ? null : removed.bytes());
    }

    private KindView kind(
            RetentionKind kind,
            String keep,
            Map<RetentionKind, Optional<Instant>> oldest,
            @Nullable Long bytes,
            int partitions,
            Optional<RetentionService.Pass> last) {
        Instant at = oldest.getOrDefault(kind, Optional.empty()).orElse(null);
        Removed removed = last.map(p -> p.of(kind)).orElse(null);
        return new KindView(
                kind.wire(),
                keep,
                at,
                at == null
                        ? null
                        : Math.max(0, Duration.between(at, clock.instant()).toSeconds()),
                bytes,
                partitions,
                removed == null ? null : removed.rows(),
                removed == null ? null : removed.bytes());
    }

    /** Whole days as {@code P90D} (not Duration's {@code PT2160H}), anything else as ISO-8601. */
    static String period(Duration d) {
        return d.toSeconds() % 86_400 == 0 && d.getNano() == 0 ? "P" + d.toDays() + "D" : d.toString();
    }

    private static @Nullable Long size(OptionalLong bytes) {
        return bytes.isPresent() ? bytes.getAsLong() : null;
    }
}
