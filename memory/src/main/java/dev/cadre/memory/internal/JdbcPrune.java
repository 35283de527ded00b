package dev.cadre.memory.internal;

import static dev.cadre.memory.internal.SqlRows.failure;

import dev.cadre.memory.MemoryRetention;
import dev.cadre.memory.PruneResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Retention of the SQL store: removes history versions and request-id records that {@link
 * MemoryRetention} lets go, {@value #BATCH} rows per transaction so a large backlog never holds locks
 * (or H2's undo log) for long.
 *
 * <p>A history row is only removed once the relay gave it its cursor and no outbox row still points
 * at it (the relay publishes from the history row), and never the entry's current version.
 */
public final class JdbcPrune {

    static final int BATCH = 5_000;

    private final DataSource dataSource;
    private final Dialect dialect;

    public JdbcPrune(DataSource dataSource, Dialect dialect) {
        this.dataSource = dataSource;
        this.dialect = dialect;
    }

    public PruneResult prune(MemoryRetention retention) {
        long[] history = pruneHistory(retention);
        long requests = pruneRequests(retention.requestIdsBefore());
        return new PruneResult(history[0], requests, history[1]);
    }

    /**
     * Key by key: only entries with more versions than are kept at any rate can have history to
     * remove, and each key's rows are one range of the history's primary key, deleted in chunks of
     * {@value #BATCH} versions with the count and bytes of what went.
     */
    private long[] pruneHistory(MemoryRetention retention) {
        record Key(String namespace, String key, long version, boolean deleted) {}
        List<Key> keys = new ArrayList<>();
        long removed = 0;
        long bytes = 0;
        String delete = "DELETE FROM cadre_memory_history h WHERE h.namespace = ? AND h.entry_key = ?"
                + " AND h.version > ? AND h.version <= ? AND h.updated_at < ? AND h.event_id IS NOT NULL"
                + " AND NOT EXISTS (SELECT 1 FROM cadre_memory_outbox o WHERE o.namespace = h.namespace"
                + " AND o.entry_key = h.entry_key AND o.version = h.version)";
        String counted = dialect == Dialect.POSTGRESQL
                ? "WITH d AS (" + delete
                        + " RETURNING h.value_json) SELECT COUNT(*), COALESCE(SUM(LENGTH(value_json)), 0) FROM d"
                : "SELECT COUNT(*), COALESCE(SUM(LENGTH(value_json)), 0) FROM OLD TABLE (" + delete + ")";
        try (Connection c = dataSource.getConnection()) {
            // Each chunk its own transaction, whatever the pool's default.
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true);
            try {
                try (PreparedStatement ps = c.prepareStatement(
                        "SELECT namespace, entry_key, version, value_json IS NULL FROM cadre_memory_entry"
                                + " WHERE version > ? OR (value_json IS NULL AND version > 1)")) {
                    ps.setLong(1, retention.keepVersions());
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            keys.add(new Key(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getBoolean(4)));
                        }
                    }
                }
                OffsetDateTime before = OffsetDateTime.ofInstant(retention.keepWrittenSince(), ZoneOffset.UTC);
                try (PreparedStatement oldest = c.prepareStatement("SELECT MIN(version) FROM cadre_memory_history"
                                + " WHERE namespace = ? AND entry_key = ?");
                        PreparedStatement chunk = c.prepareStatement(counted)) {
                    for (Key k : keys) {
                        long upTo = k.version() - (k.deleted() ? 1 : retention.keepVersions());
                        oldest.setString(1, k.namespace());
                        oldest.setString(2, k.key());
                        long from = upTo;
                        try (ResultSet rs = oldest.executeQuery()) {
                            if (rs.next() && !rs.wasNull()) {
                                from = rs.getLong(1) - 1;
                            }
                        }
                        // Autocommit: each chunk is its own transaction.
                        for (long lo = from; lo < upTo; lo += BATCH) {
                            chunk.setString(1, k.namespace());
                            chunk.setString(2, k.key());
                            chunk.setLong(3, lo);
                            chunk.setLong(4, Math.min(upTo, lo + BATCH));
                            chunk.setObject(5, before);
                            try (ResultSet rs = chunk.executeQuery()) {
                                rs.next();
                                removed += rs.getLong(1);
                                bytes += rs.getLong(2);
                            }
                        }
                    }
                }
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw failure("prune memory history", e);
        }
        return new long[] {removed, bytes};
    }

    /**
     * Keeps one key's history within its budget as it is written: removes its versions up to {@code
     * upToVersion} and, when {@code maxBytes} is given, every version from the newest one at which
     * the values summed newest first pass it; never {@code latest}, never a version the relay still
     * needs. One autocommit statement each, outside the write's transaction.
     */
    public void trim(String namespace, String key, long latest, long upToVersion, @Nullable Long maxBytes) {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true);
            try {
                long cut = Math.min(upToVersion, latest - 1);
                if (maxBytes != null) {
                    try (PreparedStatement ps = c.prepareStatement("SELECT MAX(version) FROM (SELECT version,"
                            + " SUM(COALESCE(LENGTH(value_json), 0)) OVER (ORDER BY version DESC) AS total"
                            + " FROM cadre_memory_history WHERE namespace = ? AND entry_key = ?) t"
                            + " WHERE total > ? AND version < ?")) {
                        ps.setString(1, namespace);
                        ps.setString(2, key);
                        ps.setLong(3, maxBytes);
                        ps.setLong(4, latest);
                        try (ResultSet rs = ps.executeQuery()) {
                            if (rs.next()) {
                                long over = rs.getLong(1);
                                if (!rs.wasNull()) {
                                    cut = Math.max(cut, over);
                                }
                            }
                        }
                    }
                }
                if (cut < 1) {
                    return;
                }
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM cadre_memory_history h"
                        + " WHERE h.namespace = ? AND h.entry_key = ? AND h.version <= ? AND h.event_id IS NOT NULL"
                        + " AND NOT EXISTS (SELECT 1 FROM cadre_memory_outbox o WHERE o.namespace = h.namespace"
                        + " AND o.entry_key = h.entry_key AND o.version = h.version)")) {
                    ps.setString(1, namespace);
                    ps.setString(2, key);
                    ps.setLong(3, cut);
                    ps.executeUpdate();
                }
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw failure("trim the history of " + namespace + "/" + key + " to its budget", e);
        }
    }

    private long pruneRequests(Instant before) {
        long removed = 0;
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true); // each batch its own transaction
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM cadre_memory_request WHERE request_id IN"
                    + " (SELECT request_id FROM cadre_memory_request WHERE created_at < ? FETCH FIRST ? ROWS ONLY)")) {
                ps.setObject(1, OffsetDateTime.ofInstant(before, ZoneOffset.UTC));
                ps.setInt(2, BATCH);
                int n;
                do {
                    n = ps.executeUpdate();
                    removed += n;
                } while (n == BATCH);
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw failure("prune memory request ids", e);
        }
        return removed;
    }
}
