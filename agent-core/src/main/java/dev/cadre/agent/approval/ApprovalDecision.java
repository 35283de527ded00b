package dev.cadre.agent.approval;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/** A human's answer to an {@link ApprovalRequest}; {@code decidedBy} is kept for the audit trail. */
public sealed interface ApprovalDecision {

    /** Who decided, or null when nobody did (expiry). */
    @Nullable
    String decidedBy();

    /**
     * Run the call as the model asked.
     *
     * @param actionHash the {@link ActionHash} of the action the human saw and approved, or null when
     *     the gate answers the very request object it was asked (in-process gates); the loop never
     *     runs an action whose hash differs from a non-null one
     */
    record Approved(@Nullable String decidedBy, @Nullable String actionHash) implements ApprovalDecision {
        /** An approval of exactly the request asked. */
        public Approved(@Nullable String decidedBy) {
            this(decidedBy, null);
        }
    }

    /**
     * Run the call with these arguments instead (validated against the tool's schema again).
     *
     * @param actionHash the {@link ActionHash} of the action the human was shown (the request, before
     *     the edits), or null as for {@link Approved}
     */
    record ApprovedWithEdits(
            JsonNode arguments,
            @Nullable String decidedBy,
            @Nullable String actionHash) implements ApprovalDecision {
        /** Edits of exactly the request asked. */
        public ApprovedWithEdits(JsonNode arguments, @Nullable String decidedBy) {
            this(arguments, decidedBy, null);
        }
    }

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
