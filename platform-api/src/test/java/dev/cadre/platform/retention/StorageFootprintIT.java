package dev.cadre.platform.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.TestTools;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * What a run of the demo ops team writes to PostgreSQL, table by table: the figure behind the
 * storage-per-month table of docs/deploy.md, and a harness to rerun after a change to what is
 * stored. It runs one triage first (tables and indexes get their first pages), VACUUM ANALYZEs,
 * then runs N more (system property {@code cadre.footprint.runs}, default 20), VACUUMs, and N more
 * (the steady state: these reuse what VACUUM freed). For each pass it prints per run:
 * the growth of each table's heap, TOAST and indexes (partitions summed into their table), the
 * live bytes of its rows, and its inserted, updated (of which HOT) and deleted rows from {@code
 * pg_stat_user_tables}; then where the event and span bytes are, by event type and span name.
 * It also checks that an ended run keeps no checkpoint (it was the run row's largest column).
 *
 * <p>Rerun: {@code CADRE_TEST_POSTGRES_URL=jdbc:postgresql://127.0.0.1:5432/<db> ./mvnw -B -o -pl
 * platform-api -am verify -DskipTests=false -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=StorageFootprintIT -Dfailsafe.failIfNoSpecifiedTests=false -Dcadre.footprint.runs=50}.
 */
class StorageFootprintIT {

    static final int RUNS = Integer.getInteger("cadre.footprint.runs", 20);

    private final ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("footprint_it");
    private ConfigurableApplicationContext context;

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
        pg.dropSchema();
    }

    /** One table's figures at a moment: sizes in bytes, live row bytes, and cumulative row counters. */
    record Table(long heap, long toast, long index, long live, long rows, long ins, long upd, long hot, long del) {
        long total() {
            return heap + toast + index;
        }

        Table minus(Table o) {
            return new Table(
                    heap - o.heap,
                    toast - o.toast,
                    index - o.index,
                    live - o.live,
                    rows - o.rows,
                    ins - o.ins,
                    upd - o.upd,
                    hot - o.hot,
                    del - o.del);
        }
    }

    @Test
    void bytesPerRun_byTable_andEndedRunsKeepNoCheckpoint() throws Exception {
        context = new SpringApplicationBuilder(CadreApplication.class, TestTools.class)
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=" + pg.jdbcUrl(),
                        "--spring.datasource.username=" + pg.user(),
                        "--spring.datasource.password=" + pg.password(),
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.approvals.separation-of-duties=false",
                        "--cadre.retention.enabled=false");
        Api api = new Api(((WebServerApplicationContext) context).getWebServer().getPort());
        runOne(api, 0);
        List<String> ids = new ArrayList<>();
        try (Connection c = pg.connect()) {
            vacuum(c);
            Map<String, Table> start = snapshot(c);
            // First pass: what N runs add to freshly vacuumed tables (the updates' dead versions
            // count, nothing reuses them yet).
            for (int i = 1; i <= RUNS; i++) {
                ids.add(runOne(api, i));
            }
            flushStatistics();
            Map<String, Table> first = settledSnapshot(c);
            vacuum(c);
            Map<String, Table> firstVacuumed = snapshot(c);
            report("first " + RUNS + " runs", start, first, firstVacuumed);
            // Second pass: the next N runs reuse the space VACUUM freed, as they do in a database
            // that autovacuum keeps up with: the steady-state growth.
            for (int i = RUNS + 1; i <= 2 * RUNS; i++) {
                ids.add(runOne(api, i));
            }
            flushStatistics();
            Map<String, Table> second = settledSnapshot(c);
            vacuum(c);
            Map<String, Table> secondVacuumed = snapshot(c);
            long total = report(
                    "next " + RUNS + " runs, after VACUUM (steady state)", firstVacuumed, second, secondVacuumed);
            for (String id : ids) {
                assertThat(scalar(c, "SELECT COUNT(*) FROM cadre_run WHERE id = '" + id + "' AND checkpoint IS NULL"))
                        .as("checkpoint of ended run " + id + " is gone")
                        .isEqualTo(1L);
            }
            breakdown(c);
            // A loose bound that catches a regression of several times, not noise.
            assertThat(total).isLessThan(200_000);
        }
    }

    /**
     * Statistics counters are flushed by the backends that did the work when they go idle (at most
     * every few seconds) or exit: the platform's pool closes its idle connections, so they exit.
     */
    private void flushStatistics() throws SQLException {
        javax.sql.DataSource ds = context.getBean(javax.sql.DataSource.class);
        if (ds.isWrapperFor(com.zaxxer.hikari.HikariDataSource.class)) {
            ds.unwrap(com.zaxxer.hikari.HikariDataSource.class)
                    .getHikariPoolMXBean()
                    .softEvictConnections();
        }
    }

    private static long report(
            String pass, Map<String, Table> before, Map<String, Table> after, Map<String, Table> afterVacuum) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT, "%nBytes per run by table (triage runs of the demo ops team, PostgreSQL; %s):%n", pass));
        String format = "%-28s %8s %7s %7s %7s %7s %7s %6s %6s %6s %6s%n";
        out.append(String.format(
                Locale.ROOT,
                format,
                "table",
                "total",
                "heap",
                "toast",
                "index",
                "live",
                "vacuum",
                "rows",
                "ins",
                "upd",
                "hot"));
        long total = 0;
        Table sum = new Table(0, 0, 0, 0, 0, 0, 0, 0, 0);
        for (var e : after.entrySet()) {
            Table d = e.getValue().minus(before.getOrDefault(e.getKey(), new Table(0, 0, 0, 0, 0, 0, 0, 0, 0)));
            long afterVac = afterVacuum.get(e.getKey()).total()
                    - before.getOrDefault(e.getKey(), new Table(0, 0, 0, 0, 0, 0, 0, 0, 0))
                            .total();
            if (d.total() == 0 && d.ins() == 0 && d.upd() == 0 && d.del() == 0) {
                continue;
            }
            total += d.total() / RUNS;
            sum = new Table(
                    sum.heap + d.heap,
                    sum.toast + d.toast,
                    sum.index + d.index,
                    sum.live + d.live,
                    sum.rows + d.rows,
                    sum.ins + d.ins,
                    sum.upd + d.upd,
                    sum.hot + d.hot,
                    sum.del + d.del);
            out.append(row(format, e.getKey(), d, afterVac));
        }
        out.append(row(format, "TOTAL", sum, sum.total()));
        out.append("(total = heap + toast + index file growth; live = bytes of the rows added; vacuum = growth"
                + " measured again after VACUUM; rows/ins/upd/hot = rows added, inserted, updated, of those HOT)\n");
        System.out.print(out);
        return total;
    }

    private static String row(String format, String name, Table d, long afterVac) {
        return String.format(
                Locale.ROOT,
                format,
                name,
                d.total() / RUNS,
                d.heap() / RUNS,
                d.toast() / RUNS,
                d.index() / RUNS,
                d.live() / RUNS,
                afterVac / RUNS,
                per(d.rows()),
                per(d.ins()),
                per(d.upd()),
                per(d.hot()));
    }

    private static String per(long n) {
        return String.format(Locale.ROOT, "%.1f", n / (double) RUNS);
    }

    /** Where the bytes of events and spans are: stored JSON per event type and attributes per span name. */
    private static void breakdown(Connection c) throws SQLException {
        int runs = 2 * RUNS + 1;
        StringBuilder out = new StringBuilder("Events per run by type (count, JSON bytes):");
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT type, COUNT(*), SUM(LENGTH(data)) FROM cadre_run_event"
                        + " GROUP BY type ORDER BY 3 DESC")) {
            while (rs.next()) {
                out.append(String.format(
                        Locale.ROOT,
                        " %s %.1f/%d",
                        rs.getString(1),
                        rs.getLong(2) / (double) runs,
                        rs.getLong(3) / runs));
            }
        }
        out.append("\nSpans per run by name (count, attribute JSON bytes):");
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT name, COUNT(*), SUM(LENGTH(attributes)) FROM cadre_span"
                        + " GROUP BY name ORDER BY 3 DESC")) {
            while (rs.next()) {
                out.append(String.format(
                        Locale.ROOT,
                        " [%s] %.1f/%d",
                        rs.getString(1),
                        rs.getLong(2) / (double) runs,
                        rs.getLong(3) / runs));
            }
        }
        System.out.println(out);
        if (Boolean.getBoolean("cadre.footprint.samples")) {
            samples(c);
        }
    }

    /** One stored example of each event type and span name of the newest run, as stored. */
    private static void samples(Connection c) throws SQLException {
        String run = "(SELECT id FROM cadre_run ORDER BY created_at DESC, id DESC FETCH FIRST 1 ROW ONLY)";
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT DISTINCT ON (type) type, data FROM cadre_run_event"
                        + " WHERE run_id = " + run + " ORDER BY type, seq")) {
            while (rs.next()) {
                System.out.println("event " + rs.getString(1) + ": " + rs.getString(2));
            }
        }
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT DISTINCT ON (name) name, attributes FROM cadre_span"
                        + " WHERE run_id = " + run + " ORDER BY name, start_nanos")) {
            while (rs.next()) {
                System.out.println("span " + rs.getString(1) + ": " + rs.getString(2));
            }
        }
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT LENGTH(input), LENGTH(result), LENGTH(subagents),"
                        + " LENGTH(tools_called), LENGTH(context) FROM cadre_run WHERE id = " + run)) {
            rs.next();
            System.out.println("run row: input " + rs.getInt(1) + ", result " + rs.getInt(2) + ", subagents "
                    + rs.getInt(3) + ", tools_called " + rs.getInt(4) + ", context " + rs.getInt(5));
        }
    }

    private static void vacuum(Connection c) throws SQLException {
        c.setAutoCommit(true); // VACUUM cannot run inside a transaction block
        try (Statement st = c.createStatement()) {
            st.execute("VACUUM ANALYZE");
        }
    }

    /**
     * A snapshot once the statistics counters have settled (unchanged for two seconds): the
     * platform's backends flush them when they exit, shortly after the pool closed them.
     */
    private static Map<String, Table> settledSnapshot(Connection c) throws SQLException, InterruptedException {
        Map<String, Table> last = snapshot(c);
        int unchanged = 0;
        for (int i = 0; i < 60 && unchanged < 4; i++) {
            Thread.sleep(500);
            Map<String, Table> next = snapshot(c);
            unchanged = next.equals(last) ? unchanged + 1 : 0;
            last = next;
        }
        return last;
    }

    /** Every table of the schema, partitions summed into their table. */
    private static Map<String, Table> snapshot(Connection c) throws SQLException {
        Map<String, Table> out = new TreeMap<>();
        try (Statement st = c.createStatement()) {
            // A fresh statistics snapshot per query (they are cached per transaction otherwise).
            st.execute("SELECT pg_stat_clear_snapshot()");
            try (ResultSet rs =
                    st.executeQuery("SELECT COALESCE(p.relname, c.relname) AS t, SUM(pg_relation_size(c.oid)) AS heap,"
                            + " SUM(pg_table_size(c.oid) - pg_relation_size(c.oid)) AS toast,"
                            + " SUM(pg_indexes_size(c.oid)) AS idx, SUM(s.n_live_tup) AS rows,"
                            + " SUM(s.n_tup_ins) AS ins, SUM(s.n_tup_upd) AS upd, SUM(s.n_tup_hot_upd) AS hot,"
                            + " SUM(s.n_tup_del) AS del"
                            + " FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid"
                            + " LEFT JOIN pg_class p ON p.oid = i.inhparent"
                            + " LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid"
                            + " WHERE c.relkind = 'r' AND c.relnamespace = to_regnamespace(current_schema())"
                            + " GROUP BY 1")) {
                while (rs.next()) {
                    out.put(
                            rs.getString("t"),
                            new Table(
                                    rs.getLong("heap"),
                                    rs.getLong("toast"),
                                    rs.getLong("idx"),
                                    0,
                                    rs.getLong("rows"),
                                    rs.getLong("ins"),
                                    rs.getLong("upd"),
                                    rs.getLong("hot"),
                                    rs.getLong("del")));
                }
            }
        }
        for (var e : out.entrySet()) {
            Table t = e.getValue();
            long live = scalar(c, "SELECT COALESCE(SUM(pg_column_size(t.*)), 0) FROM " + e.getKey() + " t");
            // n_live_tup is an estimate; the exact count is cheap at this size.
            long rows = scalar(c, "SELECT COUNT(*) FROM " + e.getKey());
            e.setValue(new Table(t.heap, t.toast, t.index, live, rows, t.ins, t.upd, t.hot, t.del));
        }
        return out;
    }

    private static long scalar(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String runOne(Api api, int i) {
        String id = api.submitRun("ops-orchestrator", "Triage: disk almost full on db-" + i)
                .get("id")
                .asString();
        // The first triage of an incident waits for a human to approve its runbook; later ones find
        // the remediation already done (as a real alert that keeps firing would).
        String status = Await.until(
                "run " + id + " to end or wait for a human",
                () -> api.get("/api/v1/runs/" + id, Api.ADMIN_KEY)
                        .json()
                        .get("status")
                        .asString(),
                st -> st.matches("input-required|completed|failed|canceled|rejected"));
        if (status.equals("input-required")) {
            JsonNode approval = api.pendingApprovalOf(id);
            api.approve(approval.get("id").asString(), Api.ADMIN_KEY);
        }
        JsonNode run = api.awaitRunEnd(id);
        assertThat(run.get("status").asString()).isEqualTo("completed");
        return id;
    }
}
