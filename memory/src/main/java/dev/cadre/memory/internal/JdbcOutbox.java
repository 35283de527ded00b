package dev.cadre.memory.internal;

import static dev.cadre.memory.internal.SqlRows.failure;
import static dev.cadre.memory.internal.SqlRows.rollbackQuietly;
import static dev.cadre.memory.internal.SqlRows.version;

import dev.cadre.memory.MemoryChange;
import dev.cadre.memory.MemoryVersion;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The outbox side of the SQL store, driven by the {@link Relay}: it turns outbox rows into the
 * change log and hands them to a publisher.
 *
 * <p>Under a lock on the single relay row each row gets a cursor ({@code event_id}) in outbox
 * order, which per key is version order (the outbox row of version n+1 is inserted after version n
 * committed).
 */
public final class JdbcOutbox {

    /** Receives sequenced changes in cursor order; throwing leaves them to be published again. */
    @FunctionalInterface
    public interface Publisher {
        void publish(List<MemoryChange> changes) throws Exception;
    }

    private final DataSource dataSource;
    private final Dialect dialect;

    public JdbcOutbox(DataSource dataSource, Dialect dialect) {
        this.dataSource = dataSource;
        this.dialect = dialect;
    }

    /** Whether outbox rows wait for a cursor; a cheap query for callers that want fresh changes. */
    public boolean hasUnsequenced() {
        return exists("SELECT 1 FROM cadre_memory_outbox WHERE event_id IS NULL FETCH FIRST 1 ROWS ONLY");
    }

    private boolean exists(String sql) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            return rs.next();
        } catch (SQLException e) {
            throw failure("look into the outbox", e);
        }
    }

    public long size() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM cadre_memory_outbox");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw failure("count the outbox", e);
        }
    }

    /**
     * Gives the oldest outbox rows their cursors, in one transaction holding the relay row lock.
     * With {@code keepForPublishing} the rows stay in the outbox until {@link #publishSequenced}.
     *
     * @return how many rows were sequenced
     */
    public int sequencePending(int batch, boolean keepForPublishing) {
        // Look before locking: on PostgreSQL even an empty pass that locks the relay row writes
        // WAL and waits for a disk flush at commit.
        if (!hasUnsequenced()) {
            return 0;
        }
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                long last = lockRelay(c);
                record Row(long seq, String namespace, String key, long version) {}
                List<Row> rows = new ArrayList<>();
                String select = "SELECT seq, namespace, entry_key, version FROM cadre_memory_outbox"
                        + " WHERE event_id IS NULL ORDER BY seq FETCH FIRST ? ROWS ONLY"
                        + (dialect == Dialect.POSTGRESQL ? " FOR UPDATE SKIP LOCKED" : "");
                try (PreparedStatement ps = c.prepareStatement(select)) {
                    ps.setInt(1, batch);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4)));
                        }
                    }
                }
                if (rows.isEmpty()) {
                    c.commit();
                    return 0;
                }
                try (PreparedStatement history = c.prepareStatement("UPDATE cadre_memory_history SET event_id = ?"
                                + " WHERE namespace = ? AND entry_key = ? AND version = ?");
                        PreparedStatement outbox = c.prepareStatement(
                                keepForPublishing
                                        ? "UPDATE cadre_memory_outbox SET event_id = ? WHERE seq = ?"
                                        : "DELETE FROM cadre_memory_outbox WHERE seq = ?")) {
                    long next = last;
                    for (Row row : rows) {
                        next++;
                        history.setLong(1, next);
                        history.setString(2, row.namespace());
                        history.setString(3, row.key());
                        history.setLong(4, row.version());
                        history.addBatch();
                        if (keepForPublishing) {
                            outbox.setLong(1, next);
                            outbox.setLong(2, row.seq());
                        } else {
                            outbox.setLong(1, row.seq());
                        }
                        outbox.addBatch();
                    }
                    history.executeBatch();
                    outbox.executeBatch();
                    try (PreparedStatement relay =
                            c.prepareStatement("UPDATE cadre_memory_relay SET last_event_id = ? WHERE id = 1")) {
                        relay.setLong(1, next);
                        relay.executeUpdate();
                    }
                }
                c.commit();
                return rows.size();
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw failure("sequence the outbox", e);
        }
    }

    /**
     * Hands sequenced outbox rows to {@code publisher} in cursor order and removes them once it
     * returned (at-least-once: a crash in between publishes them again).
     *
     * @return how many were published
     */
    public int publishSequenced(int batch, Publisher publisher) throws Exception {
        if (!exists("SELECT 1 FROM cadre_memory_outbox WHERE event_id IS NOT NULL FETCH FIRST 1 ROWS ONLY")) {
            return 0;
        }
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                if (dialect == Dialect.POSTGRESQL) {
                    // Losing this commit in a crash only publishes the rows again (the stream
                    // ignores a repeated id), so it need not wait for the disk.
                    try (Statement st = c.createStatement()) {
                        st.execute("SET LOCAL synchronous_commit TO OFF");
                    }
                }
                lockRelay(c);
                String select = "SELECT o.event_id, h.namespace, h.entry_key, h.version, h.value_json, h.updated_at,"
                        + " h.writer_kind, h.writer_id, h.writer_run FROM cadre_memory_outbox o"
                        + " JOIN cadre_memory_history h ON h.namespace = o.namespace AND h.entry_key = o.entry_key"
                        + " AND h.version = o.version WHERE o.event_id IS NOT NULL ORDER BY o.event_id"
                        + " FETCH FIRST ? ROWS ONLY";
                List<MemoryChange> changes = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement(select)) {
                    ps.setInt(1, batch);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            changes.add(change(rs.getLong(1), version(rs, 2)));
                        }
                    }
                }
                if (changes.isEmpty()) {
                    c.commit();
                    return 0;
                }
                publisher.publish(changes);
                try (PreparedStatement ps = c.prepareStatement(
                        "DELETE FROM cadre_memory_outbox WHERE event_id IS NOT NULL AND event_id <= ?")) {
                    ps.setLong(1, changes.getLast().cursor());
                    ps.executeUpdate();
                }
                c.commit();
                return changes.size();
            } catch (Exception e) {
                rollbackQuietly(c);
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }

    static MemoryChange change(long cursor, MemoryVersion v) {
        return new MemoryChange(cursor, v.namespace(), v.key(), v.version(), v.value(), v.updatedAt(), v.updatedBy());
    }

    private static long lockRelay(Connection c) throws SQLException {
        try (PreparedStatement ps =
                        c.prepareStatement("SELECT last_event_id FROM cadre_memory_relay WHERE id = 1 FOR UPDATE");
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new IllegalStateException("cadre_memory_relay has no row: run MemorySchema.migrate first");
            }
            return rs.getLong(1);
        }
    }
}
