package dev.cadre.platform.incidents;

import dev.cadre.platform.approvals.ApprovalRecord;
import dev.cadre.platform.approvals.ApprovalService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Puts approvals on the timeline of the incident their run works on: {@link
 * TimelineKind#APPROVAL_REQUESTED} when a human is asked, {@link TimelineKind#APPROVAL_DECIDED} when
 * the run learns the answer, each with the approval id as {@code ref}. A run without an incident adds
 * nothing; a failure here is logged and never fails the request or the decision.
 */
final class IncidentApprovals implements ApprovalService.ApprovalListener {

    private static final Logger log = LoggerFactory.getLogger(IncidentApprovals.class);
    /** Scalar arguments named in the action's words, at most this many, each at most 80 characters. */
    private static final int MAX_NAMED_ARGUMENTS = 4;

    private final IncidentService incidents;
    private final JsonMapper json;

    IncidentApprovals(IncidentService incidents, JsonMapper json) {
        this.incidents = incidents;
        this.json = json;
    }

    @Override
    public void requested(ApprovalRecord r) {
        record(r, TimelineKind.APPROVAL_REQUESTED, r.agent(), "approval requested: " + action(r));
    }

    @Override
    public void decided(ApprovalRecord r, Duration waited) {
        String text = switch (r.status()) {
            case ApprovalRecord.APPROVED ->
                (r.editedArgumentsJson() == null ? "approved: " : "approved with edited arguments: ") + action(r);
            case ApprovalRecord.REJECTED -> "rejected: " + action(r);
            case ApprovalRecord.ABORTED -> "aborted the run instead of: " + action(r);
            case ApprovalRecord.EXPIRED -> "approval expired without a decision: " + action(r);
            case ApprovalRecord.CANCELED -> "approval canceled (the run ended): " + action(r);
            case ApprovalRecord.SUPERSEDED -> "approval superseded by a request for another action: " + action(r);
            default -> r.status() + ": " + action(r);
        };
        if (r.comment() != null && !r.comment().isBlank()) {
            text += " — " + r.comment();
        }
        record(r, TimelineKind.APPROVAL_DECIDED, r.decidedBy() == null ? "platform" : r.decidedBy(), text);
    }

    private void record(ApprovalRecord r, TimelineKind kind, String actor, String text) {
        try {
            incidents.forRun(r.runId()).ifPresent(incident -> {
                // A resumed run asking again for the same pending approval is one request.
                if (kind == TimelineKind.APPROVAL_REQUESTED && incidents.hasTimelineRef(incident.id(), kind, r.id())) {
                    return;
                }
                ObjectNode data = json.createObjectNode()
                        .put("approvalId", r.id())
                        .put("tool", r.tool())
                        .put("agent", r.agent())
                        .put("callId", r.callId())
                        .put("status", r.status())
                        .put("decidedBy", r.decidedBy())
                        .put("comment", r.comment());
                data.set("arguments", readOrNull(r.argumentsJson()));
                data.set("editedArguments", readOrNull(r.editedArgumentsJson()));
                incidents.appendTimeline(incident.id(), new TimelineEntry(kind, actor, text, data, r.runId(), r.id()));
            });
        } catch (RuntimeException e) {
            log.warn("Approval {} of run {} not put on its incident's timeline: {}", r.id(), r.runId(), e.toString());
        }
    }

    private @Nullable JsonNode readOrNull(@Nullable String jsonText) {
        if (jsonText == null) {
            return null;
        }
        try {
            return json.readTree(jsonText);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The action in words: the tool and its short scalar arguments ({@code k8s_rollout_undo namespace
     * shop, name checkout}), never the tool's description written for the model nor raw JSON.
     */
    private String action(ApprovalRecord r) {
        List<String> named = new ArrayList<>();
        JsonNode args = readOrNull(r.argumentsJson());
        if (args != null && args.isObject()) {
            for (Map.Entry<String, JsonNode> field : args.properties()) {
                JsonNode v = field.getValue();
                if (named.size() < MAX_NAMED_ARGUMENTS
                        && v.isValueNode()
                        && !v.isNull()
                        && v.asString().length() <= 80) {
                    named.add(field.getKey() + " " + v.asString());
                }
            }
        }
        return named.isEmpty() ? r.tool() : r.tool() + " (" + String.join(", ", named) + ")";
    }
}
