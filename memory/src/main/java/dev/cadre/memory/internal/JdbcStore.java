package dev.cadre.memory.internal;

import dev.cadre.memory.EntryPage;
import dev.cadre.memory.InvalidMemoryRequestException;
import dev.cadre.memory.MemoryChange;
import dev.cadre.memory.MemoryEntry;
import dev.cadre.memory.MemoryStorageException;
import dev.cadre.memory.MemoryVersion;
import dev.cadre.memory.WriteOutcome;
import dev.cadre.memory.Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The SQL side of the JDBC and hybrid backends (schema: {@code db/cadre-memory}).
 *
 * <p>A write is one transaction under READ COMMITTED: a conditional {@code UPDATE … SET version =
 * version + 1 WHERE … AND version = ?} (or an insert for a new entry), a history row and an outbox
 * row. On PostgreSQL the three are one statement (data-modifying CTEs) run in autocommit, so a CAS
 * costs a single round trip; on H2 they are three statements in one transaction. The row lock
 * taken by the conditional update serialises writers of one key, and under READ COMMITTED a waiting
 * writer re-checks the version after the first commits, so exactly one of two racing writers wins.
 *
 * <p>The relay turns outbox rows into the change log: under a lock on the single relay row it gives
 * each a cursor ({@code event_id}) in outbox order, which per key is version order (the outbox row
 * of version n+1 is inserted after version n committed).
 */
public final class JdbcStore {

    private static final String COLUMNS =
            "namespace, entry_key, version, value_json, updated_at, writer_kind, writer_id, writer_run";

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
    private static final String SELECT_ENTRY =
            "SELECT " + COLUMNS + " FROM cadre_memory_entry WHERE namespace = ? AND entry_key = ?";

    private final DataSource dataSource;
    private final Dialect dialect;

    public JdbcStore(DataSource dataSource) {
        this.dataSource = dataSource;
        this.dialect = Dialect.of(dataSource);
    }

    public Dialect dialect() {
        return dialect;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    // ---------------------------------------------------------------- reads

    /** The latest version of an entry, tombstone included; empty if it never existed. */
    public Optional<MemoryVersion> latest(String namespace, String key) {
        try (Connection c = dataSource.getConnection()) {
            return Optional.ofNullable(latest(c, namespace, key));
        } catch (SQLException e) {
            throw failure("read " + namespace + "/" + key, e);
        }
    }

    private static @Nullable MemoryVersion latest(Connection c, String namespace, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SELECT_ENTRY)) {
            ps.setString(1, namespace);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? version(rs, 1) : null;
            }
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
                    MemoryVersion v = version(rs, 2);
                    out.add(new MemoryChange(
                            rs.getLong(1),
                            v.namespace(),
                            v.key(),
                            v.version(),
                            v.value(),
                            v.updatedAt(),
                            v.updatedBy()));
                }
            }
            return out;
        } catch (SQLException e) {
            throw failure("read changes after " + cursor, e);
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

    // ---------------------------------------------------------------- writes

    public WriteOutcome write(WriteRequest r) {
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
                MemoryVersion now = latest(c, r.namespace(), r.key());
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
        MemoryVersion now = latest(c, namespace, key);
        if (now == null) {
            return new WriteOutcome.Conflict(0, null);
        }
        return new WriteOutcome.Conflict(now.version(), now.value() == null ? null : toEntry(now));
    }

    // ---------------------------------------------------------------- relay

    /** Receives sequenced changes in cursor order; throwing leaves them to be published again. */
    @FunctionalInterface
    public interface Publisher {
        void publish(List<MemoryChange> changes) throws Exception;
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

    public long outboxSize() {
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
                            MemoryVersion v = version(rs, 2);
                            changes.add(new MemoryChange(
                                    rs.getLong(1),
                                    v.namespace(),
                                    v.key(),
                                    v.version(),
                                    v.value(),
                                    v.updatedAt(),
                                    v.updatedBy()));
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

    // ---------------------------------------------------------------- mapping

    private static void setValue(PreparedStatement ps, int index, @Nullable String value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.VARCHAR);
        } else {
            ps.setString(index, value);
        }
    }

    /** updated_at, writer_kind, writer_id, writer_run from {@code index} on. */
    private static void setWriter(PreparedStatement ps, int index, WriteRequest r) throws SQLException {
        ps.setObject(index, OffsetDateTime.ofInstant(r.at(), ZoneOffset.UTC));
        ps.setString(index + 1, r.writer().kind());
        ps.setString(index + 2, r.writer().id());
        String run = r.writer().run();
        if (run == null) {
            ps.setNull(index + 3, Types.VARCHAR);
        } else {
            ps.setString(index + 3, run);
        }
    }

    /** Reads {@link #COLUMNS} starting at {@code index}. */
    private static MemoryVersion version(ResultSet rs, int index) throws SQLException {
        Instant at = rs.getObject(index + 4, OffsetDateTime.class).toInstant();
        Writer writer = Writer.of(rs.getString(index + 5), rs.getString(index + 6), rs.getString(index + 7));
        return new MemoryVersion(
                rs.getString(index),
                rs.getString(index + 1),
                rs.getLong(index + 2),
                rs.getString(index + 3),
                at,
                writer);
    }

    public static MemoryEntry toEntry(MemoryVersion v) {
        if (v.value() == null) {
            throw new IllegalArgumentException("a tombstone is not a live entry");
        }
        return new MemoryEntry(v.namespace(), v.key(), v.value(), v.version(), v.updatedAt(), v.updatedBy());
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // The original failure is the one worth reporting.
        }
    }

    private static MemoryStorageException failure(String what, SQLException e) {
        return new MemoryStorageException(
                "memory could not " + what + ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }
}
