package dev.cadre.platform.bench;

import dev.cadre.platform.runs.CloneRollups;
import dev.cadre.platform.runs.RunStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * Grows a PostgreSQL history inside the database (issue #18's growth benchmark): clones the ended
 * seed runs with {@code INSERT … SELECT} over {@code generate_series}, each copy shifted back in
 * time so the copies spread evenly over the last {@link #SPREAD}, with UUIDv7-like time-ordered
 * run ids (so inserts append to the indexes, as the platform's own ids do) and new trace ids.
 *
 * <p>What a steady-state database holds under the default retention (events and spans 14 days,
 * runs 90 days): every copy gets its run row, only the copies of the last {@link #DETAIL} also get
 * their events and spans, in day partitions of their own (V10 of {@code db/vendor/postgresql}).
 * Columns are copied generically (every column of the seed row, read from the catalogue), with
 * only ids, trace ids, lease and request columns overridden and every timestamp column shifted, so
 * columns other migrations add are cloned too.
 *
 * <p>The rollups stay consistent with the raw rows: each copy adds what its seed added, at the
 * copy's hour (all 30 days: rollups outlive the spans), computed in SQL over seeds × copies;
 * {@link #rebuildRunRollups} (the platform's own backfill over all runs) is the cross-check.
 */
final class HistoryCloner {

    /** How far back the copies reach. */
    static final Duration SPREAD = Duration.ofDays(30);

    /** How far back copies keep their events and spans (the default retention of both). */
    static final Duration DETAIL = Duration.ofDays(14);

    private static final List<String> TERMINAL = List.of("completed", "failed", "canceled", "rejected");
    private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;

    private final Connection c;

    HistoryCloner(Connection c) throws Exception {
        this.c = c;
        try (Statement st = c.createStatement()) {
            st.execute("SET TimeZone = 'UTC'");
            // Bulk load: a crash only loses the benchmark's own clones; compressed full-page images
            // halve the WAL of the first writes after each checkpoint (needs a superuser; skipped otherwise).
            st.execute("SET synchronous_commit = off");
            try {
                st.execute("SET wal_compression = on");
            } catch (java.sql.SQLException notSuperuser) {
                // the server's setting stays
            }
            // A time-ordered id (UUIDv7 layout: 48-bit Unix milliseconds, version 7, variant 10)
            // whose random bits are the md5 of the seed id and copy number: unique and repeatable.
            st.execute("CREATE OR REPLACE FUNCTION pg_temp.clone_id(at timestamptz, seed text, k bigint)"
                    + " RETURNS text LANGUAGE sql IMMUTABLE AS $$"
                    + " SELECT substr(t, 1, 8) || '-' || substr(t, 9, 4) || '-7' || substr(h, 1, 3) || '-'"
                    + " || substr('89ab', (get_byte(decode(substr(h, 4, 2), 'hex'), 0) % 4) + 1, 1)"
                    + " || substr(h, 6, 3) || '-' || substr(h, 9, 12)"
                    + " FROM (SELECT lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') AS t,"
                    + " md5(seed || ':' || k) AS h) x $$");
        }
    }

    /** The ended runs: what is cloned. */
    List<String> seeds() throws Exception {
        List<String> ids = new ArrayList<>();
        try (ResultSet rs = c.createStatement()
                .executeQuery("SELECT id FROM cadre_run WHERE status IN ('" + String.join("', '", TERMINAL)
                        + "') ORDER BY created_at, id")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    long runs() throws Exception {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM cadre_run")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Replaces V10's pre-partitioning partition (everything before the migration's next day) by
     * day partitions for the last {@link #DETAIL} days up to today, as the platform's maintenance
     * would have created them over two weeks, and moves its rows (the seeds') into them. Done once,
     * on the seed database; a table without that partition is left alone.
     */
    void dayPartitions(Instant now) throws Exception {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            for (String[] t :
                    List.of(new String[] {"cadre_run_event", "timestamp"}, new String[] {"cadre_span", "nanos"})) {
                String table = t[0];
                String legacy = table + "_legacy";
                try (ResultSet rs = st.executeQuery("SELECT to_regclass('" + legacy + "') IS NOT NULL")) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        continue;
                    }
                }
                st.execute("ALTER TABLE " + table + " DETACH PARTITION " + legacy);
                LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
                for (long d = DETAIL.toDays(); d >= 0; d--) {
                    LocalDate day = today.minusDays(d);
                    Instant from = day.atStartOfDay().toInstant(ZoneOffset.UTC);
                    Instant to = from.plus(Duration.ofDays(1));
                    st.execute("CREATE TABLE IF NOT EXISTS " + table + "_p" + DAY.format(day) + " PARTITION OF " + table
                            + " FOR VALUES FROM (" + bound(t[1], from) + ") TO (" + bound(t[1], to) + ")");
                }
                st.execute("INSERT INTO " + table + " SELECT * FROM " + legacy);
                st.execute("DROP TABLE " + legacy);
            }
            c.commit();
        } catch (Exception e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    private static String bound(String kind, Instant at) {
        return kind.equals("nanos")
                ? Long.toString(at.getEpochSecond() * 1_000_000_000L)
                : "TIMESTAMP WITH TIME ZONE '" + at.toString().replace('T', ' ').replace("Z", "+00") + "'";
    }

    /** How many copies of each seed make {@code target} runs, given what the history holds now. */
    long copiesFor(List<String> seeds, long target) throws Exception {
        return Math.max(0, (target - runs() + seeds.size() - 1) / seeds.size());
    }

    private List<String> statements = List.of();
    private String modelRollup = "";
    private String shift = "";
    private long copies;

    /**
     * Prepares this connection to write copies 1..{@code copies} of {@code seeds}: copy k is shifted
     * back by k·(30 days / copies); copies younger than 14 days get their events and spans. Several
     * connections may write disjoint ranges of copies at once ({@link #cloneCopies}).
     */
    void prepare(List<String> seeds, long copies, Instant now) throws Exception {
        this.copies = copies;
        long stepMicros = SPREAD.toNanos() / 1000 / Math.max(1, copies);
        shift = "((k * " + stepMicros + "::bigint) * interval '1 microsecond')";
        String shiftNanos = "(k * " + stepMicros + "::bigint * 1000)";
        String seedList =
                String.join(",", seeds.stream().map(s -> "'" + s + "'").toList());
        String cutoff = "TIMESTAMP WITH TIME ZONE '"
                + now.minus(DETAIL).toString().replace('T', ' ').replace("Z", "+00") + "'";
        String newId = "pg_temp.clone_id(s.created_at - " + shift + ", s.id, k)";
        String newTrace = "CASE WHEN %s.trace_id IS NULL THEN NULL ELSE md5(%s.trace_id || ':' || k) END";
        Map<String, String> runOverrides = new java.util.HashMap<>(Map.of(
                "id", newId,
                "trace_id", newTrace.formatted("s", "s"),
                "idempotency_key", "NULL",
                "request_hash", "NULL",
                "owner", "NULL",
                "lease_until", "NULL",
                "trace_parent", "NULL",
                "retry_of", "NULL"));
        statements = List.of(
                cloneInsert(
                        "cadre_run", "s", shift, runOverrides, "growth_seed s CROSS JOIN generate_series(?, ?) AS k"),
                cloneInsert(
                        "cadre_run_event",
                        "e",
                        shift,
                        Map.of("run_id", newId),
                        "growth_seed_event e JOIN growth_seed s ON s.id = e.run_id CROSS JOIN generate_series(?, ?) AS k"
                                + " WHERE s.created_at - " + shift + " >= " + cutoff),
                cloneInsert(
                        "cadre_span",
                        "sp",
                        shift,
                        Map.of(
                                "run_id",
                                newId,
                                "trace_id",
                                newTrace.formatted("sp", "sp"),
                                "start_nanos",
                                "sp.start_nanos - " + shiftNanos,
                                "end_nanos",
                                "sp.end_nanos - " + shiftNanos),
                        "growth_seed_span sp JOIN growth_seed s ON s.id = sp.run_id CROSS JOIN generate_series(?, ?) AS k"
                                + " WHERE s.created_at - " + shift + " >= " + cutoff));
        // Model calls per hour of the copies' spans, for all copies: the rollup outlives the spans.
        modelRollup = "INSERT INTO cadre_model_rollup (bucket_hour, agent, model, calls, input_tokens,"
                + " output_tokens) SELECT date_trunc('hour', to_timestamp((m.start_nanos - " + shiftNanos
                + ") / 1e9)), m.agent, m.model, COUNT(*), SUM(m.input_tokens), SUM(m.output_tokens)"
                + " FROM growth_model_call m CROSS JOIN growth_k GROUP BY 1, 2, 3"
                + " ON CONFLICT (bucket_hour, agent, model) DO UPDATE SET calls = cadre_model_rollup.calls"
                + " + EXCLUDED.calls, input_tokens = cadre_model_rollup.input_tokens + EXCLUDED.input_tokens,"
                + " output_tokens = cadre_model_rollup.output_tokens + EXCLUDED.output_tokens";
        try (Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS growth_seed");
            st.execute("CREATE TEMP TABLE growth_seed AS SELECT * FROM cadre_run WHERE id IN (" + seedList + ")");
            // The seeds' events and spans copied out once: joined in place, the planner scanned the
            // grown tables for every batch (slower with each copy, and tens of GB of temp files).
            st.execute("DROP TABLE IF EXISTS growth_seed_event");
            st.execute("CREATE TEMP TABLE growth_seed_event AS SELECT * FROM cadre_run_event WHERE run_id IN ("
                    + seedList + ")");
            st.execute("DROP TABLE IF EXISTS growth_seed_span");
            st.execute("CREATE TEMP TABLE growth_seed_span AS SELECT * FROM cadre_span WHERE run_id IN (" + seedList
                    + ")");
            st.execute("ANALYZE growth_seed, growth_seed_event, growth_seed_span");
            st.execute("DROP TABLE IF EXISTS growth_model_call");
            // As TraceStore's model rollup reads a 'chat …' span: agent, provider:model, tokens.
            st.execute("CREATE TEMP TABLE growth_model_call AS SELECT start_nanos,"
                    + " left(COALESCE(a->>'gen_ai.agent.name', 'unknown'), 100) AS agent,"
                    + " left(CASE WHEN COALESCE(a->>'gen_ai.provider.name', '') = ''"
                    + " THEN COALESCE(a->>'gen_ai.request.model', 'unknown')"
                    + " ELSE (a->>'gen_ai.provider.name') || ':' || COALESCE(a->>'gen_ai.request.model', 'unknown')"
                    + " END, 200) AS model,"
                    + " COALESCE((a->>'gen_ai.usage.input_tokens')::bigint, 0) AS input_tokens,"
                    + " COALESCE((a->>'gen_ai.usage.output_tokens')::bigint, 0) AS output_tokens"
                    + " FROM (SELECT start_nanos, attributes::jsonb AS a FROM cadre_span"
                    + " WHERE name LIKE 'chat %' AND run_id IN (" + seedList + ")) x");
        }
    }

    /**
     * The copies (k, descending) not yet written, after {@link #prepare}: a batch writes whole
     * copies in one transaction, so copy k exists when the first seed's copy k does.
     */
    List<Long> missingCopies() throws Exception {
        List<Long> ks = new ArrayList<>();
        try (ResultSet rs = c.createStatement()
                .executeQuery("SELECT k FROM generate_series(1, " + copies + ") AS k WHERE NOT EXISTS (SELECT 1"
                        + " FROM cadre_run r WHERE r.created_at = (SELECT created_at FROM growth_seed"
                        + " ORDER BY created_at, id LIMIT 1) - " + shift + ") ORDER BY k DESC")) {
            while (rs.next()) {
                ks.add(rs.getLong(1));
            }
        }
        return ks;
    }

    /** Writes copies {@code from..to} (runs, then their events and spans) in one transaction. */
    void cloneCopies(long from, long to) throws Exception {
        run(statements, from, to);
    }

    /**
     * Adds the copies written (all of 1..copies, or those a stopped grow wrote) to the rollups, one
     * statement per rollup table: the model calls of the seeds' spans, and the runs through
     * {@link CloneRollups}.
     */
    void addRollups() throws Exception {
        try (Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS growth_k");
            st.execute("CREATE TEMP TABLE growth_k AS SELECT k FROM generate_series(1, " + copies + ") AS k"
                    + " WHERE EXISTS (SELECT 1 FROM cadre_run r WHERE r.created_at = (SELECT created_at"
                    + " FROM growth_seed ORDER BY created_at, id LIMIT 1) - " + shift + ")");
            st.execute(modelRollup);
        }
        CloneRollups.addCopies(c, "growth_k", shift);
    }

    private void run(List<String> sqls, long from, long to) throws Exception {
        c.setAutoCommit(false);
        try {
            for (String sql : sqls) {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setLong(1, from);
                    ps.setLong(2, to);
                    ps.executeUpdate();
                }
            }
            c.commit();
        } catch (Exception e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /**
     * {@code INSERT INTO table (every column) SELECT …}: each column from the seed row ({@code
     * alias}), or its override, timestamp columns shifted back.
     */
    private String cloneInsert(String table, String alias, String shift, Map<String, String> overrides, String from)
            throws Exception {
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT column_name, data_type FROM information_schema.columns"
                + " WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String column = rs.getString(1);
                    columns.add(column);
                    String value = overrides.get(column);
                    if (value == null) {
                        value = rs.getString(2).startsWith("timestamp")
                                ? alias + "." + column + " - " + shift
                                : alias + "." + column;
                    }
                    values.add(value);
                }
            }
        }
        if (columns.isEmpty()) {
            throw new IllegalStateException("no table " + table + " in the current schema");
        }
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") SELECT " + String.join(", ", values)
                + " FROM " + from;
    }

    /**
     * Rebuilds the run rollups from all runs with the platform's own one-time backfill (as after
     * an upgrade): empties them, puts back V8's marker and runs {@link RunStore#backfillRollups}.
     */
    void rebuildRunRollups() throws Exception {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            for (String t : List.of(
                    "cadre_run_rollup",
                    "cadre_run_duration_rollup",
                    "cadre_delegation_rollup",
                    "cadre_agent_outcome")) {
                st.execute("TRUNCATE " + t);
            }
            st.execute("INSERT INTO cadre_run_rollup (bucket_hour, agent, status, failure_category)"
                    + " VALUES (TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', '', 'backfill', '')");
            JdbcClient jdbc = JdbcClient.create(new SingleConnectionDataSource(c, true));
            RunStore.backfillRollups(jdbc, JsonMapper.builder().build());
            c.commit();
        } catch (Exception e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /**
     * VACUUM ANALYZE of the run table (its visibility map serves the list's index-only checks) and
     * ANALYZE of the rest: the event and span partitions are append-only, and vacuuming tens of GB
     * of them took longer here than growing them; autovacuum gets to them as it would in service.
     */
    void vacuum() throws Exception {
        try (Statement st = c.createStatement()) {
            st.execute("VACUUM (ANALYZE) cadre_run");
            st.execute("ANALYZE");
        }
    }

    /** Database size, and the runs, events and spans tables with their indexes (pretty-printed). */
    String sizes() throws Exception {
        try (ResultSet rs = c.createStatement()
                .executeQuery("SELECT pg_size_pretty(pg_database_size(current_database())),"
                        + " pg_size_pretty(pg_total_relation_size('cadre_run')),"
                        + " (SELECT pg_size_pretty(SUM(pg_total_relation_size(inhrelid))) FROM pg_inherits"
                        + " WHERE inhparent = 'cadre_run_event'::regclass),"
                        + " (SELECT pg_size_pretty(SUM(pg_total_relation_size(inhrelid))) FROM pg_inherits"
                        + " WHERE inhparent = 'cadre_span'::regclass)")) {
            rs.next();
            return "database " + rs.getString(1) + " (runs " + rs.getString(2) + ", events " + rs.getString(3)
                    + ", spans " + rs.getString(4) + ")";
        }
    }

    long databaseBytes() throws Exception {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT pg_database_size(current_database())")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
