package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.PlatformTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

/** {@link RollupsContract} on the embedded default (H2). */
@PlatformTest
class RollupsTest extends RollupsContract {

    /** H2's error code for "timeout trying to lock table". */
    private static final int H2_LOCK_TIMEOUT = 50200;

    @Autowired
    DataSource dataSource;

    /**
     * A run ending whose statistics rows exist already leaves H2's lock waiting intact: another
     * transaction wanting those rows waits on the ending's transaction and gives up after its lock
     * timeout. Before, the rollup upsert's INSERT … ON CONFLICT DO NOTHING failed inside H2 on the
     * existing row and rolled back to a savepoint; from then on H2 lets waiters on that
     * transaction's rows retry at once instead of waiting (no lock timeout applies), so they spun —
     * runs ending together on virtual threads spun on every carrier and the transaction holding the
     * rows never got one to commit on: the suite hung with the connection pool exhausted.
     */
    @Test
    void anEndingHoldingTheRollupRows_isWaitedFor_notSpunOn() throws Exception {
        Instant hour = base.minus(3 * 365, ChronoUnit.DAYS);
        String first = UUID.randomUUID().toString();
        String second = UUID.randomUUID().toString();
        clock.now = hour.plusSeconds(60);
        for (String id : java.util.List.of(first, second)) {
            store.insert(submittedRun(id));
            store.transition(id, EnumSet.of(RunStatus.SUBMITTED), RunStatus.WORKING);
        }
        clock.now = hour.plusSeconds(61);
        // The first ending creates the rows; the second, held open below, adds to them.
        assertThat(store.finish(null, first, RunStatus.COMPLETED, "ok", null, null, null, null, null, 1, 1, 1))
                .isTrue();

        CompletableFuture<Object> waiter = new CompletableFuture<>();
        Boolean ended = new TransactionTemplate(transactionManager).execute(tx -> {
            boolean done = store.finish(null, second, RunStatus.COMPLETED, "ok", null, null, null, null, null, 1, 1, 1);
            // Another connection wants the agent's outcome row this transaction now holds.
            Thread.ofPlatform().start(() -> {
                try (Connection c = dataSource.getConnection()) {
                    c.setAutoCommit(false);
                    c.createStatement().execute("SET LOCK_TIMEOUT 200");
                    try (PreparedStatement update =
                            c.prepareStatement("UPDATE cadre_agent_outcome SET runs = runs WHERE agent = ?")) {
                        update.setString(1, a);
                        waiter.complete(update.executeUpdate());
                    } finally {
                        c.rollback();
                    }
                } catch (SQLException e) {
                    waiter.complete(e);
                }
            });
            try {
                // A bound for the broken case only (the waiter spins until this transaction ends);
                // a waiting waiter is done after its 200 ms lock timeout.
                waiter.get(30, TimeUnit.SECONDS);
            } catch (TimeoutException spinning) {
                // Ending the transaction lets the spinning waiter through: its update succeeds.
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return done;
        });

        assertThat(ended).isTrue();
        Object outcome = waiter.get(30, TimeUnit.SECONDS);
        assertThat(outcome)
                .as("the other transaction waited on the held row and timed out")
                .isInstanceOfSatisfying(
                        SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(H2_LOCK_TIMEOUT));
        assertThat(store.outcomesOf(a).runs()).isEqualTo(2);
    }

    private RunRecord submittedRun(String id) {
        return new RunRecord(
                id,
                a,
                "lock wait",
                null,
                RunStatus.SUBMITTED,
                null,
                null,
                null,
                null,
                null,
                null,
                0,
                0,
                0,
                "rollups-test",
                null,
                null,
                null,
                null,
                0,
                clock.now,
                null,
                null,
                clock.now);
    }
}
