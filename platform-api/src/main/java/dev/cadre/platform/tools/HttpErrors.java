package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.ToolException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;

/** Maps a failed outbound HTTP call of a tool to the failure taxonomy. */
final class HttpErrors {

    private HttpErrors() {}

    static ToolException of(String what, IOException e) {
        if (e instanceof HttpTimeoutException) {
            return new ToolException(FailureCategory.TIMEOUT_ERROR, "timeout", what + " timed out: " + e.getMessage());
        }
        String reason = e instanceof ConnectException ? "unreachable" : "io_error";
        return new ToolException(
                FailureCategory.COMMUNICATION_ERROR,
                reason,
                what + " failed: " + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
}
