package dev.cadre.platform.approvals;

import dev.cadre.platform.security.Actor;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * An approval request as stored, with its decision once there is one.
 *
 * @param argumentsJson the arguments shown, redacted
 * @param editedArgumentsJson the approver's edits: what runs instead (kept redacted once the run ended)
 * @param attempt 0 for the first request at this (run, session, call) position, one more for each
 *     request that superseded an earlier one
 * @param argumentsHash the {@link dev.cadre.agent.approval.ActionHash} of the action shown (tool and
 *     real arguments): the decision covers this action and no other; null only for rows older than it
 * @param executedHash the hash of the action a decision lets run: the shown one, or the edits
 * @param supersededBy the request that replaced this one when the run asked for another action here
 * @param proposedBy who edited the arguments of this still pending request: the edits are their
 *     proposal, which another operator must approve (null: no edit proposed)
 * @param decidedByKey the id of the key that decided (null: undecided, or decided by the platform)
 * @param proposedByKey the id of the key that proposed the edits: what separation of duties
 *     compares ({@code proposedBy} is its name, for display)
 */
public record ApprovalRecord(
        String id,
        String runId,
        String sessionId,
        String callId,
        String agent,
        String tool,
        String argumentsJson,
        @Nullable String what,
        @Nullable String why,
        @Nullable Double confidence,
        @Nullable String planJson,
        String status,
        @Nullable String editedArgumentsJson,
        @Nullable String comment,
        @Nullable String decidedBy,
        @Nullable Instant decidedAt,
        Instant createdAt,
        Instant expiresAt,
        int attempt,
        @Nullable String argumentsHash,
        @Nullable String executedHash,
        @Nullable String supersededBy,
        @Nullable String proposedBy,
        @Nullable String decidedByKey,
        @Nullable String proposedByKey) {

    /** A request without an edit proposal. */
    public ApprovalRecord(
            String id,
            String runId,
            String sessionId,
            String callId,
            String agent,
            String tool,
            String argumentsJson,
            @Nullable String what,
            @Nullable String why,
            @Nullable Double confidence,
            @Nullable String planJson,
            String status,
            @Nullable String editedArgumentsJson,
            @Nullable String comment,
            @Nullable String decidedBy,
            @Nullable Instant decidedAt,
            Instant createdAt,
            Instant expiresAt,
            int attempt,
            @Nullable String argumentsHash,
            @Nullable String executedHash,
            @Nullable String supersededBy) {
        this(
                id,
                runId,
                sessionId,
                callId,
                agent,
                tool,
                argumentsJson,
                what,
                why,
                confidence,
                planJson,
                status,
                editedArgumentsJson,
                comment,
                decidedBy,
                decidedAt,
                createdAt,
                expiresAt,
                attempt,
                argumentsHash,
                executedHash,
                supersededBy,
                null,
                null,
                null);
    }

    /** Who decided: the key (by id) and its name; an actor without key for the platform's own decisions. */
    public @Nullable Actor decider() {
        return decidedBy == null ? null : new Actor(decidedByKey, decidedBy);
    }

    /** Who proposed the pending edits (by key id), or null when no edit is proposed. */
    public @Nullable Actor proposer() {
        return proposedBy == null ? null : new Actor(proposedByKey, proposedBy);
    }

    public static final String PENDING = "pending";
    public static final String APPROVED = "approved";
    public static final String REJECTED = "rejected";
    public static final String EXPIRED = "expired";
    /** Decided with abort: the run stops as rejected. */
    public static final String ABORTED = "aborted";

    public static final String CANCELED = "canceled";
    /** Set aside: the run asked for another action (tool or arguments) at this position after a resume. */
    public static final String SUPERSEDED = "superseded";

    public boolean pending() {
        return PENDING.equals(status);
    }
}
