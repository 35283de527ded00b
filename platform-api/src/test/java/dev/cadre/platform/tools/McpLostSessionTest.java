package dev.cadre.platform.tools;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Which MCP call failures prove the request never reached a live session (and so may be retried
 * once on a fresh session). The SDK's own re-initialisation racing a call after the server restarted
 * failed a CI run with this NullPointerException (McpEverythingServerTest), which was not retried.
 */
class McpLostSessionTest {

    @Test
    void theSdksInitializerWithoutASession_isALostSession_butAnyOtherNullPointerIsNot() {
        var racing = new NullPointerException("Cannot invoke \"io.modelcontextprotocol.spec.McpClientSession.close()\""
                + " because the return value of \"io.modelcontextprotocol.client.LifecycleInitializer"
                + "$DefaultInitialization.mcpSession()\" is null");
        assertThat(McpTools.lostSession(new RuntimeException("call failed", racing)))
                .isTrue();
        assertThat(McpTools.lostSession(new NullPointerException("Cannot invoke \"String.length()\"")))
                .isFalse();
        assertThat(McpTools.lostSession(new IllegalStateException("tool failed")))
                .isFalse();
    }
}
