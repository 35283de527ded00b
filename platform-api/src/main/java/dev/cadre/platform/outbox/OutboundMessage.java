package dev.cadre.platform.outbox;

import org.jspecify.annotations.Nullable;

/**
 * One delivery to enqueue. {@code channel} names a registered {@link OutboxChannel} (a closed set: it
 * is a metrics label, and the receiver's address stays in configuration, not in the table);
 * {@code idempotencyKey} is sent as {@code Idempotency-Key} and is unique in the outbox, so enqueueing
 * the same key twice (two instances escalating one incident) stores one delivery; {@code subject} and
 * {@code kind} say what it is about (an incident id and {@code alert}/{@code escalation}), for the
 * listeners that record the outcome there.
 */
public record OutboundMessage(
        String channel,
        String idempotencyKey,
        @Nullable String subject,
        @Nullable String kind,
        String body) {

    public OutboundMessage {
        if (channel.isBlank()) {
            throw new IllegalArgumentException("outbox channel must not be blank");
        }
        if (idempotencyKey.isBlank() || idempotencyKey.length() > 200) {
            throw new IllegalArgumentException("idempotency key must be 1..200 characters");
        }
        if (subject != null && subject.length() > 200) {
            throw new IllegalArgumentException("outbox subject must be at most 200 characters");
        }
        if (kind != null && kind.length() > 40) {
            throw new IllegalArgumentException("outbox kind must be at most 40 characters");
        }
    }
}
