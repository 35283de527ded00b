package dev.cadre.platform.replay;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The only class that reads or writes {@code cadre_replay_run} and {@code cadre_replay}. */
final class ReplayStore {

    private final JdbcClient jdbc;

    ReplayStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** A replay run: its replay, its case (as YAML) and team, and its score's JSON once scored. */
    record RunRow(
            String runId,
            String replayId,
            int caseIndex,
            String caseName,
            String caseYaml,
            String team,
            Instant createdAt,
            @Nullable String score) {}

    /** A replay of a suite as stored; {@code summary} is the aggregate's JSON once it has ended. */
    record Row(
            String id,
            String suite,
            @Nullable String label,
            String team,
            String status,
            String submittedBy,
            Instant createdAt,
            @Nullable Instant finishedAt,
            int casesTotal,
            @Nullable String summary,
            @Nullable String error) {}

    void insertRun(RunRow r) {
        jdbc.sql("INSERT INTO cadre_replay_run (run_id, replay_id, case_index, case_name, case_yaml, team,"
                        + " created_at, score) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)")
                .params(
                        r.runId(),
                        r.replayId(),
                        r.caseIndex(),
                        r.caseName(),
                        r.caseYaml(),
                        r.team(),
                        Timestamp.from(r.createdAt()))
                .update();
    }

    Optional<RunRow> findRun(String runId) {
        return jdbc.sql("SELECT * FROM cadre_replay_run WHERE run_id = ?")
                .param(runId)
                .query(ReplayStore::runRow)
                .optional();
    }

    List<RunRow> runsOf(String replayId) {
        return jdbc.sql("SELECT * FROM cadre_replay_run WHERE replay_id = ? ORDER BY case_index")
                .param(replayId)
                .query(ReplayStore::runRow)
                .list();
    }

    /** The replay of each of {@code runIds} that is a replay run. */
    Map<String, String> replaysOf(Collection<String> runIds) {
        Map<String, String> out = new HashMap<>();
        if (runIds.isEmpty()) {
            return out;
        }
        jdbc.sql("SELECT run_id, replay_id FROM cadre_replay_run WHERE run_id IN (:ids)")
                .param("ids", List.copyOf(runIds))
                .query((rs, i) -> out.put(rs.getString("run_id"), rs.getString("replay_id")))
                .list();
        return out;
    }

    void score(String runId, String score) {
        jdbc.sql("UPDATE cadre_replay_run SET score = ? WHERE run_id = ?")
                .params(score, runId)
                .update();
    }

    void insert(Row r) {
        jdbc.sql("INSERT INTO cadre_replay (id, suite, label, team, status, submitted_by, created_at, finished_at,"
                        + " cases_total, summary, error) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, NULL, NULL)")
                .params(
                        r.id(),
                        r.suite(),
                        r.label(),
                        r.team(),
                        r.status(),
                        r.submittedBy(),
                        Timestamp.from(r.createdAt()),
                        r.casesTotal())
                .update();
    }

    /** Ends a running replay; false when it had already ended. */
    boolean finish(String id, String status, Instant at, @Nullable String summary, @Nullable String error) {
        return jdbc.sql("UPDATE cadre_replay SET status = ?, finished_at = ?, summary = ?, error = ?"
                                + " WHERE id = ? AND status = 'running'")
                        .params(
                                status,
                                Timestamp.from(at),
                                summary,
                                error == null || error.length() <= 2000 ? error : error.substring(0, 2000),
                                id)
                        .update()
                == 1;
    }

    Optional<Row> find(String id) {
        return jdbc.sql("SELECT * FROM cadre_replay WHERE id = ?")
                .param(id)
                .query(ReplayStore::row)
                .optional();
    }

    /** Newest first, at most {@code limit}. */
    List<Row> list(int limit) {
        return jdbc.sql("SELECT * FROM cadre_replay ORDER BY created_at DESC, id DESC LIMIT ?")
                .param(limit)
                .query(ReplayStore::row)
                .list();
    }

    /** Replays still waiting for their runs: after a restart they are driven again. */
    List<String> running() {
        return jdbc.sql("SELECT id FROM cadre_replay WHERE status = 'running' ORDER BY created_at")
                .query(String.class)
                .list();
    }

    private static RunRow runRow(ResultSet rs, int i) throws SQLException {
        return new RunRow(
                rs.getString("run_id"),
                rs.getString("replay_id"),
                rs.getInt("case_index"),
                rs.getString("case_name"),
                rs.getString("case_yaml"),
                rs.getString("team"),
                rs.getTimestamp("created_at").toInstant(),
                rs.getString("score"));
    }

    private static Row row(ResultSet rs, int i) throws SQLException {
        Timestamp finished = rs.getTimestamp("finished_at");
        return new Row(
                rs.getString("id"),
                rs.getString("suite"),
                rs.getString("label"),
                rs.getString("team"),
                rs.getString("status"),
                rs.getString("submitted_by"),
                rs.getTimestamp("created_at").toInstant(),
                finished == null ? null : finished.toInstant(),
                rs.getInt("cases_total"),
                rs.getString("summary"),
                rs.getString("error"));
    }
}
