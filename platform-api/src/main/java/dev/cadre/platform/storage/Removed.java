package dev.cadre.platform.storage;

/**
 * What one retention step removed: rows, and the bytes of their text columns as stored (a lower
 * bound of the space freed; 0 where not measured, e.g. for whole partitions see their sizes).
 */
public record Removed(long rows, long bytes) {

    public static final Removed NONE = new Removed(0, 0);

    public Removed plus(Removed o) {
        return new Removed(rows + o.rows, bytes + o.bytes);
    }
}
