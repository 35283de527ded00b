package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.support.Await;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two instances starting on one PostgreSQL database both run the steps after Flyway's migration; the
 * second must wait for the first and then find its indexes there — a cluster test saw the second
 * instance fail to start on a duplicate {@code cadre_run_input_trgm}, because {@code CREATE INDEX IF
 * NOT EXISTS} does not see a twin's uncommitted index.
 */
class AfterMigrationTwinsPostgresTest {

    private final ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("aftermig");

    @AfterEach
    void drop() {
        pg.dropSchema();
    }

    @Test
    void aSecondInstance_waitsForTheFirstsIndexes_andStarts() throws Exception {
        try (Connection setup = pg.connect();
                var st = setup.createStatement()) {
            st.execute("CREATE TABLE cadre_run (id VARCHAR(64) PRIMARY KEY, input TEXT, result TEXT)");
        }
        RunStore.AfterMigration step = new RunStore.AfterMigration("run-search-indexes", RunStore::ensureSearchIndexes);
        try (Connection first = pg.connect();
                Connection second = pg.connect()) {
            // The first instance is midway: its step holds its transaction with the indexes created, uncommitted.
            first.setAutoCommit(false);
            int firstPid;
            try (var st = first.createStatement();
                    var rs = st.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                firstPid = rs.getInt(1);
            }
            // Its commit is held back: the step has run, its transaction is still open.
            step.handle(Event.AFTER_MIGRATE, context(new KeepOpen(first).connection()));
            CompletableFuture<Void> secondStart =
                    CompletableFuture.runAsync(() -> step.handle(Event.AFTER_MIGRATE, context(second)));
            // The second instance's step is waiting on the first's transaction.
            Await.until(
                    "the second instance's step to wait for the first", () -> waitingOn(firstPid), waiting -> waiting);
            // The first one's step commits, as a real start does next.
            first.commit();
            secondStart.get(60, TimeUnit.SECONDS);
        }
        try (Connection c = pg.connect();
                var st = c.createStatement();
                var rs = st.executeQuery("SELECT COUNT(*) FROM pg_indexes WHERE schemaname = '" + pg.schema()
                        + "' AND indexname IN ('cadre_run_input_trgm', 'cadre_run_result_trgm')")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(2);
        }
    }

    private boolean waitingOn(int pid) {
        try (Connection c = pg.connect();
                var st = c.createStatement();
                var rs = st.executeQuery(
                        "SELECT COUNT(*) FROM pg_stat_activity WHERE " + pid + " = ANY(pg_blocking_pids(pid))")) {
            rs.next();
            return rs.getInt(1) > 0;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Context context(Connection c) {
        return (Context) Proxy.newProxyInstance(
                Context.class.getClassLoader(), new Class<?>[] {Context.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        return c;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    /** A connection whose rollback and autocommit changes do nothing, so the step's transaction stays open. */
    private record KeepOpen(Connection target) {
        Connection connection() {
            return (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "rollback", "setAutoCommit", "commit" -> {
                                return null;
                            }
                            case "getAutoCommit" -> {
                                return false;
                            }
                            default -> {
                                try {
                                    return method.invoke(target, args);
                                } catch (java.lang.reflect.InvocationTargetException e) {
                                    throw e.getCause();
                                }
                            }
                        }
                    });
        }
    }
}
