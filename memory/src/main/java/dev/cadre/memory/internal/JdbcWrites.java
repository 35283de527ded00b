package dev.cadre.memory.internal;

import static dev.cadre.memory.internal.SqlRows.COLUMNS;
import static dev.cadre.memory.internal.SqlRows.failure;
import static dev.cadre.memory.internal.SqlRows.rollbackQuietly;
import static dev.cadre.memory.internal.SqlRows.setValue;
import static dev.cadre.memory.internal.SqlRows.setWriter;
import static dev.cadre.memory.internal.SqlRows.toEntry;
import static dev.cadre.memory.internal.SqlRows.version;

import dev.cadre.memory.InvalidMemoryRequestException;
import dev.cadre.memory.MemoryVersion;
import dev.cadre.memory.WriteOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The write side of the SQL store: the compare-and-set and request-id idempotency.
 *
 * <p>A write is one transaction under READ COMMITTED: a conditional {@code UPDATE … SET version =
 * version + 1 WHERE … AND version = ?} (or an insert for a new entry), a history row and an outbox
 * row. On PostgreSQL the three are one statement (data-modifying CTEs) run in autocommit, so a CAS
 * costs a single round trip; on H2 they are three statements in one transaction. The row lock
 * taken by the conditional update serialises writers of one key, and under READ COMMITTED a waiting
 * writer re-checks the version after the first commits, so exactly one of two racing writers wins.
 *
 * <p>A write with a request id also records its outcome in the same transaction; a retry with the
 * same id finds it and gets the first outcome back instead of writing again.
 *
 * <p>On H2, writers of one key take turns in this process before they reach the database. H2 does
 * not wait for another transaction's uncommitted insert of the same key: the second insert fails
 * and H2 retries it at once, again and again, until the first commits or its lock timeout passes.
 * On virtual threads (the web server's request handlers) such a retrying writer never gives up its
 * carrier thread, so a few copies of one create could occupy every carrier while the first writer,
 * parked on its commit's disk write, waited for one — and every copy ended with "Timeout trying to
 * lock table" after the lock timeout. An embedded H2 file belongs to one process, so taking turns
 * here is enough; PostgreSQL waits on its row lock, parked, and shares it between instances.
 */
public final class JdbcWrites {

    private static final String PG_UPDATE =
            "WITH u AS (UPDATE cadre_memory_entry SET value_json = ?, version = version + 1,"
                    + " updated_at = ?, writer_kind = ?, writer_id = ?, writer_run = ?"
                    + " WHERE namespace = ? AND entry_key = ? AND version = ? AND value_json IS NOT NULL RETURNING "
                    + COLUMNS + "), h AS (INSERT INTO cadre_memory_history (" + COLUMNS + ") SELECT " + COLUMNS
                    + " FROM u RETURNING namespace, entry_key, version)"
                    + " INSERT INTO cadre_memory_outbox (namespace, entry_key, version)"
                    + " SELECT namespace, entry_key, version FROM h RETURNING version";

    private static final String PG_CREATE = "WITH u AS (INSERT INTO cadre_memory_entry AS e"
            + " (namespace, entry_key, value_json, version, updated_at, writer_kind, writer_id, writer_run)"
            + " VALUES (?, ?, ?, 1, ?, ?, ?, ?) ON CONFLICT (namespace, entry_key) DO UPDATE SET"
            + " value_json = EXCLUDED.value_json, version = e.version + 1, updated_at = EXCLUDED.updated_at,"
            + " writer_kind = EXCLUDED.writer_kind, writer_id = EXCLUDED.writer_id, writer_run = EXCLUDED.writer_run"
            + " WHERE e.value_json IS NULL RETURNING " + COLUMNS + "),"
            + " h AS (INSERT INTO cadre_memory_history (" + COLUMNS + ") SELECT " + COLUMNS
            + " FROM u RETURNING namespace, entry_key, version)"
            + " INSERT INTO cadre_memory_outbox (namespace, entry_key, version)"
            + " SELECT namespace, entry_key, version FROM h RETURNING version";

    private static final String UPDATE = "UPDATE cadre_memory_entry SET value_json = ?, version = version + 1,"
            + " updated_at = ?, writer_kind = ?, writer_id = ?, writer_run = ?"
            + " WHERE namespace = ? AND entry_key = ? AND version = ? AND value_json IS NOT NULL";
    private static final String REVIVE = "UPDATE cadre_memory_entry SET value_json = ?, version = version + 1,"
            + " updated_at = ?, writer_kind = ?, writer_id = ?, writer_run = ?"
            + " WHERE namespace = ? AND entry_key = ? AND value_json IS NULL";
    private static final String INSERT_ENTRY =
            "INSERT INTO cadre_memory_entry (" + COLUMNS + ") VALUES (?, ?, 1, ?, ?, ?, ?, ?)";
    private static final String INSERT_HISTORY =
            "INSERT INTO cadre_memory_history (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String INSERT_OUTBOX =
            "INSERT INTO cadre_memory_outbox (namespace, entry_key, version) VALUES (?, ?, ?)";

    /** Stripes of the per-key turn on H2: plenty for the writers one process runs at once. */
    private static final int STRIPES = 256;

    private final DataSource dataSource;
    private final Dialect dialect;
    private final ReentrantLock @Nullable [] turns;

    public JdbcWrites(DataSource dataSource, Dialect dialect) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        if (dialect == Dialect.POSTGRESQL) {
            this.turns = null;
        } else {
            this.turns = new ReentrantLock[STRIPES];
            for (int i = 0; i < STRIPES; i++) {
                turns[i] = new ReentrantLock();
            }
        }
    }

    public WriteOutcome write(WriteRequest r) {
        if (turns == null) {
            return writeNow(r);
        }
        // Parks (frees its carrier) while another writer of the key finishes its transaction.
        ReentrantLock turn =
                turns[Math.floorMod(31 * r.namespace().hashCode() + r.key().hashCode(), STRIPES)];
        turn.lock();
        try {
            return writeNow(r);
        } finally {
            turn.unlock();
        }
    }

    private WriteOutcome writeNow(WriteRequest r) {
        try (Connection c = dataSource.getConnection()) {
            if (r.requestId() == null && dialect == Dialect.POSTGRESQL && c.getAutoCommit()) {
                // One statement in autocommit: the cheapest possible CAS transaction. (A pool
                // that hands out connections without autocommit gets the same statement in an
                // explicit transaction below.)
                long v = pgWrite(c, r);
                return v > 0 ? new WriteOutcome.Written(v) : conflict(c, r.namespace(), r.key());
            }
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                WriteOutcome outcome = r.requestId() == null ? writeInTransaction(c, r) : writeOnce(c, r);
                c.commit();
                return outcome;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw failure("write " + r.namespace() + "/" + r.key(), e);
        }
    }

    private WriteOutcome writeInTransaction(Connection c, WriteRequest r) throws SQLException {
        long v = dialect == Dialect.POSTGRESQL ? pgWrite(c, r) : portableWrite(c, r);
        return v > 0 ? new WriteOutcome.Written(v) : conflict(c, r.namespace(), r.key());
    }

    /** A write with a request id: the first outcome is stored with it and returned to every retry. */
    private WriteOutcome writeOnce(Connection c, WriteRequest r) throws SQLException {
        WriteOutcome earlier = recorded(c, r);
        if (earlier != null) {
            return earlier;
        }
        WriteOutcome outcome = writeInTransaction(c, r);
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO cadre_memory_request (request_id, fingerprint, outcome, version, namespace, entry_key,"
                        + " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, r.requestId());
            ps.setString(2, r.fingerprint());
            switch (outcome) {
                case WriteOutcome.Written w -> {
                    ps.setString(3, "written");
                    ps.setLong(4, w.version());
                }
                case WriteOutcome.Conflict k -> {
                    ps.setString(3, "conflict");
                    ps.setLong(4, k.currentVersion());
                }
            }
            ps.setString(5, r.namespace());
            ps.setString(6, r.key());
            ps.setObject(7, OffsetDateTime.ofInstant(r.at(), ZoneOffset.UTC));
            ps.executeUpdate();
            return outcome;
        } catch (SQLException e) {
            if (!"23505".equals(e.getSQLState())) {
                throw e;
            }
            // A concurrent retry with the same id committed first: undo ours, answer with its outcome.
            c.rollback();
            WriteOutcome first = recorded(c, r);
            if (first == null) {
                throw e;
            }
            return first;
        }
    }

    private @Nullable WriteOutcome recorded(Connection c, WriteRequest r) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT fingerprint, outcome, version, namespace, entry_key FROM cadre_memory_request WHERE request_id = ?")) {
            ps.setString(1, r.requestId());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                if (!rs.getString(1).equals(r.fingerprint())) {
                    throw new InvalidMemoryRequestException(
                            "requestId", "'" + r.requestId() + "' was already used for a different write");
                }
                long version = rs.getLong(3);
                if (rs.getString(2).equals("written")) {
                    return new WriteOutcome.Written(version);
                }
                MemoryVersion then = version == 0 ? null : historyAt(c, r.namespace(), r.key(), version);
                return new WriteOutcome.Conflict(version, then == null || then.value() == null ? null : toEntry(then));
            }
        }
    }

    private static @Nullable MemoryVersion historyAt(Connection c, String namespace, String key, long version)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS
                + " FROM cadre_memory_history WHERE namespace = ? AND entry_key = ? AND version = ?")) {
            ps.setString(1, namespace);
            ps.setString(2, key);
            ps.setLong(3, version);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? version(rs, 1) : null;
            }
        }
    }

    /** PostgreSQL: entry, history and outbox in one statement; returns the new version or 0 on a conflict. */
    private static long pgWrite(Connection c, WriteRequest r) throws SQLException {
        boolean create = r.expectedVersion() == 0;
        try (PreparedStatement ps = c.prepareStatement(create ? PG_CREATE : PG_UPDATE)) {
            if (create) {
                ps.setString(1, r.namespace());
                ps.setString(2, r.key());
                setValue(ps, 3, r.value());
                setWriter(ps, 4, r);
            } else {
                setValue(ps, 1, r.value());
                setWriter(ps, 2, r);
                ps.setString(6, r.namespace());
                ps.setString(7, r.key());
                ps.setLong(8, r.expectedVersion());
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /** Standard SQL in the caller's transaction; returns the new version or 0 on a conflict. */
    private static long portableWrite(Connection c, WriteRequest r) throws SQLException {
        long version;
        if (r.expectedVersion() > 0) {
            try (PreparedStatement ps = c.prepareStatement(UPDATE)) {
                setValue(ps, 1, r.value());
                setWriter(ps, 2, r);
                ps.setString(6, r.namespace());
                ps.setString(7, r.key());
                ps.setLong(8, r.expectedVersion());
                if (ps.executeUpdate() == 0) {
                    return 0;
                }
            }
            version = r.expectedVersion() + 1;
        } else {
            int revived;
            try (PreparedStatement ps = c.prepareStatement(REVIVE)) {
                setValue(ps, 1, r.value());
                setWriter(ps, 2, r);
                ps.setString(6, r.namespace());
                ps.setString(7, r.key());
                revived = ps.executeUpdate();
            }
            if (revived == 1) {
                // We hold the row lock now, so this reads our own new version.
                MemoryVersion now = SqlRows.latest(c, r.namespace(), r.key());
                version = now == null ? 0 : now.version();
            } else {
                try (PreparedStatement ps = c.prepareStatement(INSERT_ENTRY)) {
                    ps.setString(1, r.namespace());
                    ps.setString(2, r.key());
                    setValue(ps, 3, r.value());
                    setWriter(ps, 4, r);
                    ps.executeUpdate();
                } catch (SQLException e) {
                    if ("23505".equals(e.getSQLState())) {
                        return 0; // it exists and is live: a conflict
                    }
                    throw e;
                }
                version = 1;
            }
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_HISTORY)) {
            ps.setString(1, r.namespace());
            ps.setString(2, r.key());
            ps.setLong(3, version);
            setValue(ps, 4, r.value());
            setWriter(ps, 5, r);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_OUTBOX)) {
            ps.setString(1, r.namespace());
            ps.setString(2, r.key());
            ps.setLong(3, version);
            ps.executeUpdate();
        }
        return version;
    }

    private static WriteOutcome conflict(Connection c, String namespace, String key) throws SQLException {
        MemoryVersion now = SqlRows.latest(c, namespace, key);
        if (now == null) {
            return new WriteOutcome.Conflict(0, null);
        }
        return new WriteOutcome.Conflict(now.version(), now.value() == null ? null : toEntry(now));
    }
}
