package dev.cadre.agent.tool;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.internal.JsonText;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
        StringBuilder body = new StringBuilder(96 + failure.message().length());
        body.append("{\"status\":");
        JsonText.quote(body, status.wireName()).append(",\"error\":{\"category\":");
        JsonText.quote(body, failure.category().name()).append(",\"code\":");
        JsonText.quote(body, failure.code()).append(",\"message\":");
        JsonText.quote(body, failure.message()).append("}}");
        return new ToolResult(callId, toolName, status, body.toString(), failure);
    }

    /** A failed call with status {@code failed}. */
    public static ToolResult failed(String callId, String toolName, Failure failure) {
        return failed(callId, toolName, OutcomeStatus.FAILED, failure);
    }

    /** A call a human rejected; the comment is what the model reads. */
    public static ToolResult denied(String callId, String toolName, String comment) {
        StringBuilder body = new StringBuilder("{\"status\":\"denied\",\"comment\":");
        JsonText.quote(body, comment).append('}');
        return new ToolResult(callId, toolName, OutcomeStatus.DENIED, body.toString(), null);
    }

    /** Whether the model should read this as an error. */
    public boolean isError() {
        return status != OutcomeStatus.OK;
    }
}
