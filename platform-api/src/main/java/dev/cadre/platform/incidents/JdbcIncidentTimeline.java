package dev.cadre.platform.incidents;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Incident timelines in the platform's database (tables {@code cadre_incident_event}, {@code cadre_incident_delivery}). */
public final class JdbcIncidentTimeline implements IncidentTimeline {

    private static final String COLUMNS = "seq, incident_id, at, kind, actor, text, data, run_id, ref";

    private final JdbcClient jdbc;
    private final JsonMapper json;

    public JdbcIncidentTimeline(JdbcClient jdbc, JsonMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    @Override
    public long append(String incidentId, Instant at, TimelineEntry e) {
        KeyHolder keys = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO cadre_incident_event (incident_id, at, kind, actor, text, data, run_id, ref)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
                .params(
                        incidentId,
                        Timestamp.from(at),
                        e.kind().name(),
                        e.actor(),
                        e.text(),
                        e.data() == null ? null : e.data().toString(),
                        e.runId(),
                        e.ref())
                .update(keys, "seq");
        Number seq = keys.getKey();
        return seq == null ? 0 : seq.longValue();
    }

    @Override
    public List<Stored> read(String incidentId, long afterSeq, int limit) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_incident_event WHERE incident_id = ? AND seq > ?"
                        + " ORDER BY seq LIMIT ?")
                .params(incidentId, afterSeq, limit)
                .query(this::row)
                .list();
    }

    @Override
    public List<Stored> latest(String incidentId, int limit) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_incident_event WHERE incident_id = ?"
                        + " ORDER BY seq DESC LIMIT ?")
                .params(incidentId, limit)
                .query(this::row)
                .list();
    }

    @Override
    public List<Stored> since(long afterSeq, int limit) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_incident_event WHERE seq > ? ORDER BY seq LIMIT ?")
                .params(afterSeq, limit)
                .query(this::row)
                .list();
    }

    @Override
    public long latestSeq() {
        Long max = jdbc.sql("SELECT MAX(seq) FROM cadre_incident_event")
                .query(Long.class)
                .optional()
                .orElse(null);
        return max == null ? 0 : max;
    }

    @Override
    public Sightings sightings(String incidentId) {
        return jdbc.sql("SELECT COUNT(*), MAX(at) FROM cadre_incident_event WHERE incident_id = ?"
                        + " AND kind IN ('OPENED', 'SIGHTING')")
                .params(incidentId)
                .query((rs, i) -> {
                    Timestamp last = rs.getTimestamp(2);
                    return new Sightings(rs.getLong(1), last == null ? null : last.toInstant());
                })
                .single();
    }

    @Override
    public boolean hasRef(String incidentId, TimelineKind kind, String ref) {
        return jdbc.sql("SELECT COUNT(*) FROM cadre_incident_event WHERE incident_id = ? AND kind = ? AND ref = ?")
                        .params(incidentId, kind.name(), ref)
                        .query(Long.class)
                        .single()
                > 0;
    }

    @Override
    public boolean claimDelivery(String incidentId, String deliveryKey, Instant now, Duration window) {
        // The row lock serialises concurrent claims of one key: after the first commits, the others'
        // condition no longer holds (updated 0 rows) and their insert hits the key.
        int updated = jdbc.sql("UPDATE cadre_incident_delivery SET counted_at = ?"
                        + " WHERE incident_id = ? AND delivery_key = ? AND counted_at <= ?")
                .params(Timestamp.from(now), incidentId, deliveryKey, Timestamp.from(now.minus(window)))
                .update();
        if (updated > 0) {
            return true;
        }
        try {
            jdbc.sql("INSERT INTO cadre_incident_delivery (incident_id, delivery_key, counted_at) VALUES (?, ?, ?)")
                    .params(incidentId, deliveryKey, Timestamp.from(now))
                    .update();
            return true;
        } catch (DuplicateKeyException copy) {
            return false;
        }
    }

    @Override
    public boolean deliverySeen(String incidentId, String deliveryKey) {
        return jdbc.sql("SELECT COUNT(*) FROM cadre_incident_delivery WHERE incident_id = ? AND delivery_key = ?")
                        .params(incidentId, deliveryKey)
                        .query(Long.class)
                        .single()
                > 0;
    }

    private Stored row(ResultSet rs, int i) throws SQLException {
        String data = rs.getString("data");
        @Nullable JsonNode tree = data == null ? null : json.readTree(data);
        return new Stored(
                rs.getLong("seq"),
                rs.getString("incident_id"),
                rs.getTimestamp("at").toInstant(),
                new TimelineEntry(
                        TimelineKind.valueOf(rs.getString("kind")),
                        rs.getString("actor"),
                        rs.getString("text"),
                        tree,
                        rs.getString("run_id"),
                        rs.getString("ref")));
    }
}
