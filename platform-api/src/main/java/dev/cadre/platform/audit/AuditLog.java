package dev.cadre.platform.audit;

import dev.cadre.platform.storage.KeyLists;
import dev.cadre.platform.storage.Removed;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/** Append-only record of who decided or changed what, and when. */
@Service
public class AuditLog {

    private static final int MAX_DETAIL = 4000;

    private final JdbcClient jdbc;
    private final Clock clock;

    AuditLog(JdbcClient jdbc, Clock clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /** One audit record. */
    public record Entry(long id, Instant at, String actor, String action, String target, String detail) {}

    public void record(String actor, String action, String target, String detail) {
        String d = detail == null || detail.length() <= MAX_DETAIL ? detail : detail.substring(0, MAX_DETAIL);
        jdbc.sql("INSERT INTO cadre_audit_log (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)")
                .params(Timestamp.from(clock.instant()), actor, action, truncate(target, 200), d)
                .update();
    }

    /**
     * What to show of the log; null fields do not filter. {@code actor} and {@code target} match
     * exactly, {@code action} exactly or, ending in {@code .}, as a prefix ({@code api_key.} for every
     * key action); {@code from} inclusive, {@code to} exclusive.
     */
    public record Filter(
            @Nullable String actor,
            @Nullable String action,
            @Nullable String target,
            @Nullable Instant from,
            @Nullable Instant to) {
        /** Everything. */
        public static final Filter NONE = new Filter(null, null, null, null, null);
    }

    /** Newest first; {@code beforeId} pages backwards (null for the newest page). */
    public List<Entry> list(@Nullable Long beforeId, int limit) {
        return list(Filter.NONE, beforeId, limit);
    }

    /** The entries {@code filter} shows, newest first; {@code beforeId} pages backwards. */
    public List<Entry> list(Filter filter, @Nullable Long beforeId, int limit) {
        long before = beforeId == null ? Long.MAX_VALUE : beforeId;
        StringBuilder sql =
                new StringBuilder("SELECT id, at, actor, action, target, detail FROM cadre_audit_log WHERE id < ?");
        List<Object> params = new java.util.ArrayList<>(List.of(before));
        if (filter.actor() != null) {
            sql.append(" AND actor = ?");
            params.add(filter.actor());
        }
        if (filter.action() != null) {
            if (filter.action().endsWith(".")) {
                sql.append(" AND action LIKE ?");
                params.add(filter.action().replace("%", "").replace("_", "\\_") + "%");
            } else {
                sql.append(" AND action = ?");
                params.add(filter.action());
            }
        }
        if (filter.target() != null) {
            sql.append(" AND target = ?");
            params.add(filter.target());
        }
        if (filter.from() != null) {
            sql.append(" AND at >= ?");
            params.add(Timestamp.from(filter.from()));
        }
        if (filter.to() != null) {
            sql.append(" AND at < ?");
            params.add(Timestamp.from(filter.to()));
        }
        sql.append(" ORDER BY id DESC LIMIT ?");
        params.add(limit);
        return jdbc.sql(sql.toString())
                .params(params)
                .query((rs, i) -> new Entry(
                        rs.getLong("id"),
                        rs.getTimestamp("at").toInstant(),
                        rs.getString("actor"),
                        rs.getString("action"),
                        rs.getString("target"),
                        rs.getString("detail")))
                .list();
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }

    // ---- retention (RetentionService) ----

    static final String TABLE = "cadre_audit_log";

    /** Removes records written before {@code before}, oldest first, at most {@code batch} per statement. */
    public Removed deleteBefore(Instant before, int batch) {
        Removed removed = Removed.NONE;
        while (true) {
            record Key(long id, long bytes) {}
            List<Key> keys = jdbc.sql("SELECT id, LENGTH(actor) + LENGTH(action) + LENGTH(target)"
                            + " + COALESCE(LENGTH(detail), 0) FROM cadre_audit_log WHERE at < ? ORDER BY at, id"
                            + " FETCH FIRST ? ROWS ONLY")
                    .params(Timestamp.from(before), batch)
                    .query((rs, i) -> new Key(rs.getLong(1), rs.getLong(2)))
                    .list();
            if (keys.isEmpty()) {
                return removed;
            }
            int n = jdbc.sql("DELETE FROM cadre_audit_log WHERE id IN (" + KeyLists.placeholders(1, keys.size()) + ")")
                    .params(keys.stream().map(k -> (Object) k.id()).toList())
                    .update();
            removed = removed.plus(
                    new Removed(n, keys.stream().mapToLong(Key::bytes).sum()));
            if (keys.size() < batch) {
                return removed;
            }
        }
    }

    /** When the oldest record was written. */
    public java.util.Optional<Instant> oldestAt() {
        return jdbc.sql("SELECT MIN(at) FROM cadre_audit_log")
                .query(java.time.OffsetDateTime.class)
                .optional()
                .map(java.time.OffsetDateTime::toInstant);
    }

    private final dev.cadre.platform.storage.TableSize size =
            new dev.cadre.platform.storage.TableSize(this::totalBytes);

    private long totalBytes() {
        return jdbc.sql(dev.cadre.platform.storage.PostgresSizes.TOTAL_BYTES)
                .params(TABLE, TABLE)
                .query(Long.class)
                .single();
    }

    /** Bytes on disk of the table (with indexes, TOAST and partitions); empty where the database cannot tell (H2). */
    public java.util.OptionalLong sizeBytes() {
        return size.bytes();
    }
}
