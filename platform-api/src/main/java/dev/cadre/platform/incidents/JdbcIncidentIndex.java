package dev.cadre.platform.incidents;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The incident index in the platform's database (table {@code cadre_incident_index}). */
public final class JdbcIncidentIndex implements IncidentIndex {

    private final JdbcClient jdbc;

    public JdbcIncidentIndex(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public void put(Row row) {
        // Update first: an incident's row is written once and updated on every later write of it.
        int updated = jdbc.sql("UPDATE cadre_incident_index SET opened_at = ?, status = ?, severity = ?, source = ?"
                        + " WHERE incident_id = ?")
                .params(Timestamp.from(row.openedAt()), row.status(), row.severity(), row.source(), row.id())
                .update();
        if (updated == 0) {
            try {
                jdbc.sql("INSERT INTO cadre_incident_index (incident_id, opened_at, status, severity, source)"
                                + " VALUES (?, ?, ?, ?, ?)")
                        .params(row.id(), Timestamp.from(row.openedAt()), row.status(), row.severity(), row.source())
                        .update();
            } catch (org.springframework.dao.DuplicateKeyException concurrent) {
                // Another write of the same incident inserted it first: this write's state is newer or equal.
                put(row);
            }
        }
    }

    @Override
    public List<Row> page(Filter filter, @Nullable Instant afterOpenedAt, @Nullable String afterId, int limit) {
        StringBuilder sql = new StringBuilder(
                "SELECT incident_id, opened_at, status, severity, source FROM cadre_incident_index WHERE 1 = 1");
        List<Object> params = new ArrayList<>();
        if (!filter.statuses().isEmpty()) {
            sql.append(" AND status IN (")
                    .append(String.join(
                            ", ",
                            java.util.Collections.nCopies(filter.statuses().size(), "?")))
                    .append(')');
            params.addAll(filter.statuses());
        }
        if (filter.severity() != null) {
            sql.append(" AND severity = ?");
            params.add(filter.severity());
        }
        if (filter.source() != null) {
            sql.append(" AND source = ?");
            params.add(filter.source());
        }
        if (filter.since() != null) {
            sql.append(" AND opened_at >= ?");
            params.add(Timestamp.from(filter.since()));
        }
        if (afterOpenedAt != null) {
            sql.append(" AND (opened_at < ? OR (opened_at = ? AND incident_id < ?))");
            params.add(Timestamp.from(afterOpenedAt));
            params.add(Timestamp.from(afterOpenedAt));
            params.add(afterId);
        }
        sql.append(" ORDER BY opened_at DESC, incident_id DESC LIMIT ?");
        params.add(limit);
        return jdbc.sql(sql.toString())
                .params(params)
                .query((rs, n) -> new Row(
                        rs.getString(1),
                        rs.getTimestamp(2).toInstant(),
                        rs.getString(3),
                        rs.getString(4),
                        rs.getString(5)))
                .list();
    }

    @Override
    public long size() {
        Long n = jdbc.sql("SELECT COUNT(*) FROM cadre_incident_index")
                .query(Long.class)
                .single();
        return n == null ? 0 : n;
    }
}
