package dev.cadre.platform.mcp;

import dev.cadre.platform.web.KeyedCaller;
import org.springframework.security.core.context.SecurityContextHolder;

/** The caller of the current request as MCP sessions and stream caps count it: by key id. */
final class McpOwner {

    private McpOwner() {}

    /** {@code key:<id>} for a keyed caller (as the event-stream caps count), the name otherwise. */
    static String current() {
        var auth = SecurityContextHolder.getContext().getAuthentication();
        if (auth == null) {
            return "anonymous";
        }
        return auth.getPrincipal() instanceof KeyedCaller k ? "key:" + k.keyId() : "name:" + auth.getName();
    }
}
