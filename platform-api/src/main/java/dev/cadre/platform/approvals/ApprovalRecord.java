package dev.cadre.platform.approvals;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** An approval request as stored, with its decision once there is one. */
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
        Instant expiresAt) {

    public static final String PENDING = "pending";
    public static final String APPROVED = "approved";
    public static final String REJECTED = "rejected";
    public static final String EXPIRED = "expired";
    /** Decided with abort: the run stops as rejected. */
    public static final String ABORTED = "aborted";

    public static final String CANCELED = "canceled";

    public boolean pending() {
        return PENDING.equals(status);
    }
}
