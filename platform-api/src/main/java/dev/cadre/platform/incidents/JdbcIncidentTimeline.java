package dev.cadre.platform.incidents;

import dev.cadre.platform.storage.KeyLists;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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

    @Override
    public long deleteEventsBefore(Instant before, Set<String> keep, int batch) {
        record Key(long seq, String incidentId) {}
        long removed = 0;
        long after = 0;
        while (true) {
            List<Key> keys = jdbc.sql("SELECT seq, incident_id FROM cadre_incident_event WHERE at < ? AND seq > ?"
                            + " ORDER BY seq FETCH FIRST ? ROWS ONLY")
                    .params(Timestamp.from(before), after, batch)
                    .query((rs, i) -> new Key(rs.getLong(1), rs.getString(2)))
                    .list();
            if (keys.isEmpty()) {
                return removed;
            }
            after = keys.getLast().seq();
            List<Object> gone = new ArrayList<>();
            keys.stream().filter(k -> !keep.contains(k.incidentId())).forEach(k -> gone.add(k.seq()));
            if (!gone.isEmpty()) {
                removed += jdbc.sql("DELETE FROM cadre_incident_event WHERE seq IN ("
                                + KeyLists.placeholders(1, gone.size()) + ")")
                        .params(gone)
                        .update();
            }
            if (keys.size() < batch) {
                return removed;
            }
        }
    }

    @Override
    public long deleteDeliveriesBefore(Instant before, Set<String> keep, int batch) {
        long removed = 0;
        List<String> last = null;
        while (true) {
            List<Object> params = new ArrayList<>(List.of(Timestamp.from(before)));
            if (last != null) {
                params.addAll(last);
            }
            params.add(batch);
            List<List<String>> keys = jdbc.sql("SELECT incident_id, delivery_key FROM cadre_incident_delivery"
                            + " WHERE counted_at < ?"
                            + (last == null ? "" : " AND (incident_id, delivery_key) > (?, ?)")
                            + " ORDER BY incident_id, delivery_key FETCH FIRST ? ROWS ONLY")
                    .params(params)
                    .query((rs, i) -> List.of(rs.getString(1), rs.getString(2)))
                    .list();
            if (keys.isEmpty()) {
                return removed;
            }
            last = keys.getLast();
            List<List<String>> gone =
                    keys.stream().filter(k -> !keep.contains(k.get(0))).toList();
            if (!gone.isEmpty()) {
                // Guarded: a copy counted again since the select keeps its row (its window restarted).
                List<Object> deleteParams = new ArrayList<>(List.of(Timestamp.from(before)));
                deleteParams.addAll(KeyLists.flatten(gone));
                removed += jdbc.sql("DELETE FROM cadre_incident_delivery WHERE counted_at < ?"
                                + " AND (incident_id, delivery_key) IN (" + KeyLists.placeholders(2, gone.size()) + ")")
                        .params(deleteParams)
                        .update();
            }
            if (keys.size() < batch) {
                return removed;
            }
        }
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
