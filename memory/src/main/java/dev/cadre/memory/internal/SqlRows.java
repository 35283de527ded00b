package dev.cadre.memory.internal;

import dev.cadre.memory.MemoryEntry;
import dev.cadre.memory.MemoryStorageException;
import dev.cadre.memory.MemoryVersion;
import dev.cadre.memory.Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.jspecify.annotations.Nullable;

/**
 * Row mapping shared by {@link JdbcWrites}, {@link JdbcReads} and {@link JdbcOutbox}: the entry and
 * history tables have the same columns, so one mapping serves both.
 */
final class SqlRows {

    static final String COLUMNS =
            "namespace, entry_key, version, value_json, updated_at, writer_kind, writer_id, writer_run";

    static final String SELECT_ENTRY =
            "SELECT " + COLUMNS + " FROM cadre_memory_entry WHERE namespace = ? AND entry_key = ?";

    private SqlRows() {}

    /** The latest version of an entry (tombstone included) on the caller's connection, or null. */
    static @Nullable MemoryVersion latest(Connection c, String namespace, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SELECT_ENTRY)) {
            ps.setString(1, namespace);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? version(rs, 1) : null;
            }
        }
    }

    static void setValue(PreparedStatement ps, int index, @Nullable String value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.VARCHAR);
        } else {
            ps.setString(index, value);
        }
    }

    /** updated_at, writer_kind, writer_id, writer_run from {@code index} on. */
    static void setWriter(PreparedStatement ps, int index, WriteRequest r) throws SQLException {
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
    static MemoryVersion version(ResultSet rs, int index) throws SQLException {
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

    static MemoryEntry toEntry(MemoryVersion v) {
        if (v.value() == null) {
            throw new IllegalArgumentException("a tombstone is not a live entry");
        }
        return new MemoryEntry(v.namespace(), v.key(), v.value(), v.version(), v.updatedAt(), v.updatedBy());
    }

    static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // The original failure is the one worth reporting.
        }
    }

    static MemoryStorageException failure(String what, SQLException e) {
        return new MemoryStorageException(
                "memory could not " + what + ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }
}
