package dev.cadre.platform.incidents;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the incident list filters and orders by, one row per incident, kept beside the incident
 * record on every write of it: a page of the list reads a page of the index, never every incident.
 * {@link JdbcIncidentIndex} is the platform's; {@link InMemoryIncidentIndex} serves a process without
 * a database.
 */
public interface IncidentIndex {

    /** One incident's row: severity and source lower-cased. */
    record Row(String id, Instant openedAt, String status, String severity, String source) {}

    /**
     * A filter of the list: {@code statuses} (empty: any), severity and source (lower case, null:
     * any), opened at or after {@code since} (null: any).
     */
    record Filter(
            List<String> statuses,
            @Nullable String severity,
            @Nullable String source,
            @Nullable Instant since) {}

    /** Writes the incident's row (a newer write of the same incident replaces it). */
    void put(Row row);

    /**
     * Rows matching {@code filter}, newest opened first (then id descending), strictly after the
     * position ({@code afterOpenedAt}, {@code afterId}) when given, at most {@code limit}.
     */
    List<Row> page(Filter filter, @Nullable Instant afterOpenedAt, @Nullable String afterId, int limit);

    /** How many rows there are (to tell an empty index from one to fill at start-up). */
    long size();
}
