package dev.cadre.platform.storage;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Whether the platform can still use its database, found by running a statement on it: an H2
 * database that closed itself after a failed write leaves connections in the pool that still look
 * valid while every statement fails (issue 23, finding 1: health said UP while every request answered
 * 503). In the readiness group it takes an instance that cannot use its database out of rotation. The
 * {@link #embedded} variant is for the liveness group: DOWN only for the embedded database, which a
 * restart reopens; an external database's outage is no reason to restart instances.
 */
public final class DatabaseHealth implements HealthIndicator {

    private static final int QUERY_TIMEOUT_SECONDS = 5;

    private final DataSource dataSource;
    private final boolean applies;

    private DatabaseHealth(DataSource dataSource, boolean applies) {
        this.dataSource = dataSource;
        this.applies = applies;
    }

    /** Asks the database, whichever it is. */
    public static DatabaseHealth of(DataSource dataSource) {
        return new DatabaseHealth(dataSource, true);
    }

    /** Asks the database when it is the embedded one (an H2 URL); UP without asking otherwise. */
    public static DatabaseHealth embedded(DataSource dataSource, @Nullable String jdbcUrl) {
        return new DatabaseHealth(dataSource, jdbcUrl != null && jdbcUrl.regionMatches(true, 0, "jdbc:h2:", 0, 8));
    }

    @Override
    public Health health() {
        if (!applies) {
            return Health.up().withDetail("embedded", false).build();
        }
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
            try (ResultSet r = s.executeQuery("SELECT 1")) {
                r.next();
            }
            return Health.up().build();
        } catch (Exception e) {
            String message = String.valueOf(e.getMessage());
            int eol = message.indexOf('\n');
            return Health.down()
                    .withDetail("error", eol < 0 ? message : message.substring(0, eol))
                    .build();
        }
    }
}
