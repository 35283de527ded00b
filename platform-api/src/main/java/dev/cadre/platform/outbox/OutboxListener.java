package dev.cadre.platform.outbox;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Told after each attempt's outcome is stored: to record it where people look (the incident's
 * notifications and timeline). Called on the worker's thread; must not throw for a subject it does
 * not know.
 */
public interface OutboxListener {

    void settled(OutboxDelivery delivery, Settlement settlement);

    /**
     * The outcome of one attempt: {@code state} {@code DELIVERED}, {@code FAILED} (given up), or
     * {@code PENDING} (it failed and will be tried again at {@code nextAttemptAt}); {@code status} the
     * HTTP status (0 when no answer came).
     */
    record Settlement(
            DeliveryState state,
            int attempts,
            int status,
            @Nullable String error,
            @Nullable Instant nextAttemptAt) {}
}
