package dev.cadre.agent.approval;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/** A human's answer to an {@link ApprovalRequest}; {@code decidedBy} is kept for the audit trail. */
public sealed interface ApprovalDecision {

    /** Who decided, or null when nobody did (expiry). */
    @Nullable
    String decidedBy();

    /** Run the call as the model asked. */
    record Approved(@Nullable String decidedBy) implements ApprovalDecision {}

    /** Run the call with these arguments instead (validated against the tool's schema again). */
    record ApprovedWithEdits(JsonNode arguments, @Nullable String decidedBy) implements ApprovalDecision {}

    /** Do not run it; the model reads the comment. */
    record Rejected(String comment, @Nullable String decidedBy) implements ApprovalDecision {}

    /**
     * Stop the whole run: it ends {@code rejected} (seed 003's level 2), the model reads nothing more.
     * The third answer to a result review, beside approving and rejecting the result.
     */
    record Aborted(String comment, @Nullable String decidedBy) implements ApprovalDecision {}

    /** Nobody decided in time: {@code HUMAN_INTERVENTION_TIMEOUT}. */
    record Expired() implements ApprovalDecision {
        @Override
        public @Nullable String decidedBy() {
            return null;
        }
    }
}
