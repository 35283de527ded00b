package dev.cadre.platform.incidents;

import org.jspecify.annotations.Nullable;

/**
 * One notification about an incident as it went out (or did not): {@code kind} is {@code alert},
 * {@code escalation} or {@code resolved}. Only a {@link Status#SENT} record starts the notify window.
 */
public record NotificationRecord(
        String kind,
        String channel,
        Status status,
        int attempts,
        @Nullable String error,
        @Nullable String deliveryId) {

    /** Where a delivery stands. */
    public enum Status {
        PENDING,
        SENT,
        FAILED
    }

    public NotificationRecord {
        if (kind == null || kind.isBlank() || channel == null || status == null) {
            throw new IllegalArgumentException("a notification record needs a kind, a channel and a status");
        }
    }
}
