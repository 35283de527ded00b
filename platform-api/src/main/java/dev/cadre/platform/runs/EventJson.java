package dev.cadre.platform.runs;

import dev.cadre.agent.Failure;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.platform.web.SecretRedactor;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The wire form of agent events (SSE data, stored event rows): the envelope of DESIGN §2 (type, run,
 * session, parent session, agent, time) plus the event's own fields, redacted as a whole before
 * anything is stored or sent.
 */
@Component
public class EventJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final SecretRedactor redactor;

    EventJson(SecretRedactor redactor) {
        this.redactor = redactor;
    }

    /**
     * The event's wire JSON, redacted as a whole (issue 23): every field, the approval's {@code why}
     * and {@code plan} and whatever a later event type adds included, goes through one structural
     * pass before the event is stored or sent.
     */
    public ObjectNode toJson(AgentEvent event) {
        return (ObjectNode) redactor.redact(raw(event));
    }

    private ObjectNode raw(AgentEvent event) {
        ObjectNode o = NODES.objectNode();
        var meta = event.meta();
        o.put("type", event.type());
        o.put("runId", meta.runId());
        o.put("sessionId", meta.sessionId());
        o.put("parentSessionId", meta.parentSessionId());
        o.put("agent", meta.agent());
        o.put("sessionSequence", meta.sequence());
        o.put("at", meta.at().toString());
        switch (event) {
            case AgentEvent.RunStarted e -> o.put("input", e.input());
            case AgentEvent.TextDelta e -> {
                o.put("text", e.text());
                if (e.partial()) {
                    o.put("partial", true);
                }
            }
            case AgentEvent.ToolCallStart e -> {
                o.put("callId", e.callId());
                o.put("tool", e.tool());
                o.set("arguments", e.arguments());
                o.put("risk", e.risk().name().toLowerCase(java.util.Locale.ROOT));
                o.put("worker", e.worker());
            }
            case AgentEvent.ToolResultEvent e -> {
                o.put("callId", e.callId());
                o.put("tool", e.tool());
                o.put("status", e.status().wireName());
                o.put("content", e.content());
                putFailure(o, e.failure());
            }
            case AgentEvent.SubagentStarted e -> {
                o.put("callId", e.callId());
                o.put("worker", e.worker());
                o.put("childSessionId", e.childSessionId());
                o.put("task", e.task());
            }
            case AgentEvent.SubagentFinished e -> {
                o.put("callId", e.callId());
                o.put("worker", e.worker());
                o.put("childSessionId", e.childSessionId());
                o.put("status", e.status().wireName());
                putUsage(o, e.usage());
                o.put("durationMs", e.durationMillis());
            }
            case AgentEvent.ApprovalRequested e -> o.set("request", request(e.request()));
            case AgentEvent.ApprovalResolved e -> {
                o.put("callId", e.callId());
                o.set("decision", decision(e.decision()));
            }
            case AgentEvent.Status e -> {
                o.put("message", e.message());
                o.put("iteration", e.iteration());
            }
            case AgentEvent.Done e -> {
                o.put("text", e.text());
                putUsage(o, e.usage());
                o.put("iterations", e.iterations());
            }
            case AgentEvent.Error e -> {
                o.put("status", e.status().wireName());
                putFailure(o, e.failure());
                putUsage(o, e.usage());
                o.put("iterations", e.iterations());
            }
        }
        return o;
    }

    private ObjectNode request(ApprovalRequest r) {
        ObjectNode o = NODES.objectNode();
        o.put("kind", r.kind().name().toLowerCase(java.util.Locale.ROOT));
        o.put("callId", r.callId());
        o.put("tool", r.tool());
        o.set("arguments", r.arguments());
        o.put("what", r.what());
        o.put("why", r.why());
        if (r.confidence() != null) {
            o.put("confidence", r.confidence());
        }
        var plan = o.putArray("plan");
        r.plan().forEach(plan::add);
        return o;
    }

    private ObjectNode decision(ApprovalDecision d) {
        ObjectNode o = NODES.objectNode();
        switch (d) {
            case ApprovalDecision.Approved a -> o.put("kind", "approved");
            case ApprovalDecision.ApprovedWithEdits a -> {
                o.put("kind", "approved_with_edits");
                o.set("arguments", a.arguments());
            }
            case ApprovalDecision.Rejected r -> {
                o.put("kind", "rejected");
                o.put("comment", r.comment());
            }
            case ApprovalDecision.Aborted a -> {
                o.put("kind", "aborted");
                o.put("comment", a.comment());
            }
            case ApprovalDecision.Expired x -> o.put("kind", "expired");
        }
        o.put("decidedBy", d.decidedBy());
        return o;
    }

    static void putFailure(ObjectNode o, @Nullable Failure f) {
        if (f == null) {
            return;
        }
        ObjectNode err = o.putObject("error");
        err.put("category", f.category().name());
        err.put("code", f.code());
        err.put("message", f.message());
    }

    static void putUsage(ObjectNode o, TokenUsage u) {
        ObjectNode usage = o.putObject("usage");
        usage.put("inputTokens", u.inputTokens());
        usage.put("outputTokens", u.outputTokens());
        // Of the input tokens, those the provider's prompt cache served or stored; absent when none.
        if (u.cacheReadTokens() > 0) {
            usage.put("cacheReadTokens", u.cacheReadTokens());
        }
        if (u.cacheWriteTokens() > 0) {
            usage.put("cacheWriteTokens", u.cacheWriteTokens());
        }
    }

    static JsonNode empty() {
        return NODES.objectNode();
    }
}
