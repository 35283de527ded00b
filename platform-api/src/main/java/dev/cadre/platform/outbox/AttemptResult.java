package dev.cadre.platform.outbox;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** What one attempt of a delivery came to, decided from the receiver's answer (or its absence). */
sealed interface AttemptResult {

    /** The receiver answered 2xx. */
    record Delivered(int status) implements AttemptResult {}

    /**
     * Worth trying again: 5xx, 408, 429, a timeout or a connection error ({@code status} 0 when no
     * answer came); {@code retryAfter} when the receiver said when.
     */
    record Transient(int status, String error, @Nullable Duration retryAfter) implements AttemptResult {}

    /** The receiver refused the request (another 4xx, a redirect): sending it again cannot help. */
    record Refused(int status, String error) implements AttemptResult {}
}
