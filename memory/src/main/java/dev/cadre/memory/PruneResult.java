package dev.cadre.memory;

/**
 * What one {@link SharedMemory#prune} removed: history versions, request-id records and the bytes
 * of the values in the removed versions (UTF-8 characters as stored, a lower bound of the disk
 * space freed).
 */
public record PruneResult(long versions, long requestIds, long valueBytes) {

    public static final PruneResult NONE = new PruneResult(0, 0, 0);

    public PruneResult plus(PruneResult o) {
        return new PruneResult(versions + o.versions, requestIds + o.requestIds, valueBytes + o.valueBytes);
    }
}
