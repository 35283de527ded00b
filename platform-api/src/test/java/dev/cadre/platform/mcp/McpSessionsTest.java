package dev.cadre.platform.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.spec.McpSchema;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** MCP sessions expire, are capped per key, and keep nothing of a client's {@code initialize} blob. */
class McpSessionsTest {

    /** A clock the test moves by hand. */
    private static final class HandClock extends Clock {
        Instant now = Instant.parse("2026-12-07T10:00:00Z");

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void aKeyBeyondItsCap_losesItsLeastRecentlyUsedSession_andOtherKeysKeepTheirs() {
        HandClock clock = new HandClock();
        McpSessions sessions = new McpSessions(clock, Duration.ofMinutes(30), 2);
        sessions.opened("a1", "key:a");
        clock.now = clock.now.plusSeconds(1);
        sessions.opened("a2", "key:a");
        sessions.opened("b1", "key:b");
        clock.now = clock.now.plusSeconds(1);
        assertThat(sessions.use("a1", "key:a")).isTrue(); // a2 is now the least recently used
        clock.now = clock.now.plusSeconds(1);
        sessions.opened("a3", "key:a");

        assertThat(sessions.use("a2", "key:a")).isFalse();
        assertThat(sessions.use("a1", "key:a")).isTrue();
        assertThat(sessions.use("a3", "key:a")).isTrue();
        assertThat(sessions.use("b1", "key:b")).isTrue();
        assertThat(sessions.count("key:a")).isEqualTo(2);
        assertThat(sessions.sweep()).containsExactly("a2");
        assertThat(sessions.sweep()).isEmpty();
    }

    @Test
    void anIdleSession_expires_andAnotherKeyCannotUseOne() {
        HandClock clock = new HandClock();
        McpSessions sessions = new McpSessions(clock, Duration.ofMinutes(30), 10);
        sessions.opened("s1", "key:a");
        sessions.opened("s2", "key:a");
        assertThat(sessions.use("s1", "key:b")).isFalse();
        clock.now = clock.now.plus(Duration.ofMinutes(20));
        assertThat(sessions.use("s2", "key:a")).isTrue();
        clock.now = clock.now.plus(Duration.ofMinutes(11));

        assertThat(sessions.sweep()).containsExactly("s1");
        assertThat(sessions.size()).isEqualTo(1);
        assertThat(sessions.use("s1", "key:a")).isFalse();
    }

    @Test
    void initializeParameters_keepOnlyBoundedNameVersionAndCapabilityFlags() {
        String blob = "x".repeat(900_000);
        McpSchema.InitializeRequest sent = new McpSchema.InitializeRequest(
                "2025-06-18",
                new McpSchema.ClientCapabilities(
                        Map.of("blob", blob),
                        new McpSchema.ClientCapabilities.RootCapabilities(true),
                        new McpSchema.ClientCapabilities.Sampling(),
                        null),
                new McpSchema.Implementation(blob, blob, blob, blob, null, blob),
                Map.of("meta", blob));

        McpSchema.InitializeRequest kept = McpTransport.trimmed(sent);

        assertThat(kept.protocolVersion()).isEqualTo("2025-06-18");
        assertThat(kept.capabilities().experimental()).isNull();
        assertThat(kept.capabilities().roots().listChanged()).isTrue();
        assertThat(kept.capabilities().sampling()).isNotNull();
        assertThat(kept.capabilities().elicitation()).isNull();
        assertThat(kept.clientInfo().name()).hasSize(McpTransport.MAX_TEXT);
        assertThat(kept.clientInfo().version()).hasSize(McpTransport.MAX_TEXT);
        assertThat(kept.clientInfo().title()).isNull();
        assertThat(kept.clientInfo().description()).isNull();
        assertThat(kept.meta()).isNull();
    }
}
