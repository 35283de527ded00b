package dev.cadre.platform.outbox;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The only class that reads or writes {@code cadre_outbox}. Every state change after a claim is
 * guarded by the claimant's lease ("… WHERE lease_owner = ? AND state = 'PENDING'"), so a worker whose
 * lease ran out while it waited on a slow receiver cannot overwrite what the instance that took over
 * recorded.
 */
public final class OutboxStore {

    private static final String COLUMNS = "id, channel, idempotency_key, subject, kind, body, state, attempts,"
            + " max_attempts, next_attempt_at, last_status, last_error, created_at, delivered_at";

    private final JdbcClient jdbc;
    private final TransactionTemplate transactions;
    private final boolean postgres;

    /**
     * @param postgres whether the database is PostgreSQL: claims then use {@code FOR UPDATE SKIP
     *     LOCKED}; elsewhere (embedded H2) each candidate is claimed by a guarded update
     */
    public OutboxStore(JdbcClient jdbc, TransactionTemplate transactions, boolean postgres) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.postgres = postgres;
    }

    /**
     * Stores a pending delivery due at {@code now}; when one with the same idempotency key exists,
     * returns that one instead (created false).
     */
    Enqueued insert(OutboundMessage m, int maxAttempts, Instant now) {
        String id = "dlv-" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        try {
            jdbc.sql("INSERT INTO cadre_outbox (id, channel, idempotency_key, subject, kind, body, state, attempts,"
                            + " max_attempts, next_attempt_at, last_status, created_at, updated_at)"
                            + " VALUES (?, ?, ?, ?, ?, ?, 'PENDING', 0, ?, ?, 0, ?, ?)")
                    .params(
                            id,
                            m.channel(),
                            m.idempotencyKey(),
                            m.subject(),
                            m.kind(),
                            m.body(),
                            maxAttempts,
                            ts(now),
                            ts(now),
                            ts(now))
                    .update();
        } catch (DuplicateKeyException e) {
            return new Enqueued(byKey(m.idempotencyKey()).orElseThrow(() -> e), false);
        }
        return new Enqueued(find(id).orElseThrow(), true);
    }

    /** A delivery and whether this call stored it (false: one with its key was already there). */
    record Enqueued(OutboxDelivery delivery, boolean created) {}

    public Optional<OutboxDelivery> find(String id) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_outbox WHERE id = ?")
                .param(id)
                .query(OutboxStore::map)
                .optional();
    }

    public Optional<OutboxDelivery> byKey(String idempotencyKey) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_outbox WHERE idempotency_key = ?")
                .param(idempotencyKey)
                .query(OutboxStore::map)
                .optional();
    }

    /** The deliveries of {@code kind} about a subject (an incident), oldest first. */
    public List<OutboxDelivery> about(String subject, String kind) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_outbox WHERE subject = ? AND kind = ?"
                        + " ORDER BY created_at, id")
                .params(subject, kind)
                .query(OutboxStore::map)
                .list();
    }

    /** Whether a delivery of {@code kind} about {@code subject} is still waiting to be delivered. */
    public boolean pending(String subject, String kind) {
        return jdbc.sql("SELECT COUNT(*) FROM cadre_outbox WHERE subject = ? AND kind = ? AND state = 'PENDING'")
                        .params(subject, kind)
                        .query(Long.class)
                        .single()
                > 0;
    }

    /**
     * Claims up to {@code limit} due pending rows whose lease is free or ended, for {@code owner}
     * until {@code leaseUntil}, counting one more attempt on each. Returns them as claimed.
     */
    List<OutboxDelivery> claim(String owner, Instant now, Instant leaseUntil, int limit) {
        if (postgres) {
            List<String> ids = transactions.execute(status -> {
                List<String> due = jdbc.sql("SELECT id FROM cadre_outbox WHERE state = 'PENDING'"
                                + " AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)"
                                + " ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED")
                        .params(ts(now), ts(now), limit)
                        .query(String.class)
                        .list();
                for (String id : due) {
                    jdbc.sql("UPDATE cadre_outbox SET lease_owner = ?, lease_until = ?, attempts = attempts + 1,"
                                    + " updated_at = ? WHERE id = ?")
                            .params(owner, ts(leaseUntil), ts(now), id)
                            .update();
                }
                return due;
            });
            return ids == null ? List.of() : load(ids);
        }
        List<String> candidates = jdbc.sql("SELECT id FROM cadre_outbox WHERE state = 'PENDING'"
                        + " AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)"
                        + " ORDER BY next_attempt_at LIMIT ?")
                .params(ts(now), ts(now), limit)
                .query(String.class)
                .list();
        List<String> won = new ArrayList<>();
        for (String id : candidates) {
            // Compare-and-set on the lease: of two instances that read the same candidate, one updates it.
            int n = jdbc.sql("UPDATE cadre_outbox SET lease_owner = ?, lease_until = ?, attempts = attempts + 1,"
                            + " updated_at = ? WHERE id = ? AND state = 'PENDING' AND next_attempt_at <= ?"
                            + " AND (lease_until IS NULL OR lease_until <= ?)")
                    .params(owner, ts(leaseUntil), ts(now), id, ts(now), ts(now))
                    .update();
            if (n == 1) {
                won.add(id);
            }
        }
        return load(won);
    }

    private List<OutboxDelivery> load(List<String> ids) {
        List<OutboxDelivery> out = new ArrayList<>();
        for (String id : ids) {
            find(id).ifPresent(out::add);
        }
        return out;
    }

    /** Records a 2xx answer; false when the lease was lost (another instance owns the row now). */
    boolean delivered(String id, String owner, int status, Instant now) {
        return jdbc.sql("UPDATE cadre_outbox SET state = 'DELIVERED', last_status = ?, last_error = NULL,"
                                + " delivered_at = ?, updated_at = ?, lease_owner = NULL, lease_until = NULL"
                                + " WHERE id = ? AND lease_owner = ? AND state = 'PENDING'")
                        .params(status, ts(now), ts(now), id, owner)
                        .update()
                == 1;
    }

    /** Records a transient failure and when to try again. */
    boolean retryLater(String id, String owner, int status, String error, Instant next, Instant now) {
        return jdbc.sql("UPDATE cadre_outbox SET last_status = ?, last_error = ?, next_attempt_at = ?,"
                                + " updated_at = ?, lease_owner = NULL, lease_until = NULL"
                                + " WHERE id = ? AND lease_owner = ? AND state = 'PENDING'")
                        .params(status, abbreviate(error), ts(next), ts(now), id, owner)
                        .update()
                == 1;
    }

    /** Records that the delivery is given up on (refused, out of attempts, channel gone). */
    boolean failed(String id, String owner, int status, String error, Instant now) {
        return jdbc.sql("UPDATE cadre_outbox SET state = 'FAILED', last_status = ?, last_error = ?,"
                                + " updated_at = ?, lease_owner = NULL, lease_until = NULL"
                                + " WHERE id = ? AND lease_owner = ? AND state = 'PENDING'")
                        .params(status, abbreviate(error), ts(now), id, owner)
                        .update()
                == 1;
    }

    /**
     * Frees the leases {@code owner} holds: called at start-up by an instance with a stable name, whose
     * leases can only be its dead predecessor's, so it resumes their deliveries at once.
     */
    int releaseLeases(String owner) {
        return jdbc.sql("UPDATE cadre_outbox SET lease_owner = NULL, lease_until = NULL"
                        + " WHERE lease_owner = ? AND state = 'PENDING'")
                .param(owner)
                .update();
    }

    /** Rows per state (every state present, 0 when none), for the metrics. */
    Map<DeliveryState, Long> countByState() {
        Map<DeliveryState, Long> out = new EnumMap<>(DeliveryState.class);
        for (DeliveryState s : DeliveryState.values()) {
            out.put(s, 0L);
        }
        jdbc.sql("SELECT state, COUNT(*) AS n FROM cadre_outbox GROUP BY state")
                .query((rs, i) -> Map.entry(DeliveryState.valueOf(rs.getString("state")), rs.getLong("n")))
                .list()
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /** Deletes delivered and failed rows last changed before {@code before}; returns how many. */
    int prune(Instant before) {
        return jdbc.sql("DELETE FROM cadre_outbox WHERE state <> 'PENDING' AND updated_at < ?")
                .param(ts(before))
                .update();
    }

    private static OutboxDelivery map(ResultSet rs, int row) throws SQLException {
        return new OutboxDelivery(
                rs.getString("id"),
                rs.getString("channel"),
                rs.getString("idempotency_key"),
                rs.getString("subject"),
                rs.getString("kind"),
                rs.getString("body"),
                DeliveryState.valueOf(rs.getString("state")),
                rs.getInt("attempts"),
                rs.getInt("max_attempts"),
                instant(rs, "next_attempt_at"),
                rs.getInt("last_status"),
                rs.getString("last_error"),
                instant(rs, "created_at"),
                nullableInstant(rs, "delivered_at"));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        Instant i = nullableInstant(rs, column);
        if (i == null) {
            throw new SQLException(column + " is null");
        }
        return i;
    }

    private static @Nullable Instant nullableInstant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    private static OffsetDateTime ts(Instant i) {
        // To the column's precision (microseconds): a rounded-up due time would not be due "now".
        return i.truncatedTo(java.time.temporal.ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }

    private static String abbreviate(String s) {
        return s.length() <= 1000 ? s : s.substring(0, 999) + "…";
    }
}
