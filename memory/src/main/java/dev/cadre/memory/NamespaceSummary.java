package dev.cadre.memory;

import java.time.Instant;

/**
 * One namespace of shared memory with its size: {@code entries} live keys, {@code deleted}
 * tombstones, {@code versions} every version ever written (the sum of the keys' latest versions,
 * deletes included) and {@code lastUpdatedAt} the newest write of any key, a delete included.
 */
public record NamespaceSummary(String namespace, long entries, long deleted, long versions, Instant lastUpdatedAt) {}
