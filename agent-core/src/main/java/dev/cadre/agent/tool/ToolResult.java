package dev.cadre.agent.tool;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The structured result of one tool call: a status, the text the model reads, and for a failure
 * exactly one category. Every call ends as one of these, never as an exception in the loop.
 */
public record ToolResult(
        String callId,
        String toolName,
        OutcomeStatus status,
        String content,
        @Nullable Failure failure) {

    public ToolResult {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(content, "content");
        if ((status == OutcomeStatus.OK || status == OutcomeStatus.DENIED) != (failure == null)) {
            throw new IllegalArgumentException("a failure is required exactly when the status is not ok or denied");
        }
    }

    /** A successful call. */
    public static ToolResult ok(String callId, String toolName, String content) {
        return new ToolResult(callId, toolName, OutcomeStatus.OK, content, null);
    }

    /** A failed call; the model reads {@code {"status":..., "error":{category, code, message}}}. */
    public static ToolResult failed(String callId, String toolName, OutcomeStatus status, Failure failure) {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("status", status.wireName());
        ObjectNode error = body.putObject("error");
        error.put("category", failure.category().name());
        error.put("code", failure.code());
        error.put("message", failure.message());
        return new ToolResult(callId, toolName, status, body.toString(), failure);
    }

    /** A failed call with status {@code failed}. */
    public static ToolResult failed(String callId, String toolName, Failure failure) {
        return failed(callId, toolName, OutcomeStatus.FAILED, failure);
    }

    /** A call a human rejected; the comment is what the model reads. */
    public static ToolResult denied(String callId, String toolName, String comment) {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("status", "denied");
        body.put("comment", comment);
        return new ToolResult(callId, toolName, OutcomeStatus.DENIED, body.toString(), null);
    }

    /** Whether the model should read this as an error. */
    public boolean isError() {
        return status != OutcomeStatus.OK;
    }
}
