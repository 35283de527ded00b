package dev.cadre.agent.approval;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where {@code APPROVE} calls wait for a human. The loop asks one call at a time and blocks its own
 * (virtual) thread on the answer; cancelling the run stops the wait. Platform-api persists requests,
 * makes them idempotent per {@code (runId, callId)} and completes the stage when an operator decides
 * or the request expires.
 */
@FunctionalInterface
public interface ApprovalGate {

    /** A gate that rejects everything: the safe default when no human is wired in. */
    ApprovalGate REJECT_ALL = request ->
            CompletableFuture.completedFuture(new ApprovalDecision.Rejected("no approval gate is configured", null));

    /** Asks for a decision. */
    CompletionStage<ApprovalDecision> request(ApprovalRequest request);
}
