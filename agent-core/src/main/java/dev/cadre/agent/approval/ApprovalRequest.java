package dev.cadre.agent.approval;

import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * One question to a human, keyed by {@code (runId, callId)}. The loop may ask again for the same key
 * after a resume, so an implementation must answer a repeated request with the decision already
 * taken (or keep waiting for it), never open a second one — <em>as long as it asks about the same
 * action</em> ({@link #actionHash()}). A re-run model may ask for another tool or other arguments at
 * the same position: a decision on the earlier action does not cover it, so the implementation must
 * set the earlier request aside (superseded) and ask the human again.
 *
 * @param what the action in one line ({@code restart_service {"service":"api"}})
 * @param why the model's reasoning of that turn, empty when it gave none
 * @param confidence the model's stated confidence in [0, 1] (a {@code confidence} argument), or null
 * @param plan every call of the turn, in order, so the human sees the whole plan
 */
public record ApprovalRequest(
        ApprovalKind kind,
        String runId,
        String sessionId,
        String agent,
        String callId,
        String tool,
        JsonNode arguments,
        String what,
        String why,
        @Nullable Double confidence,
        List<String> plan) {
    public ApprovalRequest {
        plan = List.copyOf(plan);
    }

    /** The {@link ActionHash} of {@link #tool} with {@link #arguments}: what a decision on this request covers. */
    public String actionHash() {
        return ActionHash.of(tool, arguments);
    }
}
