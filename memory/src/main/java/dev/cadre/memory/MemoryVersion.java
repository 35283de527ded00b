package dev.cadre.memory;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** One version in an entry's history: the value written (null for a delete tombstone) and its writer. */
public record MemoryVersion(
        String namespace,
        String key,
        long version,
        @Nullable String value,
        Instant updatedAt,
        Writer updatedBy) {

    /** Whether this version is a delete tombstone. */
    public boolean deleted() {
        return value == null;
    }
}
