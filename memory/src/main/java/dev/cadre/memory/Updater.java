package dev.cadre.memory;

import org.jspecify.annotations.Nullable;

/**
 * A read-modify-write step for {@link SharedMemory#update}: given the current entry (null when absent
 * or deleted) returns the new JSON value. It may be called several times, once per attempt, so it
 * must not have side effects.
 */
@FunctionalInterface
public interface Updater {
    String apply(@Nullable MemoryEntry current);
}
