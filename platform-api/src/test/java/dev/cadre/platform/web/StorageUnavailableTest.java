package dev.cadre.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.RequestDispatcher;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * Found by the fault suite: while PostgreSQL restarted, requests answered 500 "failed
 * unexpectedly" with an incident (from the API-key filter and from controllers). A lost database
 * connection is a temporary state: 503 with Retry-After, as problem details.
 */
class StorageUnavailableTest {

    private final MockHttpServletRequest request = new MockHttpServletRequest("PUT", "/api/v1/memory/ns/key");

    @Test
    void aLostConnectionInAController_is503WithRetryAfter() {
        var e = new DataAccessResourceFailureException(
                "Unable to commit against JDBC Connection",
                new SQLException("An I/O error occurred while sending to the backend.", "08006"));

        assertUnavailable(new ApiExceptionHandler().unexpected(e, request));
    }

    @Test
    void aWrappedConnectionFailure_seenByTheErrorPageOfAFilter_is503() {
        // e.g. the security filter's API-key lookup, wrapped by Hibernate and Spring
        var e = new IllegalStateException(
                "lookup failed", new RuntimeException(new SQLException("the database system is starting up", "57P03")));
        request.setAttribute(RequestDispatcher.ERROR_EXCEPTION, e);
        request.setAttribute(RequestDispatcher.ERROR_STATUS_CODE, 500);

        assertUnavailable(new ProblemErrorController().error(request));
    }

    @Test
    void noConnectionFromThePool_is503() {
        var e = new CannotCreateTransactionException(
                "Could not open JPA EntityManager", new SQLTransientConnectionException("pool timed out"));

        assertUnavailable(new ApiExceptionHandler().unexpected(e, request));
    }

    @Test
    void aFailedRollbackOnAConnectionThePoolClosed_is503() {
        // what Spring throws when the connection broke mid-transaction: the rollback's exception
        var e = new org.springframework.orm.jpa.JpaSystemException(new RuntimeException(
                "Unable to rollback against JDBC Connection", new SQLException("Connection is closed")));

        assertUnavailable(new ApiExceptionHandler().unexpected(e, request));
    }

    @Test
    void anyOtherFailure_staysA500WithAnIncident() {
        ResponseEntity<ProblemDetail> r =
                new ApiExceptionHandler().unexpected(new SQLException("syntax error", "42601"), request);

        assertThat(r.getStatusCode().value()).isEqualTo(500);
        assertThat(r.getBody().getProperties()).containsKey("incident");
    }

    private static void assertUnavailable(ResponseEntity<ProblemDetail> r) {
        assertThat(r.getStatusCode().value()).isEqualTo(503);
        assertThat(r.getHeaders().getFirst("Retry-After")).isEqualTo("5");
        assertThat(r.getBody().getType().toString()).isEqualTo("urn:cadre:problem:storage-unavailable");
        assertThat(r.getBody().getDetail()).doesNotContain("incident");
    }
}
