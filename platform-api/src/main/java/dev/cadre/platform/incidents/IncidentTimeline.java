package dev.cadre.platform.incidents;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Where incident timelines are kept: append-only, outside the versioned incident record, so
 * sightings and events never add versions of it. Also keeps the per-incident delivery keys that make
 * copies of one notification one sighting. {@link JdbcIncidentTimeline} is the platform's; {@link
 * InMemoryIncidentTimeline} serves a process without a database.
 */
public interface IncidentTimeline {

    /** A stored entry: {@code seq} orders entries of all incidents (the live stream's cursor). */
    record Stored(long seq, String incidentId, Instant at, TimelineEntry entry) {}

    /** Sightings counted on an incident (its opening included) and when the last one was. */
    record Sightings(long count, @Nullable Instant lastSeenAt) {}

    /** Appends one entry; returns its sequence number. */
    long append(String incidentId, Instant at, TimelineEntry entry);

    /** An incident's entries after {@code afterSeq}, oldest first, at most {@code limit}. */
    List<Stored> read(String incidentId, long afterSeq, int limit);

    /** The incident's newest entries, newest first, at most {@code limit}. */
    List<Stored> latest(String incidentId, int limit);

    /** Entries of every incident after {@code afterSeq}, oldest first, at most {@code limit}. */
    List<Stored> since(long afterSeq, int limit);

    /** The newest sequence number (0 when empty). */
    long latestSeq();

    /** {@link TimelineKind#OPENED} and {@link TimelineKind#SIGHTING} entries of the incident. */
    Sightings sightings(String incidentId);

    /** Whether the incident has an entry of {@code kind} with this {@code ref}. */
    boolean hasRef(String incidentId, TimelineKind kind, String ref);

    /**
     * Counts the delivery key as a sighting now unless it was counted less than {@code window} ago:
     * true when this call counted it, false for a copy. Atomic across callers and instances.
     */
    boolean claimDelivery(String incidentId, String deliveryKey, Instant now, Duration window);

    /** Whether the delivery key was ever counted on the incident. */
    boolean deliverySeen(String incidentId, String deliveryKey);

    /**
     * Retention: removes entries written before {@code before} of every incident not in {@code keep},
     * at most {@code batch} rows a statement; returns how many went.
     */
    long deleteEventsBefore(Instant before, Set<String> keep, int batch);

    /**
     * Retention: removes delivery keys last counted before {@code before} of every incident not in
     * {@code keep}, at most {@code batch} rows a statement; returns how many went. A key counted again
     * meanwhile stays.
     */
    long deleteDeliveriesBefore(Instant before, Set<String> keep, int batch);
}
