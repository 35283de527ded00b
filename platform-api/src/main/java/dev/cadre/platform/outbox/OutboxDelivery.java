package dev.cadre.platform.outbox;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A delivery as stored: its message, its state, how many attempts were made (counted when an
 * attempt is claimed, so a process that dies mid-attempt still uses one up), when the next is due,
 * and what the last one answered ({@code lastStatus} 0 when no HTTP answer came).
 */
public record OutboxDelivery(
        String id,
        String channel,
        String idempotencyKey,
        @Nullable String subject,
        @Nullable String kind,
        String body,
        DeliveryState state,
        int attempts,
        int maxAttempts,
        Instant nextAttemptAt,
        int lastStatus,
        @Nullable String lastError,
        Instant createdAt,
        @Nullable Instant deliveredAt) {}
