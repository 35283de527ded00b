package dev.cadre.platform.retention;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Runs that keep arriving, for the storage-budget IT and benchmark (PostgreSQL only): copies of
 * template runs, each with its events and spans, inserted as if they had just ended. The templates
 * are copied once into tables of their own ({@code clone_seed_*}, outside what the budget covers),
 * so retention removing the original runs does not stop the arrivals.
 */
public final class RunHistoryClones {

    private final JdbcClient jdbc;
    private long batches;

    /** Snapshots the ended runs {@code seeds} (with their events and spans) as the templates. */
    public RunHistoryClones(JdbcClient jdbc, List<String> seeds) {
        this.jdbc = jdbc;
        String in = String.join(
                ", ", seeds.stream().map(s -> "'" + s.replace("'", "''") + "'").toList());
        jdbc.sql("DROP TABLE IF EXISTS clone_seed_run, clone_seed_event, clone_seed_span")
                .update();
        jdbc.sql("CREATE TABLE clone_seed_run AS SELECT * FROM cadre_run WHERE id IN (" + in + ")")
                .update();
        jdbc.sql("CREATE TABLE clone_seed_event AS SELECT * FROM cadre_run_event WHERE run_id IN (" + in + ")")
                .update();
        jdbc.sql("CREATE TABLE clone_seed_span AS SELECT * FROM cadre_span WHERE run_id IN (" + in + ")")
                .update();
    }

    /**
     * A synthetic ended run of about the shape the demo team's runs have on disk (docs/deploy.md):
     * 30 events and 12 spans of about 1.5 KB each, input, result and subagents of a few KB; the
     * text is random hex, so compression does not make it unrealistically small.
     */
    public static String syntheticRun(JdbcClient jdbc, Instant at) {
        String id = UUID.randomUUID().toString();
        jdbc.sql("INSERT INTO cadre_run (id, agent, input, status, result, subagents, submitted_by, created_at,"
                        + " started_at, finished_at, updated_at) VALUES (?, 'ops-orchestrator', ?, 'completed', ?, ?,"
                        + " 'bench', ?, ?, ?, ?)")
                .params(
                        id,
                        "disk almost full on db-1 " + hex(500),
                        hex(2000),
                        "[{\"agent\":\"disk-inspector\",\"summary\":\"" + hex(2000) + "\"}]",
                        java.sql.Timestamp.from(at),
                        java.sql.Timestamp.from(at),
                        java.sql.Timestamp.from(at),
                        java.sql.Timestamp.from(at))
                .update();
        for (int seq = 1; seq <= 30; seq++) {
            jdbc.sql("INSERT INTO cadre_run_event (run_id, seq, session_id, main_stream, type, data, at)"
                            + " VALUES (?, ?, ?, TRUE, 'text_delta', ?, ?)")
                    .params(id, seq, id, "{\"text\":\"" + hex(1500) + "\"}", java.sql.Timestamp.from(at))
                    .update();
        }
        long nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
        String trace = UUID.randomUUID().toString().replace("-", "");
        for (int s = 1; s <= 12; s++) {
            jdbc.sql("INSERT INTO cadre_span (trace_id, span_id, run_id, name, start_nanos, end_nanos, status,"
                            + " attributes) VALUES (?, ?, ?, 'chat scripted', ?, ?, 'OK', ?)")
                    .params(
                            trace,
                            String.format("%016x", s),
                            id,
                            nanos + s,
                            nanos + s + 1000,
                            "{\"gen_ai.output\":\"" + hex(1500) + "\"}")
                    .update();
        }
        return id;
    }

    private static String hex(int chars) {
        StringBuilder b = new StringBuilder(chars + 32);
        while (b.length() < chars) {
            b.append(UUID.randomUUID().toString().replace("-", ""));
        }
        return b.substring(0, chars);
    }

    /**
     * Inserts {@code copies} copies of every template, ended at {@code now}: fresh ids and trace
     * ids, the template's texts, events and spans. Returns the new runs' ids.
     */
    public List<String> arrive(int copies, Instant now) {
        String tag = UUID.randomUUID().toString().substring(0, 8) + ":" + (batches++);
        java.sql.Timestamp at = java.sql.Timestamp.from(now);
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        long millis = now.toEpochMilli();
        String newId = copyId("s.id");
        jdbc.sql("INSERT INTO cadre_run (id, agent, input, context, status, result, failure_category,"
                        + " failure_code, failure_message, subagents, tools_called, input_tokens, output_tokens,"
                        + " iterations, submitted_by, trace_id, resume_count, lease_version, created_at, started_at,"
                        + " finished_at, updated_at, priority, cost)"
                        + " SELECT " + newId + ", agent, input, context, CASE WHEN status IN ('completed', 'failed',"
                        + " 'canceled', 'rejected') THEN status ELSE 'completed' END, result, failure_category,"
                        + " failure_code, failure_message, subagents, tools_called, input_tokens, output_tokens,"
                        + " iterations, submitted_by, md5(COALESCE(trace_id, s.id) || ':' || ? || ':' || k),"
                        + " resume_count, lease_version, ?, ?, ?, ?, priority, cost"
                        + " FROM clone_seed_run s, generate_series(1, ?) AS k")
                .params(millis, tag, tag, at, at, at, at, copies)
                .update();
        jdbc.sql("INSERT INTO cadre_run_event (run_id, seq, session_id, parent_session_id, main_stream, type, data,"
                        + " at) SELECT " + copyId("s.run_id") + ", seq, session_id,"
                        + " parent_session_id, main_stream, type, data, ? FROM clone_seed_event s,"
                        + " generate_series(1, ?) AS k")
                .params(millis, tag, at, copies)
                .update();
        jdbc.sql("INSERT INTO cadre_span (trace_id, span_id, parent_span_id, run_id, name, start_nanos, end_nanos,"
                        + " status, status_message, attributes) SELECT md5(s.trace_id || ':' || ? || ':' || k),"
                        + " span_id, parent_span_id, " + copyId("s.run_id") + ", name, ?,"
                        + " ? + (end_nanos - start_nanos), status, status_message, attributes"
                        + " FROM clone_seed_span s, generate_series(1, ?) AS k")
                .params(tag, millis, tag, nanos, nanos, copies)
                .update();
        return jdbc.sql("SELECT " + copyId("s.id") + " FROM clone_seed_run s, generate_series(1, ?) AS k")
                .params(millis, tag, copies)
                .query(String.class)
                .list();
    }

    /**
     * A copy's run id, time-ordered as the platform's own ({@code run_} and the UUIDv7 layout: 48 bits of the arrival's
     * milliseconds, version 7, then bits of the md5 of template id, batch tag and copy number), so
     * copies append to the indexes like real runs instead of landing on random pages — which bloats
     * B-trees whose oldest keys are deleted and makes a budget look harder to hold than it is. Two
     * parameters: the milliseconds, then the tag.
     */
    private static String copyId(String templateId) {
        return "'run_' || lpad(to_hex(?::bigint), 12, '0') || '7' || substr(md5(" + templateId
                + " || ':' || ? || ':' || k), 1, 19)";
    }
}
