package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * Events emitted while the database is away are stored once it is back, in order and without a
 * gap; when it stays away longer than the retry allows, the event fails and its number is given
 * back, so the log still has no hole.
 */
class RunEventsOutageTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final AtomicInteger refusals = new AtomicInteger();
    private JdbcClient jdbc;

    @BeforeEach
    void database() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:events-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH");
        Flyway.configure()
                .dataSource(h2)
                .locations("classpath:db/migration")
                .load()
                .migrate();
        // The pool's answer while PostgreSQL restarts: no connection for a while.
        jdbc = JdbcClient.create(new DelegatingDataSource(h2) {
            @Override
            public Connection getConnection() throws SQLException {
                if (refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    throw new SQLTransientConnectionException("Connection is not available, request timed out");
                }
                return super.getConnection();
            }
        });
    }

    private long append(RunEvents events, String runId, String type) {
        return events.append(runId, type, true, runId, null, JSON.createObjectNode(), Instant.now());
    }

    @Test
    void anEventDuringAShortOutage_isStoredWhenTheDatabaseIsBack() {
        RunEvents events = new RunEvents(jdbc, null, JSON, Duration.ofSeconds(30), null, null);
        assertThat(append(events, "run-1", "run_started")).isEqualTo(1);

        refusals.set(3); // the next three connection attempts fail
        assertThat(append(events, "run-1", "tool_call_start")).isEqualTo(2);
        assertThat(append(events, "run-1", "tool_result")).isEqualTo(3);

        assertThat(events.since("run-1", 0, true, 10))
                .extracting(RunEvents.StoredEvent::seq, RunEvents.StoredEvent::type)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, "run_started"),
                        org.assertj.core.groups.Tuple.tuple(2L, "tool_call_start"),
                        org.assertj.core.groups.Tuple.tuple(3L, "tool_result"));
    }

    @Test
    void anOutageLongerThanTheRetry_failsTheEvent_andLeavesNoGap() {
        RunEvents events = new RunEvents(jdbc, null, JSON, Duration.ofMillis(300), null, null);
        assertThat(append(events, "run-2", "run_started")).isEqualTo(1);

        refusals.set(1_000);
        assertThatThrownBy(() -> append(events, "run-2", "tool_call_start"))
                .isInstanceOf(DataAccessResourceFailureException.class);
        refusals.set(0);

        assertThat(append(events, "run-2", "tool_result")).isEqualTo(2);
        assertThat(events.since("run-2", 0, true, 10))
                .extracting(RunEvents.StoredEvent::seq)
                .containsExactly(1L, 2L);
    }
}
