package dev.cadre.platform.storage;

/**
 * SQL a table's owner runs to report its size on PostgreSQL: the table with its indexes and TOAST,
 * plus its partitions when it is partitioned (the parent itself holds nothing). H2 has no such
 * function; owners report the size as unknown there.
 */
public final class PostgresSizes {

    private PostgresSizes() {}

    /** Bytes of a table (parameter 1 and 2: its name) and of all its partitions. */
    public static final String TOTAL_BYTES = "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
            + " WHERE c.oid = to_regclass(?) OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = to_regclass(?))";

    /** Partitions of a table (parameter 1: its name); 0 for a plain table. */
    public static final String PARTITIONS = "SELECT COUNT(*) FROM pg_inherits WHERE inhparent = to_regclass(?)";

    /**
     * VACUUM of a table (and of its partitions): marks the space of removed rows reusable at once.
     * Retention removing rows to stay within a storage budget runs it, because PostgreSQL's
     * autovacuum waits until a fifth of a table is dead, and inserts meanwhile grow the files.
     */
    public static String vacuum(String table) {
        if (!table.matches("[a-z_]+")) {
            throw new IllegalArgumentException("not a table name: " + table);
        }
        return "VACUUM " + table;
    }
}
