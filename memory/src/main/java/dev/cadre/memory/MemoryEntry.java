package dev.cadre.memory;

import java.time.Instant;

/**
 * One versioned entry of shared memory: its value is JSON text, its version is 1 on create and
 * grows by one with every write (deletes included), so a version never goes back.
 */
public record MemoryEntry(
        String namespace, String key, String valueJson, long version, Instant updatedAt, String updatedBy) {}
