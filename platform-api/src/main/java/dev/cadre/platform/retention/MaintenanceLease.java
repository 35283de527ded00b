package dev.cadre.platform.retention;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Who does a maintenance job now, among several instances on one database: a row per job, taken
 * by a conditional UPDATE when free, expired, or already ours (the row lock makes exactly one of
 * two racing instances win), renewed while the job works and released when it ends. The only
 * class that names {@code cadre_maintenance_lease}.
 */
final class MaintenanceLease {

    private final JdbcClient jdbc;
    private final Clock clock;
    private final String owner;

    MaintenanceLease(JdbcClient jdbc, Clock clock, String owner) {
        this.jdbc = jdbc;
        this.clock = clock;
        this.owner = owner;
    }

    String owner() {
        return owner;
    }

    /** Takes (or extends) the job's lease for {@code ttl}; false when another instance holds it. */
    boolean acquire(String job, Duration ttl) {
        Instant now = clock.instant();
        return jdbc.sql("UPDATE cadre_maintenance_lease SET owner = ?, lease_until = ?"
                                + " WHERE name = ? AND (owner = ? OR owner = '' OR lease_until < ?)")
                        .params(owner, Timestamp.from(now.plus(ttl)), job, owner, Timestamp.from(now))
                        .update()
                == 1;
    }

    /** Ends our lease and records when the job last ran to completion. */
    void release(String job) {
        Instant now = clock.instant();
        jdbc.sql("UPDATE cadre_maintenance_lease SET owner = '', lease_until = ?, last_run_at = ?"
                        + " WHERE name = ? AND owner = ?")
                .params(Timestamp.from(now), Timestamp.from(now), job, owner)
                .update();
    }

    /** When the job last completed on any instance. */
    Optional<Instant> lastRunAt(String job) {
        return jdbc.sql("SELECT last_run_at FROM cadre_maintenance_lease WHERE name = ? AND last_run_at IS NOT NULL")
                .param(job)
                .query(java.time.OffsetDateTime.class)
                .optional()
                .map(java.time.OffsetDateTime::toInstant);
    }
}
