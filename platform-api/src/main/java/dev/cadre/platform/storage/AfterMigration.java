package dev.cadre.platform.storage;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.BiConsumer;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Work a table's owner does right after Flyway migrated, on Flyway's connection and in one
 * transaction, before this instance executes or stores anything: the one-time rollup builds (which
 * claim a marker row, so they happen once per database however many instances start; later starts
 * cost one primary-key delete, whatever the history size) and PostgreSQL-only indexes that plain
 * migration SQL, which must also run on H2, cannot express.
 */
public final class AfterMigration implements Callback {

    private final String name;
    private final BiConsumer<JdbcClient, String> build;

    /** {@code build} gets a client on Flyway's connection and the database product name. */
    public AfterMigration(String name, BiConsumer<JdbcClient, String> build) {
        this.name = name;
        this.build = build;
    }

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.AFTER_MIGRATE;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public void handle(Event event, Context context) {
        Connection c = context.getConnection();
        try {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                build.accept(
                        JdbcClient.create(new SingleConnectionDataSource(c, true)),
                        c.getMetaData().getDatabaseProductName());
                c.commit();
            } catch (RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("after-migration step '" + name + "' failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String getCallbackName() {
        return name;
    }
}
