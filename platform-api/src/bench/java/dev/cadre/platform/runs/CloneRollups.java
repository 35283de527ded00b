package dev.cadre.platform.runs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.json.JsonMapper;

/**
 * The growth benchmark's rollup increments for cloned runs (issue #18). It lives in the runs
 * package (bench source root) only to use the platform's own rules, {@link RunRollups#bucketOf}
 * and {@link RunStatistics#countDelegations}, once per seed run; the copies are then added in
 * PostgreSQL by one {@code INSERT … SELECT … GROUP BY} per rollup table over seeds × copies, so
 * the rollups agree with the cloned rows at any size without reading a million runs in Java.
 */
public final class CloneRollups {

    private CloneRollups() {}

    /**
     * Adds the copies listed in table {@code copies} (column k) of the seed runs in the temporary
     * table {@code growth_seed} to the run rollups; copy k's times are the seed's minus {@code
     * shiftSql} (an SQL interval of k).
     */
    public static void addCopies(Connection c, String copies, String shiftSql) throws Exception {
        JsonMapper json = JsonMapper.builder().build();
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TEMP TABLE IF NOT EXISTS growth_seed_rollup (id TEXT, category TEXT, duration_ms BIGINT,"
                    + " bucket INTEGER)");
            st.execute("CREATE TEMP TABLE IF NOT EXISTS growth_seed_delegation (id TEXT, agent TEXT, made BIGINT,"
                    + " made_misrouted BIGINT, received BIGINT, received_misrouted BIGINT)");
            st.execute("TRUNCATE growth_seed_rollup, growth_seed_delegation");
            try (ResultSet rs = st.executeQuery(
                            "SELECT id, agent, status, failure_category, started_at, finished_at, subagents FROM growth_seed");
                    PreparedStatement rollup =
                            c.prepareStatement("INSERT INTO growth_seed_rollup VALUES (?, ?, ?, ?)");
                    PreparedStatement delegation =
                            c.prepareStatement("INSERT INTO growth_seed_delegation VALUES (?, ?, ?, ?, ?, ?)")) {
                while (rs.next()) {
                    // As RunRollups.Batch.add does for one ended run.
                    String id = rs.getString("id");
                    String status = rs.getString("status");
                    String category = rs.getString("failure_category");
                    Timestamp started = rs.getTimestamp("started_at");
                    Timestamp finished = rs.getTimestamp("finished_at");
                    long durationMs = started == null || finished == null
                            ? -1
                            : Math.max(
                                    0,
                                    Duration.between(started.toInstant(), finished.toInstant())
                                            .toMillis());
                    rollup.setString(1, id);
                    rollup.setString(2, category == null || status.equals("completed") ? "" : category);
                    rollup.setLong(3, Math.max(0, durationMs));
                    if (durationMs >= 0) {
                        rollup.setInt(4, RunRollups.bucketOf(durationMs));
                    } else {
                        rollup.setNull(4, java.sql.Types.INTEGER);
                    }
                    rollup.executeUpdate();
                    String subagents = rs.getString("subagents");
                    if (subagents != null) {
                        Map<String, long[]> counts = new TreeMap<>();
                        RunStatistics.countDelegations(rs.getString("agent"), json.readTree(subagents), counts);
                        for (var e : counts.entrySet()) {
                            delegation.setString(1, id);
                            delegation.setString(2, e.getKey());
                            for (int i = 0; i < 4; i++) {
                                delegation.setLong(3 + i, e.getValue()[i]);
                            }
                            delegation.executeUpdate();
                        }
                    }
                }
            }
            String hour = "date_trunc('hour', s.created_at - " + shiftSql + ")";
            String copiesSql = " CROSS JOIN " + copies;
            for (String sql : List.of(
                    "INSERT INTO cadre_run_rollup (bucket_hour, agent, status, failure_category, runs, input_tokens,"
                            + " output_tokens, max_duration_ms) SELECT " + hour + ", s.agent, s.status, r.category,"
                            + " COUNT(*), SUM(s.input_tokens), SUM(s.output_tokens), MAX(r.duration_ms)"
                            + " FROM growth_seed s JOIN growth_seed_rollup r ON r.id = s.id" + copiesSql
                            + " GROUP BY 1, 2, 3, 4 ON CONFLICT (bucket_hour, agent, status, failure_category)"
                            + " DO UPDATE SET runs = cadre_run_rollup.runs + EXCLUDED.runs,"
                            + " input_tokens = cadre_run_rollup.input_tokens + EXCLUDED.input_tokens,"
                            + " output_tokens = cadre_run_rollup.output_tokens + EXCLUDED.output_tokens,"
                            + " max_duration_ms = GREATEST(cadre_run_rollup.max_duration_ms,"
                            + " EXCLUDED.max_duration_ms)",
                    "INSERT INTO cadre_run_duration_rollup (bucket_hour, bucket, runs) SELECT " + hour + ", r.bucket,"
                            + " COUNT(*) FROM growth_seed s JOIN growth_seed_rollup r ON r.id = s.id" + copiesSql
                            + " WHERE r.bucket IS NOT NULL GROUP BY 1, 2 ON CONFLICT (bucket_hour, bucket)"
                            + " DO UPDATE SET runs = cadre_run_duration_rollup.runs + EXCLUDED.runs",
                    "INSERT INTO cadre_delegation_rollup (bucket_hour, agent, made, made_misrouted, received,"
                            + " received_misrouted) SELECT " + hour + ", d.agent, SUM(d.made), SUM(d.made_misrouted),"
                            + " SUM(d.received), SUM(d.received_misrouted) FROM growth_seed s"
                            + " JOIN growth_seed_delegation d ON d.id = s.id" + copiesSql
                            + " GROUP BY 1, 2 ON CONFLICT (bucket_hour, agent) DO UPDATE SET"
                            + " made = cadre_delegation_rollup.made + EXCLUDED.made,"
                            + " made_misrouted = cadre_delegation_rollup.made_misrouted + EXCLUDED.made_misrouted,"
                            + " received = cadre_delegation_rollup.received + EXCLUDED.received,"
                            + " received_misrouted = cadre_delegation_rollup.received_misrouted"
                            + " + EXCLUDED.received_misrouted",
                    "INSERT INTO cadre_agent_outcome (agent, runs, completed, failed, tokens) SELECT s.agent,"
                            + " COUNT(*), SUM(CASE WHEN s.status = 'completed' THEN 1 ELSE 0 END),"
                            + " SUM(CASE WHEN s.status = 'failed' THEN 1 ELSE 0 END),"
                            + " SUM(s.input_tokens + s.output_tokens) FROM growth_seed s" + copiesSql
                            + " GROUP BY s.agent ON CONFLICT (agent) DO UPDATE SET"
                            + " runs = cadre_agent_outcome.runs + EXCLUDED.runs,"
                            + " completed = cadre_agent_outcome.completed + EXCLUDED.completed,"
                            + " failed = cadre_agent_outcome.failed + EXCLUDED.failed,"
                            + " tokens = cadre_agent_outcome.tokens + EXCLUDED.tokens")) {
                st.execute(sql);
            }
            c.commit();
        } catch (Exception e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }
}
