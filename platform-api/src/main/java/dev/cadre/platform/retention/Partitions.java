package dev.cadre.platform.retention;

import dev.cadre.platform.storage.DailyPartitions;
import dev.cadre.platform.storage.Removed;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Partition upkeep of the time-partitioned tables (PostgreSQL; H2 has none and this does nothing
 * there): partitions for the coming days are created ahead, whole partitions past retention are
 * dropped. Rows older than retention that sit in a partition that is not a day (the one made of
 * the history before partitioning, the DEFAULT one) are left to the batched deletes — but only
 * rows older than the start of the day retention reaches into ({@link #rowDeletesBefore}): the
 * rest of that day goes with its partition the next day, instead of row by row now.
 */
final class Partitions {

    private final DailyPartitions events;
    private final DailyPartitions spans;
    private final RetentionSettings settings;

    Partitions(DailyPartitions events, DailyPartitions spans, RetentionSettings settings) {
        this.events = events;
        this.spans = spans;
        this.settings = settings;
    }

    void maintain(Instant now, Set<String> keepRuns, Map<RetentionKind, Removed> removed) {
        if (events.partitioned()) {
            events.createAhead(now, settings.partitionsAhead());
            RetentionService.add(
                    removed, RetentionKind.EVENTS, events.dropBefore(now.minus(settings.events()), keepRuns));
        }
        if (spans.partitioned()) {
            spans.createAhead(now, settings.partitionsAhead());
            RetentionService.add(removed, RetentionKind.SPANS, spans.dropBefore(now.minus(settings.spans()), keepRuns));
        }
    }

    /**
     * Where the batched deletes of a table stop. On a partitioned table, at the start of the UTC day
     * {@code before} falls in: rows of that day sit in a day partition that is dropped whole once
     * the day is past retention, and deleting them row by row first (as a cut-off moving every hour
     * would, for every row ever written) would cost the WAL, VACUUM and index churn partitioning is
     * there to avoid. So on PostgreSQL events and spans are kept up to one day longer than set.
     * Unpartitioned (H2): {@code before} itself.
     */
    static Instant rowDeletesBefore(DailyPartitions table, Instant before) {
        return table.partitioned() ? before.truncatedTo(java.time.temporal.ChronoUnit.DAYS) : before;
    }

    /**
     * For the storage budget: drops the oldest day of events and spans (the partitions of both
     * tables whose upper bound is the oldest one at or before {@code todayStart}; today's and later
     * ones never), keeping the rows of {@code keepRuns}; false when there is none to drop.
     */
    boolean dropOldestDay(Instant todayStart, Set<String> keepRuns, Map<RetentionKind, Removed> removed) {
        Instant oldest = null;
        for (DailyPartitions t : new DailyPartitions[] {events, spans}) {
            if (!t.partitioned()) {
                continue;
            }
            for (DailyPartitions.Partition p : t.list()) {
                if (!p.isDefault()
                        && p.upper() != null
                        && !p.upper().isAfter(todayStart)
                        && (oldest == null || p.upper().isBefore(oldest))) {
                    oldest = p.upper();
                }
            }
        }
        if (oldest == null) {
            return false;
        }
        if (events.partitioned()) {
            RetentionService.add(removed, RetentionKind.EVENTS, events.dropBefore(oldest, keepRuns));
        }
        if (spans.partitioned()) {
            RetentionService.add(removed, RetentionKind.SPANS, spans.dropBefore(oldest, keepRuns));
        }
        return true;
    }

    /** Partitions per table (0 for a table that is not partitioned). */
    Map<String, Integer> counts() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (DailyPartitions t : new DailyPartitions[] {events, spans}) {
            out.put(t.table(), t.partitioned() ? t.list().size() : 0);
        }
        return out;
    }

    DailyPartitions events() {
        return events;
    }

    DailyPartitions spans() {
        return spans;
    }
}
