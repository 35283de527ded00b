package dev.cadre.platform.outbox;

import java.net.URI;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A named destination of the outbox: where its deliveries are posted (read when each attempt is
 * made, so a URL holding a token is never copied into the table) and how long one attempt may take.
 * A channel without a URL refuses enqueueing; callers record that as "not configured".
 */
public record OutboxChannel(String name, @Nullable URI url, Duration timeout, String contentType) {

    public OutboxChannel {
        if (!name.matches("[a-z][a-z0-9-]{0,39}")) {
            throw new IllegalArgumentException("outbox channel name must be lower-case letters, digits and '-'");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("outbox channel " + name + ": timeout must be positive");
        }
    }

    public OutboxChannel(String name, @Nullable URI url, Duration timeout) {
        this(name, url, timeout, "application/json");
    }
}
