package dev.cadre.memory;

import java.time.Instant;

/**
 * What {@link SharedMemory#prune} keeps. A version of an entry is removed from its history only when
 * it is not among the entry's newest {@code keepVersions} versions <em>and</em> was written before
 * {@code keepWrittenSince}; the current version (live or tombstone) is therefore never removed. Of a
 * deleted entry only the tombstone is kept once the rest is older than the window (the versions
 * before a delete matter less than a live entry's).
 * Request-id records (the first outcome a retried write gets back) created before {@code
 * requestIdsBefore} are removed, after which a retry with such an id writes again.
 *
 * @param keepVersions newest versions kept per key whatever their age (≥ 1)
 * @param keepWrittenSince every version written at or after this instant is kept
 * @param requestIdsBefore request-id records older than this are removed
 */
public record MemoryRetention(int keepVersions, Instant keepWrittenSince, Instant requestIdsBefore) {

    public MemoryRetention {
        if (keepVersions < 1) {
            throw new InvalidMemoryRequestException(
                    "keepVersions", "must be ≥ 1 (the current version is always kept), was " + keepVersions);
        }
    }

    /** Whether a version of a key whose newest version is {@code latest} (a tombstone: {@code deleted}) may go. */
    public boolean removes(long version, long latest, boolean deleted, Instant writtenAt) {
        return version <= latest - (deleted ? 1 : keepVersions) && writtenAt.isBefore(keepWrittenSince);
    }
}
