package dev.cadre.platform.runs;

import dev.cadre.agent.approval.ApprovalGate;

/**
 * Wraps the approval gate runners ask: the seam a feature (a replay answering approvals from its
 * case's decisions) uses to answer some requests without a human.
 */
@FunctionalInterface
public interface ApprovalGuard {

    /** The gate runners get in place of {@code gate}. */
    ApprovalGate wrap(ApprovalGate gate);
}
