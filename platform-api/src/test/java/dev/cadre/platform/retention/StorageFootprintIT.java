package dev.cadre.platform.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.TestTools;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;

/**
 * What a run of the demo ops team writes to PostgreSQL, table by table ({@code
 * pg_total_relation_size} before and after N triage runs of one recurring alert), the figure behind the
 * storage-per-month table of docs/deploy.md; and that an ended run keeps no checkpoint (it was the
 * run row's largest column, rewritten on every iteration and kept forever).
 */
class StorageFootprintIT {

    static final int RUNS = 20;

    private final ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("footprint_it");
    private ConfigurableApplicationContext context;

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
        pg.dropSchema();
    }

    @Test
    void bytesPerRun_byTable_andEndedRunsKeepNoCheckpoint() {
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
        JdbcClient jdbc = context.getBean(JdbcClient.class);
        // One run first: tables and indexes get their first pages, which would otherwise count.
        runOne(api, 0);
        Map<String, Long> before = sizes(jdbc);

        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= RUNS; i++) {
            ids.add(runOne(api, i));
        }
        Map<String, Long> after = sizes(jdbc);

        Map<String, Long> perRun = new LinkedHashMap<>();
        long total = 0;
        for (var e : after.entrySet()) {
            long d = (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / RUNS;
            if (d != 0) {
                perRun.put(e.getKey(), d);
                total += d;
            }
        }
        System.out.println(
                "Bytes per run by table (" + RUNS + " triage runs, PostgreSQL): " + perRun + ", total " + total);
        // Live bytes per run (rows as stored, TOAST included, without the dead versions the run's
        // updates leave until VACUUM reuses them): the steady-state figure.
        Map<String, Long> live = new LinkedHashMap<>();
        for (String table : perRun.keySet()) {
            live.put(
                    table,
                    jdbc.sql("SELECT COALESCE(SUM(pg_column_size(t.*)), 0) FROM " + table + " t")
                                    .query(Long.class)
                                    .single()
                            / (RUNS + 1));
        }
        System.out.println("Live row bytes per run by table (without indexes and dead versions): " + live);
        for (String id : ids) {
            assertThat(jdbc.sql("SELECT checkpoint FROM cadre_run WHERE id = ?")
                            .param(id)
                            .query(String.class)
                            .optional())
                    .as("checkpoint of ended run " + id)
                    .isEmpty();
        }
        // A loose bound that catches a regression of several times, not noise.
        assertThat(total).isLessThan(200_000);
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
            api.post("/api/v1/approvals/" + approval.get("id").asString() + "/approve", Api.ADMIN_KEY, "{}");
        }
        JsonNode run = api.awaitRunEnd(id);
        assertThat(run.get("status").asString()).isEqualTo("completed");
        return id;
    }

    /** Every table of the schema (partitions summed into their table) with its indexes and TOAST. */
    private static Map<String, Long> sizes(JdbcClient jdbc) {
        Map<String, Long> out = new java.util.TreeMap<>();
        jdbc.sql("SELECT COALESCE(p.relname, c.relname) AS t, SUM(pg_total_relation_size(c.oid)) AS b"
                        + " FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid"
                        + " LEFT JOIN pg_class p ON p.oid = i.inhparent"
                        + " WHERE c.relkind = 'r' AND c.relnamespace = to_regnamespace(current_schema())"
                        + " GROUP BY 1")
                .query(rs -> {
                    out.put(rs.getString("t"), rs.getLong("b"));
                });
        return out;
    }
}
