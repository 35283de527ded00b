package dev.cadre.platform.replay;

import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.platform.runs.ApprovalGuard;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Answers a replay run's approvals from its case's recorded decisions, matched by tool and canonical
 * arguments; a request with no recorded decision is rejected with the comment {@value #NO_DECISION}
 * and counts as a deviation. Nothing is stored as an approval: no human waits, nobody is asked, and
 * no replay decision counts as a human's in the audit log or the separation of duties. Ordinary runs
 * reach the platform's gate.
 */
final class ReplayApprovals implements ApprovalGuard {

    /** The comment of a rejection a replay answers when the case recorded no decision. */
    static final String NO_DECISION = "no recorded decision";

    /**
     * Who the events say decided: the recording, never a person or key -- except a rejection whose
     * recorded denial named its rejecter (see {@link Recordings#rejecter}).
     */
    static final String DECIDER = "replay";

    private final ReplayRuns replays;

    ReplayApprovals(ReplayRuns replays) {
        this.replays = replays;
    }

    @Override
    public ApprovalGate wrap(ApprovalGate gate) {
        return request -> {
            var recordings = replays.of(request.runId());
            return recordings.isEmpty() ? gate.request(request) : answer(recordings.get(), request);
        };
    }

    private static CompletionStage<ApprovalDecision> answer(Recordings recordings, ApprovalRequest request) {
        ApprovalDecision decision = recordings
                .decision(request.tool(), request.arguments())
                .<ApprovalDecision>map(d -> switch (d.decision()) {
                    // The recorded edits are not in the case: the call runs as asked, answered from the recording.
                    case "approved", "approved_with_edits" -> new ApprovalDecision.Approved(DECIDER);
                    case "aborted" -> new ApprovalDecision.Aborted(comment(d), DECIDER);
                    case "expired" -> new ApprovalDecision.Expired();
                    // Named as the recorded denial named its rejecter: the model reads the very text the
                    // recorded run read ("rejected by <operator>: <comment>") and passes it on unchanged.
                    default ->
                        new ApprovalDecision.Rejected(
                                comment(d),
                                recordings
                                        .rejecter(request.tool(), request.arguments())
                                        .orElse(DECIDER));
                })
                .orElseGet(() -> new ApprovalDecision.Rejected(NO_DECISION, DECIDER));
        return CompletableFuture.completedFuture(decision);
    }

    private static String comment(IncidentCase.Decision d) {
        return d.comment() == null || d.comment().isBlank() ? d.decision() + " (recorded)" : d.comment();
    }
}
