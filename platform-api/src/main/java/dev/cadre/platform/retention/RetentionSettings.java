package dev.cadre.platform.retention;

import java.time.Duration;

/**
 * How long each kind of data is kept ({@code cadre.retention.*}, docs/configuration.md). Runs that
 * have not ended, runs with a pending approval and runs an active incident lists are kept whatever
 * these say, with their events, spans and journal.
 *
 * @param runs ended runs, with their approvals and tool journal (and their events and spans)
 * @param events run events
 * @param spans stored spans
 * @param audit audit records
 * @param memoryHistoryVersions newest versions of each memory key kept whatever their age
 * @param memoryHistoryAge every memory version younger than this is kept
 * @param memoryRequestIds how long a memory write's request id still deduplicates a retry
 * @param incidentRunLinks how long a {@code run:<id>} link of the incidents namespace stays
 * @param incidentEvents how long after its resolution an incident's timeline stays
 * @param batchSize rows per delete statement (one transaction each)
 * @param interval pause between two maintenance passes
 * @param partitionsAhead days of partitions created ahead (PostgreSQL)
 */
public record RetentionSettings(
        Duration runs,
        Duration events,
        Duration spans,
        Duration audit,
        int memoryHistoryVersions,
        Duration memoryHistoryAge,
        Duration memoryRequestIds,
        Duration incidentRunLinks,
        int batchSize,
        Duration interval,
        int partitionsAhead,
        Duration incidentEvents) {

    public RetentionSettings {
        positive("cadre.retention.runs", runs);
        positive("cadre.retention.events", events);
        positive("cadre.retention.spans", spans);
        positive("cadre.retention.audit", audit);
        positive("cadre.retention.memory-history.age", memoryHistoryAge);
        positive("cadre.retention.memory-request-ids", memoryRequestIds);
        positive("cadre.retention.incident-run-links", incidentRunLinks);
        positive("cadre.retention.interval", interval);
        positive("cadre.retention.incident-events", incidentEvents);
        if (memoryHistoryVersions < 1) {
            throw new IllegalArgumentException("cadre.retention.memory-history.versions must be ≥ 1 (the current"
                    + " version is always kept), was " + memoryHistoryVersions);
        }
        if (batchSize < 100 || batchSize > 10_000) {
            throw new IllegalArgumentException("cadre.retention.batch-size must be 100..10000, was " + batchSize);
        }
        if (partitionsAhead < 1 || partitionsAhead > 30) {
            throw new IllegalArgumentException(
                    "cadre.retention.partitions-ahead must be 1..30 days, was " + partitionsAhead);
        }
    }

    /** {@code cadre.retention.incident-events}'s default. */
    public static final Duration DEFAULT_INCIDENT_EVENTS = Duration.ofDays(365);

    /** With the default incident timeline retention. */
    public RetentionSettings(
            Duration runs,
            Duration events,
            Duration spans,
            Duration audit,
            int memoryHistoryVersions,
            Duration memoryHistoryAge,
            Duration memoryRequestIds,
            Duration incidentRunLinks,
            int batchSize,
            Duration interval,
            int partitionsAhead) {
        this(
                runs,
                events,
                spans,
                audit,
                memoryHistoryVersions,
                memoryHistoryAge,
                memoryRequestIds,
                incidentRunLinks,
                batchSize,
                interval,
                partitionsAhead,
                DEFAULT_INCIDENT_EVENTS);
    }

    /** The shipped defaults. */
    public static RetentionSettings defaults() {
        return new RetentionSettings(
                Duration.ofDays(90),
                Duration.ofDays(14),
                Duration.ofDays(14),
                Duration.ofDays(365),
                20,
                Duration.ofDays(7),
                Duration.ofDays(7),
                Duration.ofDays(14),
                5_000,
                Duration.ofHours(1),
                3);
    }

    private static void positive(String key, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(key + " must be a positive duration (e.g. P14D), was " + d);
        }
    }
}
