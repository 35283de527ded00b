package dev.cadre.memory;

import org.jspecify.annotations.Nullable;

/** The result of a conditional write: it was written, or someone else wrote first. */
public sealed interface WriteOutcome {

    /** The write is committed; {@code version} is the entry's new version (its ETag). */
    record Written(long version) implements WriteOutcome {}

    /**
     * The expected version did not match. {@code currentVersion} is the entry's version now (0 if
     * it never existed; a deleted entry keeps its tombstone's version) and {@code current} its live
     * value, or null when the entry is absent or deleted. Re-read, re-decide, retry.
     */
    record Conflict(long currentVersion, @Nullable MemoryEntry current) implements WriteOutcome {}
}
