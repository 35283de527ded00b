package dev.cadre.memory.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/** The SQL databases memory runs on; they differ in a few statements (see {@link JdbcWrites} and {@link JdbcOutbox}). */
public enum Dialect {
    POSTGRESQL("postgresql"),
    H2("h2");

    private final String migrationFolder;

    Dialect(String migrationFolder) {
        this.migrationFolder = migrationFolder;
    }

    public String migrationFolder() {
        return migrationFolder;
    }

    public static Dialect of(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            return of(c.getMetaData().getDatabaseProductName());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the database to find its kind: " + e.getMessage(), e);
        }
    }

    static Dialect of(String productName) {
        String p = productName.toLowerCase(Locale.ROOT);
        if (p.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (p.equals("h2")) {
            return H2;
        }
        throw new IllegalArgumentException(
                "memory supports PostgreSQL and H2, not '" + productName + "' (from DatabaseMetaData)");
    }
}
