package dev.cadre.platform.audit;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
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

    /** Newest first; {@code beforeId} pages backwards (null for the newest page). */
    public List<Entry> list(Long beforeId, int limit) {
        long before = beforeId == null ? Long.MAX_VALUE : beforeId;
        return jdbc.sql("SELECT id, at, actor, action, target, detail FROM cadre_audit_log"
                        + " WHERE id < ? ORDER BY id DESC LIMIT ?")
                .params(before, limit)
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
}
