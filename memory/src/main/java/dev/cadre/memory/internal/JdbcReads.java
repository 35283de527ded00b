package dev.cadre.memory.internal;

import static dev.cadre.memory.internal.SqlRows.COLUMNS;
import static dev.cadre.memory.internal.SqlRows.failure;
import static dev.cadre.memory.internal.SqlRows.version;

import dev.cadre.memory.EntryPage;
import dev.cadre.memory.MemoryChange;
import dev.cadre.memory.MemoryEntry;
import dev.cadre.memory.MemoryStorageException;
import dev.cadre.memory.MemoryVersion;
import dev.cadre.memory.NamespaceSummary;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The read side of the SQL store (schema: {@code db/cadre-memory}): entries, history, pages of a
 * namespace and the change log. Every read borrows a connection in autocommit and sees committed
 * data only, so it is always the authority's current state.
 */
public final class JdbcReads {

    private final DataSource dataSource;

    public JdbcReads(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The latest version of an entry, tombstone included; empty if it never existed. */
    public Optional<MemoryVersion> latest(String namespace, String key) {
        try (Connection c = dataSource.getConnection()) {
            return Optional.ofNullable(SqlRows.latest(c, namespace, key));
        } catch (SQLException e) {
            throw failure("read " + namespace + "/" + key, e);
        }
    }

    public List<MemoryVersion> history(String namespace, String key) {
        String sql = "SELECT " + COLUMNS
                + " FROM cadre_memory_history WHERE namespace = ? AND entry_key = ? ORDER BY version";
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, namespace);
            ps.setString(2, key);
            List<MemoryVersion> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(version(rs, 1));
                }
            }
            return out;
        } catch (SQLException e) {
            throw failure("read the history of " + namespace + "/" + key, e);
        }
    }

    public EntryPage page(String namespace, String prefix, @Nullable String afterKey, int limit) {
        boolean after = afterKey != null && afterKey.compareTo(prefix) >= 0;
        String sql =
                "SELECT " + COLUMNS + " FROM cadre_memory_entry WHERE namespace = ? AND entry_key LIKE ? ESCAPE '!'"
                        + " AND entry_key " + (after ? ">" : ">=") + " ? AND value_json IS NOT NULL"
                        + " ORDER BY entry_key FETCH FIRST ? ROWS ONLY";
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, namespace);
            ps.setString(2, prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%");
            ps.setString(3, after ? afterKey : prefix);
            ps.setInt(4, limit + 1);
            List<MemoryEntry> entries = new ArrayList<>();
            boolean more = false;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (entries.size() == limit) {
                        more = true;
                        break;
                    }
                    entries.add(toEntry(version(rs, 1)));
                }
            }
            return new EntryPage(entries, more ? entries.getLast().key() : null);
        } catch (SQLException e) {
            throw failure("list " + namespace + "/" + prefix + "*", e);
        }
    }

    public List<MemoryChange> changes(long cursor, int limit) {
        String sql = "SELECT event_id, " + COLUMNS
                + " FROM cadre_memory_history WHERE event_id > ? ORDER BY event_id FETCH FIRST ? ROWS ONLY";
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, cursor);
            ps.setInt(2, limit);
            List<MemoryChange> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(JdbcOutbox.change(rs.getLong(1), version(rs, 2)));
                }
            }
            return out;
        } catch (SQLException e) {
            throw failure("read changes after " + cursor, e);
        }
    }

    /**
     * Every namespace with its live keys, tombstones, versions written (a key's version counts
     * its writes) and newest write, in one query over the entry table.
     */
    public List<NamespaceSummary> namespaces() {
        String sql = "SELECT namespace,"
                + " SUM(CASE WHEN value_json IS NULL THEN 0 ELSE 1 END),"
                + " SUM(CASE WHEN value_json IS NULL THEN 1 ELSE 0 END),"
                + " SUM(version), MAX(updated_at)"
                + " FROM cadre_memory_entry GROUP BY namespace ORDER BY namespace";
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            List<NamespaceSummary> out = new ArrayList<>();
            while (rs.next()) {
                out.add(new NamespaceSummary(
                        rs.getString(1),
                        rs.getLong(2),
                        rs.getLong(3),
                        rs.getLong(4),
                        rs.getObject(5, OffsetDateTime.class).toInstant()));
            }
            return out;
        } catch (SQLException e) {
            throw failure("list the namespaces", e);
        }
    }

    /** Fails with a hint when the tables are missing (the schema was never migrated). */
    public void requireSchema() {
        try {
            latestCursor();
        } catch (MemoryStorageException e) {
            throw new IllegalStateException(
                    "memory's tables are missing or unreadable: run MemorySchema.migrate(dataSource) first ("
                            + e.getMessage() + ")",
                    e);
        }
    }

    public long latestCursor() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT last_event_id FROM cadre_memory_relay WHERE id = 1");
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new IllegalStateException("cadre_memory_relay has no row: run MemorySchema.migrate first");
            }
            return rs.getLong(1);
        } catch (SQLException e) {
            throw failure("read the latest cursor", e);
        }
    }

    public static MemoryEntry toEntry(MemoryVersion v) {
        return SqlRows.toEntry(v);
    }
}
