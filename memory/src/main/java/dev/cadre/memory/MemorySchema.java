package dev.cadre.memory;

import dev.cadre.memory.internal.Dialect;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Creates and upgrades memory's tables (all named {@code cadre_memory_*}) with Flyway, recording
 * them in a history table of their own, {@code cadre_memory_schema_history}, so an application's own
 * Flyway migrations in the same schema never collide with these. Works on PostgreSQL and H2.
 */
public final class MemorySchema {

    /** The Flyway history table of memory's migrations. */
    public static final String HISTORY_TABLE = "cadre_memory_schema_history";

    private MemorySchema() {}

    /**
     * Applies pending migrations to the DataSource's current schema; returns how many ran. Safe to
     * call on every start and from several instances at once (Flyway locks its history table).
     */
    public static int migrate(DataSource dataSource) {
        Dialect dialect = Dialect.of(dataSource);
        MigrateResult result = Flyway.configure(MemorySchema.class.getClassLoader())
                .dataSource(dataSource)
                .table(HISTORY_TABLE)
                .locations("classpath:db/cadre-memory/" + dialect.migrationFolder())
                // The schema usually holds the application's tables already: start our own
                // history at 0 instead of refusing a "non-empty schema without history".
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
        return result.migrationsExecuted;
    }
}
