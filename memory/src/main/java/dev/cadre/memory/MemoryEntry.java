package dev.cadre.memory;

import java.time.Instant;

/**
 * The current, live version of one entry of shared memory: its value is canonical JSON text, its
 * version is 1 on create and grows by one with every write (deletes included), so a version never
 * goes back.
 */
public record MemoryEntry(
        String namespace, String key, String value, long version, Instant updatedAt, Writer updatedBy) {}
