package dev.cadre.platform.evals;

import dev.cadre.platform.security.Actor;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The only class that reads or writes {@code cadre_eval}. */
final class EvalStore {

    private final JdbcClient jdbc;

    EvalStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * An evaluation as stored; {@code report} is the scored report's JSON once it has ended, {@code
     * submittedByKey} the id of the key that started it (its runs are that key's).
     */
    record Row(
            String id,
            String suite,
            String agent,
            int repeat,
            String status,
            String submittedBy,
            Instant createdAt,
            @Nullable Instant finishedAt,
            int runsTotal,
            @Nullable Double routingAccuracy,
            @Nullable Double misrouteRate,
            String suiteJson,
            String runIds,
            @Nullable String report,
            @Nullable String error,
            @Nullable String submittedByKey) {

        /** Who started the evaluation, by key id; its runs are submitted as this actor. */
        Actor submitter() {
            return new Actor(submittedByKey, submittedBy);
        }
    }

    private static final String COLUMNS = "id, suite, agent, repeat_count, status, submitted_by, created_at,"
            + " finished_at, runs_total, routing_accuracy, misroute_rate, suite_json, run_ids, report, error, submitted_by_key";

    void insert(Row r) {
        jdbc.sql("INSERT INTO cadre_eval (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                .params(
                        r.id(),
                        r.suite(),
                        r.agent(),
                        r.repeat(),
                        r.status(),
                        r.submittedBy(),
                        Timestamp.from(r.createdAt()),
                        null,
                        r.runsTotal(),
                        null,
                        null,
                        r.suiteJson(),
                        r.runIds(),
                        null,
                        null,
                        r.submittedByKey())
                .update();
    }

    /** Ends a running evaluation; false when it had already ended (another instance finished it). */
    boolean finish(
            String id,
            String status,
            Instant at,
            @Nullable Double routingAccuracy,
            @Nullable Double misrouteRate,
            @Nullable String report,
            @Nullable String error) {
        return jdbc.sql("UPDATE cadre_eval SET status = ?, finished_at = ?, routing_accuracy = ?, misroute_rate = ?,"
                                + " report = ?, error = ? WHERE id = ? AND status = 'running'")
                        .params(
                                status,
                                Timestamp.from(at),
                                routingAccuracy,
                                misrouteRate,
                                report,
                                error == null || error.length() <= 2000 ? error : error.substring(0, 2000),
                                id)
                        .update()
                == 1;
    }

    void recordRuns(String id, String runIds) {
        jdbc.sql("UPDATE cadre_eval SET run_ids = ? WHERE id = ?")
                .params(runIds, id)
                .update();
    }

    Optional<Row> find(String id) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_eval WHERE id = ?")
                .param(id)
                .query(EvalStore::row)
                .optional();
    }

    /** Newest first, a page at a time: {@code before} is the last row of the previous page, or null. */
    List<Row> list(@Nullable Row before, int limit) {
        if (before == null) {
            return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_eval ORDER BY created_at DESC, id DESC LIMIT ?")
                    .param(limit)
                    .query(EvalStore::row)
                    .list();
        }
        Timestamp at = Timestamp.from(before.createdAt());
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_eval WHERE created_at < ? OR (created_at = ? AND id < ?)"
                        + " ORDER BY created_at DESC, id DESC LIMIT ?")
                .params(at, at, before.id(), limit)
                .query(EvalStore::row)
                .list();
    }

    /** Evaluations still waiting for their runs: after a restart they are picked up again. */
    List<String> running() {
        return jdbc.sql("SELECT id FROM cadre_eval WHERE status = 'running' ORDER BY created_at")
                .query(String.class)
                .list();
    }

    private static Row row(ResultSet rs, int i) throws SQLException {
        Timestamp finished = rs.getTimestamp("finished_at");
        return new Row(
                rs.getString("id"),
                rs.getString("suite"),
                rs.getString("agent"),
                rs.getInt("repeat_count"),
                rs.getString("status"),
                rs.getString("submitted_by"),
                rs.getTimestamp("created_at").toInstant(),
                finished == null ? null : finished.toInstant(),
                rs.getInt("runs_total"),
                (Double) rs.getObject("routing_accuracy", Double.class),
                (Double) rs.getObject("misroute_rate", Double.class),
                rs.getString("suite_json"),
                rs.getString("run_ids"),
                rs.getString("report"),
                rs.getString("error"),
                rs.getString("submitted_by_key"));
    }
}
