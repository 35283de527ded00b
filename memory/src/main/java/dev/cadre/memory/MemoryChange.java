package dev.cadre.memory;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One committed write as seen by subscribers. {@code cursor} orders all changes of a store without
 * gaps (1, 2, 3, ...); resume after a change by passing its cursor (e.g. as an SSE Last-Event-ID)
 * to {@link SharedMemory#changesSince} or {@link SharedMemory#subscribe}. Per key, versions arrive in
 * increasing order. {@code value} is null for a delete.
 */
public record MemoryChange(
        long cursor,
        String namespace,
        String key,
        long version,
        @Nullable String value,
        Instant updatedAt,
        Writer updatedBy) {

    public boolean deleted() {
        return value == null;
    }
}
