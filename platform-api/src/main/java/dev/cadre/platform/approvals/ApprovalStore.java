package dev.cadre.platform.approvals;

import dev.cadre.platform.security.Actor;
import dev.cadre.platform.storage.Removed;
import dev.cadre.platform.tenancy.AcrossTeams;
import dev.cadre.platform.tenancy.TeamId;
import dev.cadre.platform.tenancy.TeamOwned;
import dev.cadre.platform.tenancy.TeamScope;
import dev.cadre.platform.web.PageCursor;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Persistence of approval requests; decisions are guarded updates of pending rows only. The only
 * class that reads or writes {@code cadre_approval}: other packages ask through its public query
 * methods.
 */
@Repository
@TeamOwned
public class ApprovalStore {

    private static final String COLUMNS =
            "id, run_id, session_id, call_id, agent, tool, arguments, what, why, confidence,"
                    + " plan, status, edited_arguments, decision_comment, decided_by, decided_at, created_at, expires_at,"
                    + " attempt, arguments_hash, executed_hash, superseded_by, proposed_by, decided_by_key, proposed_by_key";

    private final JdbcClient jdbc;

    ApprovalStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Inserts the request as attempt {@code r.attempt()} of its call; when that attempt exists already
     * (another instance raced us, or the same request again) returns the stored one instead.
     */
    ApprovalRecord insertAttempt(ApprovalRecord r, TeamId team) {
        try {
            jdbc.sql(
                            "INSERT INTO cadre_approval (" + COLUMNS
                                    + ", team) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                    .params(
                            r.id(),
                            r.runId(),
                            r.sessionId(),
                            r.callId(),
                            r.agent(),
                            r.tool(),
                            r.argumentsJson(),
                            r.what(),
                            r.why(),
                            r.confidence(),
                            r.planJson(),
                            r.status(),
                            null,
                            null,
                            null,
                            null,
                            Timestamp.from(r.createdAt()),
                            Timestamp.from(r.expiresAt()),
                            r.attempt(),
                            r.argumentsHash(),
                            null,
                            null,
                            null,
                            null,
                            null,
                            team.name())
                    .update();
            return r;
        } catch (DuplicateKeyException raced) {
            return latestByCall(r.runId(), r.sessionId(), r.callId()).orElseThrow();
        }
    }

    /** The request {@code id} when {@code scope} sees it (its run's team): another team's is as absent. */
    Optional<ApprovalRecord> find(TeamScope scope, String id) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM cadre_approval WHERE id = ?");
        var params = new java.util.ArrayList<Object>(List.of(id));
        team(scope, sql, params);
        return jdbc.sql(sql.toString()).params(params).query(ApprovalStore::map).optional();
    }

    private static void team(TeamScope scope, StringBuilder sql, List<Object> params) {
        scope.team().ifPresent(t -> {
            sql.append(" AND team = ?");
            params.add(t.name());
        });
    }

    @AcrossTeams("the approval service, on a request it recorded or was handed")
    Optional<ApprovalRecord> find(String id) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_approval WHERE id = ?")
                .param(id)
                .query(ApprovalStore::map)
                .optional();
    }

    /** The newest attempt at a call position: the request that counts, pending or decided. */
    Optional<ApprovalRecord> latestByCall(String runId, String sessionId, String callId) {
        return jdbc.sql("SELECT " + COLUMNS
                        + " FROM cadre_approval WHERE run_id = ? AND session_id = ? AND call_id = ?"
                        + " ORDER BY attempt DESC LIMIT 1")
                .params(runId, sessionId, callId)
                .query(ApprovalStore::map)
                .optional();
    }

    /**
     * Sets a request aside because its run now asks for another action at its position; only if it
     * is still in {@code expectedStatus}. Who decided and when stay, so the history shows what was
     * decided on the earlier action.
     */
    boolean supersede(String id, String expectedStatus, @Nullable String supersededBy, String comment, Instant at) {
        return jdbc.sql("UPDATE cadre_approval SET status = 'superseded', superseded_by = ?, decision_comment = ?,"
                                + " decided_by = COALESCE(decided_by, 'system'), decided_at = COALESCE(decided_at, ?),"
                                + " version = version + 1 WHERE id = ? AND status = ?")
                        .params(supersededBy, comment, Timestamp.from(at), id, expectedStatus)
                        .update()
                == 1;
    }

    /** Approvals of a run that still hold an approver's edits in the clear. */
    List<ApprovalRecord> withEditsOfRun(String runId) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_approval WHERE run_id = ? AND edited_arguments IS NOT NULL")
                .param(runId)
                .query(ApprovalStore::map)
                .list();
    }

    /** Replaces the stored edits of a request (with their redacted form, once nothing needs to run them). */
    void replaceEdits(String id, String editedArgumentsJson) {
        jdbc.sql("UPDATE cadre_approval SET edited_arguments = ? WHERE id = ?")
                .params(editedArgumentsJson, id)
                .update();
    }

    List<ApprovalRecord> list(
            TeamScope scope, @Nullable String status, @Nullable String runId, @Nullable PageCursor after, int limit) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM cadre_approval WHERE 1 = 1");
        var params = new java.util.ArrayList<Object>();
        team(scope, sql, params);
        if (status != null) {
            sql.append(" AND status = ?");
            params.add(status);
        }
        if (runId != null) {
            sql.append(" AND run_id = ?");
            params.add(runId);
        }
        if (after != null) {
            // Keyset: continue after the last request of the previous page, on the (…, created_at, id) index.
            sql.append(" AND created_at <= ? AND (created_at < ? OR id < ?)");
            params.add(java.sql.Timestamp.from(after.createdAt()));
            params.add(java.sql.Timestamp.from(after.createdAt()));
            params.add(after.id());
        }
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT ?");
        params.add(limit);
        return jdbc.sql(sql.toString()).params(params).query(ApprovalStore::map).list();
    }

    /** Requests waiting for a decision, over all runs. */
    @AcrossTeams("platform-wide gauge, like the Prometheus metrics")
    public long countPending() {
        return jdbc.sql("SELECT COUNT(*) FROM cadre_approval WHERE status = 'pending'")
                .query(Long.class)
                .single();
    }

    /**
     * Records a decision on a pending request; false when it was no longer pending. {@code decidedBy}
     * null: no one decided (an expiry).
     */
    boolean decide(
            String id,
            String status,
            @Nullable String editedArgumentsJson,
            @Nullable String executedHash,
            @Nullable String comment,
            @Nullable Actor decidedBy,
            Instant at) {
        return jdbc.sql("UPDATE cadre_approval SET status = ?, edited_arguments = ?, executed_hash = ?,"
                                + " decision_comment = ?, decided_by = ?, decided_by_key = ?, decided_at = ?,"
                                + " version = version + 1 WHERE id = ? AND status = 'pending'")
                        .params(
                                status,
                                editedArgumentsJson,
                                executedHash,
                                comment,
                                decidedBy == null ? null : decidedBy.name(),
                                decidedBy == null ? null : decidedBy.keyId(),
                                Timestamp.from(at),
                                id)
                        .update()
                == 1;
    }

    /**
     * Approves a pending request as it was shown, or with the approver's own edits, only while no edits
     * are proposed on it ({@code executed_hash} of a pending row is the hash of proposed edits); false
     * when it is no longer pending or edits were proposed meanwhile.
     */
    boolean approveUnproposed(
            String id,
            @Nullable String editedArgumentsJson,
            String executedHash,
            @Nullable String comment,
            Actor decidedBy,
            Instant at) {
        return jdbc.sql(
                                "UPDATE cadre_approval SET status = 'approved', edited_arguments = ?, executed_hash = ?,"
                                        + " decision_comment = ?, decided_by = ?, decided_by_key = ?, decided_at = ?,"
                                        + " version = version + 1 WHERE id = ? AND status = 'pending' AND executed_hash IS NULL")
                        .params(
                                editedArgumentsJson,
                                executedHash,
                                comment,
                                decidedBy.name(),
                                decidedBy.keyId(),
                                Timestamp.from(at),
                                id)
                        .update()
                == 1;
    }

    /**
     * Records an approver's edits as a proposal on a pending request: it stays pending, and the edits
     * run only once someone other than {@code proposedBy} approves. Only while the proposal the editor
     * saw is still the one there ({@code seenHash}: its hash, null for none): two editors never
     * overwrite each other unseen. False when no longer pending or the proposal changed.
     */
    boolean proposeEdit(
            String id,
            String editedArgumentsJson,
            String editedHash,
            Actor proposedBy,
            @Nullable String comment,
            @Nullable String seenHash) {
        List<Object> params = new java.util.ArrayList<>(java.util.Arrays.asList(
                editedArgumentsJson, editedHash, proposedBy.name(), proposedBy.keyId(), comment, id));
        if (seenHash != null) {
            params.add(seenHash);
        }
        return jdbc.sql("UPDATE cadre_approval SET edited_arguments = ?, executed_hash = ?, proposed_by = ?,"
                                + " proposed_by_key = ?, decision_comment = ?, version = version + 1"
                                + " WHERE id = ? AND status = 'pending' AND "
                                + (seenHash == null ? "executed_hash IS NULL" : "executed_hash = ?"))
                        .params(params)
                        .update()
                == 1;
    }

    /**
     * Approves the edits proposed on a pending request, only while they are still the ones whose hash
     * is {@code editedHash} (an editor changing them meanwhile makes this a no-op); false otherwise.
     */
    boolean approveProposal(String id, String editedHash, @Nullable String comment, Actor decidedBy, Instant at) {
        return jdbc.sql("UPDATE cadre_approval SET status = 'approved', decision_comment ="
                                + " COALESCE(?, decision_comment), decided_by = ?, decided_by_key = ?, decided_at = ?,"
                                + " version = version + 1 WHERE id = ? AND status = 'pending' AND executed_hash = ?")
                        .params(comment, decidedBy.name(), decidedBy.keyId(), Timestamp.from(at), id, editedHash)
                        .update()
                == 1;
    }

    List<ApprovalRecord> expiredPending(Instant now) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_approval WHERE status = 'pending' AND expires_at <= ?")
                .param(Timestamp.from(now))
                .query(ApprovalStore::map)
                .list();
    }

    List<ApprovalRecord> pendingOfRun(String runId) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_approval WHERE status = 'pending' AND run_id = ?")
                .param(runId)
                .query(ApprovalStore::map)
                .list();
    }

    private static ApprovalRecord map(ResultSet rs, int row) throws SQLException {
        Timestamp decided = rs.getTimestamp("decided_at");
        double raw = rs.getDouble("confidence");
        Double confidence = rs.wasNull() ? null : raw;
        return new ApprovalRecord(
                rs.getString("id"),
                rs.getString("run_id"),
                rs.getString("session_id"),
                rs.getString("call_id"),
                rs.getString("agent"),
                rs.getString("tool"),
                rs.getString("arguments"),
                rs.getString("what"),
                rs.getString("why"),
                confidence,
                rs.getString("plan"),
                rs.getString("status"),
                rs.getString("edited_arguments"),
                rs.getString("decision_comment"),
                rs.getString("decided_by"),
                decided == null ? null : decided.toInstant(),
                rs.getTimestamp("created_at").toInstant(),
                rs.getTimestamp("expires_at").toInstant(),
                rs.getInt("attempt"),
                rs.getString("arguments_hash"),
                rs.getString("executed_hash"),
                rs.getString("superseded_by"),
                rs.getString("proposed_by"),
                rs.getString("decided_by_key"),
                rs.getString("proposed_by_key"));
    }

    /**
     * When the oldest cadre_approval row in {@code status} was created, for the age gauges the shipped
     * alerts read; one lookup on the {@code (status, created_at)} index.
     */
    @AcrossTeams("platform-wide gauges for the shipped alerts")
    public Optional<Instant> oldestCreatedAt(String status) {
        return jdbc.sql("SELECT MIN(created_at) FROM cadre_approval WHERE status = ?")
                .param(status)
                .query(java.time.OffsetDateTime.class)
                .optional()
                .map(java.time.OffsetDateTime::toInstant);
    }

    // ---- retention (RetentionService) ----

    /** Runs with an approval request still pending: retention keeps them whatever their age. */
    @AcrossTeams("retention keeps every team's runs that wait for a human")
    public java.util.Set<String> runsWithPendingApprovals() {
        return new java.util.HashSet<>(jdbc.sql("SELECT DISTINCT run_id FROM cadre_approval WHERE status = 'pending'")
                .query(String.class)
                .list());
    }

    /** Removes the decided (or expired) requests of these runs; a pending one is never removed. */
    @AcrossTeams("retention removes every team's expired runs")
    public Removed deleteOfRuns(java.util.Collection<String> runIds) {
        if (runIds.isEmpty()) {
            return Removed.NONE;
        }
        String in = dev.cadre.platform.storage.KeyLists.placeholders(1, runIds.size());
        long bytes = jdbc.sql("SELECT COALESCE(SUM(LENGTH(arguments) + COALESCE(LENGTH(plan), 0)"
                        + " + COALESCE(LENGTH(why), 0)), 0) FROM cadre_approval WHERE status <> 'pending' AND run_id IN ("
                        + in + ")")
                .params(List.copyOf(runIds))
                .query(Long.class)
                .single();
        int n = jdbc.sql("DELETE FROM cadre_approval WHERE status <> 'pending' AND run_id IN (" + in + ")")
                .params(List.copyOf(runIds))
                .update();
        return new Removed(n, bytes);
    }

    static final String TABLE = "cadre_approval";

    private final dev.cadre.platform.storage.TableSize size =
            new dev.cadre.platform.storage.TableSize(this::totalBytes);

    private long totalBytes() {
        return jdbc.sql(dev.cadre.platform.storage.PostgresSizes.TOTAL_BYTES)
                .params(TABLE, TABLE)
                .query(Long.class)
                .single();
    }

    /** Bytes on disk of the table (with indexes and TOAST); empty where the database cannot tell (H2). */
    @AcrossTeams("retention and storage figures are platform-wide")
    public java.util.OptionalLong sizeBytes() {
        return size.bytes();
    }

    /** PostgreSQL: makes the space of removed rows reusable now ({@link dev.cadre.platform.storage.PostgresSizes#vacuum}). */
    @AcrossTeams("retention and storage figures are platform-wide")
    public void reclaimSpace() {
        size.whereMeasurable(() ->
                jdbc.sql(dev.cadre.platform.storage.PostgresSizes.vacuum(TABLE)).update());
    }
}
