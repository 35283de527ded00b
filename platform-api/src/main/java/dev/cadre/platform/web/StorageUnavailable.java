package dev.cadre.platform.web;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * A request that failed because the database could not be reached (down, restarting, pool
 * exhausted) is the server's temporary state, not a bug: it answers 503 with {@code Retry-After}
 * so clients and load balancers retry, instead of a 500 "failed unexpectedly" with an incident.
 * The fault suite (docs/reliability.md) found PostgreSQL restarts answered as 500s.
 */
public final class StorageUnavailable {

    static final String RETRY_AFTER_SECONDS = "5";

    private StorageUnavailable() {}

    /** Whether {@code e} or one of its causes says the database connection is unavailable. */
    public static boolean causedBy(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof DataAccessResourceFailureException
                    || t instanceof CannotCreateTransactionException
                    || t instanceof TransientDataAccessResourceException
                    || t instanceof SQLTransientConnectionException) {
                return true;
            }
            // HikariCP's proxy of a connection it already evicted as broken, e.g. in a rollback after
            // the connection failed mid-transaction (Spring then throws the rollback's exception).
            if (t instanceof SQLException sql && "Connection is closed".equals(sql.getMessage())) {
                return true;
            }
            // SQLSTATE class 08: connection exception; 57P01-03: the server is shutting down or starting.
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("08") || state.startsWith("57P")) {
                    return true;
                }
            }
        }
        return false;
    }

    static ResponseEntity<ProblemDetail> response() {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(Problems.of(
                        HttpStatus.SERVICE_UNAVAILABLE,
                        "storage-unavailable",
                        "Storage unavailable",
                        "the database cannot be reached right now; retry after " + RETRY_AFTER_SECONDS + " s"));
    }
}
