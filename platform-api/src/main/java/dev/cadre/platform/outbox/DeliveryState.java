package dev.cadre.platform.outbox;

import java.util.Locale;

/** Where a delivery stands: waiting for its next attempt, answered 2xx, or given up on. */
public enum DeliveryState {
    PENDING,
    DELIVERED,
    FAILED;

    /** The lower-case name used in metrics labels and the API. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
