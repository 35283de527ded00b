package dev.cadre.memory;

/**
 * How much history one key may keep, enforced as it is written (not only by {@link
 * SharedMemory#prune}): beyond {@code maxVersions} versions, or once its versions' values pass
 * {@code maxBytes}, the oldest versions of the key go first. The current version is always kept,
 * however large. Versions are counted after every write; bytes every {@value #BYTES_CHECK_EVERY}th
 * version of a key (a sum over its history), so a key may pass {@code maxBytes} by at most that many
 * values until its next check.
 *
 * @param maxVersions versions of one key kept at most (≥ 1)
 * @param maxBytes UTF-8 characters of one key's stored values kept at most (≥ 1)
 */
public record MemoryHistoryBudget(int maxVersions, long maxBytes) {

    /** How often (in versions of one key) the bytes of its history are summed. */
    public static final int BYTES_CHECK_EVERY = 8;

    /** No bound: history only goes by {@link SharedMemory#prune}. */
    public static final MemoryHistoryBudget NONE = new MemoryHistoryBudget(Integer.MAX_VALUE, Long.MAX_VALUE);

    public MemoryHistoryBudget {
        if (maxVersions < 1) {
            throw new InvalidMemoryRequestException(
                    "maxVersions", "must be ≥ 1 (the current version is always kept), was " + maxVersions);
        }
        if (maxBytes < 1) {
            throw new InvalidMemoryRequestException("maxBytes", "must be ≥ 1, was " + maxBytes);
        }
    }

    /** Whether the bytes of a key's history are summed after writing its version {@code version}. */
    public boolean checksBytesAt(long version) {
        return maxBytes != Long.MAX_VALUE && version % BYTES_CHECK_EVERY == 0;
    }

    /** The newest version of a key whose newest is {@code latest} that the version bound removes, or 0. */
    public long removesUpTo(long latest) {
        return Math.max(0, latest - maxVersions);
    }
}
