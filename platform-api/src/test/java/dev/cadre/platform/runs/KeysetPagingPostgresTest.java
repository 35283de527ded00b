package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.PostgresPlatformTest;
import dev.cadre.platform.support.PostgresSchemas;
import java.sql.Connection;
import java.time.Clock;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/** {@link KeysetPagingContract} on PostgreSQL, and how the run search is planned there. */
@PostgresPlatformTest
class KeysetPagingPostgresTest extends KeysetPagingContract {

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        PostgresSchemas.fresh(registry, "keyset_paging");
    }

    @Autowired
    DataSource dataSource;

    @Autowired
    JsonMapper json;

    /**
     * A search for a term no run holds must not read the runs. The driver prepares a repeated
     * statement on the server, and PostgreSQL may then plan it once for any pattern (a generic plan);
     * the session here is set to that plan for every statement, the state a busy instance reaches, and
     * the rows the search read are PostgreSQL's own counts for the table.
     */
    @Test
    void searchForATermNothingMatches_readsNoRuns_evenUnderAGenericPlan() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            SingleConnectionDataSource one = new SingleConnectionDataSource(c, true);
            JdbcClient jdbc = JdbcClient.create(one);
            RunStore store = new RunStore(
                    jdbc,
                    Clock.systemUTC(),
                    json,
                    new DataSourceTransactionManager(one),
                    dev.cadre.platform.web.SecretRedactor.standard());
            String tag = "plan-" + UUID.randomUUID().toString().substring(0, 8);
            jdbc.sql("INSERT INTO cadre_run (id, agent, input, status, submitted_by, created_at, updated_at,"
                            + " input_tokens, output_tokens, iterations, resume_count, priority)"
                            + " SELECT ? || '-' || g, 'plan-agent', 'check host web-' || (g % 50) || ' disk usage',"
                            + " 'completed', 'plan-test', now() - g * interval '1 second', now(), 0, 0, 0, 0, 0"
                            + " FROM generate_series(1, 20000) g")
                    .param(tag)
                    .update();
            // VACUUM merges the trigram indexes' pending entries, as autovacuum does on a live database.
            jdbc.sql("VACUUM ANALYZE cadre_run").update();
            jdbc.sql("SET plan_cache_mode = force_generic_plan").update();
            TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(one));
            try {
                // Counted per transaction, so the platform's own work on other connections does not show.
                long[] read = new long[1];
                var page = transaction.execute(status -> {
                    var runs = store.list(
                            dev.cadre.platform.tenancy.TeamScope.allTeams("test"),
                            new RunStore.Query(null, null, null, null, "zzq-no-run-holds-this", null, 0, 50));
                    read[0] = rowsRead(jdbc);
                    return runs;
                });

                assertThat(page).isEmpty();
                // Walking (created_at, id) backwards and filtering reads all 20,000 (and every other run);
                // the trigram indexes hand over only candidates to recheck (the schema's other runs hold
                // some of the term's trigrams).
                assertThat(read[0]).as("rows of cadre_run read by the search").isLessThan(1000);
                // A common term still pages from the newest run, without reading the history.
                var common = transaction.execute(status -> {
                    var runs = store.list(
                            dev.cadre.platform.tenancy.TeamScope.allTeams("test"),
                            new RunStore.Query(null, null, null, null, "disk usage", null, 0, 50));
                    read[0] = rowsRead(jdbc);
                    return runs;
                });
                assertThat(common).hasSize(50);
                assertThat(read[0]).as("rows read for a common term").isLessThan(1000);
            } finally {
                jdbc.sql("RESET plan_cache_mode").update();
                jdbc.sql("DELETE FROM cadre_run WHERE id LIKE ?")
                        .param(tag + "-%")
                        .update();
            }
        }
    }

    /** Rows of cadre_run the current transaction has read, as PostgreSQL counts them. */
    private static long rowsRead(JdbcClient jdbc) {
        return jdbc.sql("SELECT COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables"
                        + " WHERE relid = 'cadre_run'::regclass")
                .query(Long.class)
                .single();
    }
}
