package dev.cadre.platform.outbox;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code cadre.outbox.*}: how deliveries are retried and shared between instances. An attempt that
 * fails transiently (5xx, 408, 429, a timeout, a connection error) is retried after {@code
 * initial-backoff} doubled per attempt up to {@code max-backoff}, with jitter (half the delay fixed,
 * half random), or after the receiver's {@code Retry-After} (at most {@code max-retry-after}); after
 * {@code max-attempts} it is failed. A worker claims at most {@code batch-size} due rows every {@code
 * poll-interval} (and at once when something is enqueued) for {@code lease}, which must outlast an
 * attempt; delivered and failed rows are kept for {@code keep}.
 */
@ConfigurationProperties("cadre.outbox")
public record OutboxProperties(
        @Nullable Integer maxAttempts,
        @Nullable Duration initialBackoff,
        @Nullable Duration maxBackoff,
        @Nullable Duration maxRetryAfter,
        @Nullable Duration lease,
        @Nullable Duration pollInterval,
        @Nullable Integer batchSize,
        @Nullable Duration keep) {

    public OutboxProperties {
        maxAttempts = maxAttempts == null ? 8 : maxAttempts;
        initialBackoff = initialBackoff == null ? Duration.ofSeconds(5) : initialBackoff;
        maxBackoff = maxBackoff == null ? Duration.ofMinutes(10) : maxBackoff;
        maxRetryAfter = maxRetryAfter == null ? Duration.ofHours(1) : maxRetryAfter;
        lease = lease == null ? Duration.ofMinutes(2) : lease;
        pollInterval = pollInterval == null ? Duration.ofSeconds(2) : pollInterval;
        batchSize = batchSize == null ? 20 : batchSize;
        keep = keep == null ? Duration.ofDays(7) : keep;
        if (maxAttempts < 1 || maxAttempts > 100) {
            throw new IllegalArgumentException("cadre.outbox.max-attempts must be 1..100, was " + maxAttempts);
        }
        if (batchSize < 1 || batchSize > 1000) {
            throw new IllegalArgumentException("cadre.outbox.batch-size must be 1..1000, was " + batchSize);
        }
        positive("initial-backoff", initialBackoff);
        positive("max-backoff", maxBackoff);
        positive("max-retry-after", maxRetryAfter);
        positive("lease", lease);
        positive("poll-interval", pollInterval);
        positive("keep", keep);
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("cadre.outbox.max-backoff must not be shorter than initial-backoff");
        }
    }

    /** All defaults. */
    public static OutboxProperties defaults() {
        return new OutboxProperties(null, null, null, null, null, null, null, null);
    }

    private static void positive(String name, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("cadre.outbox." + name + " must be positive, was " + d);
        }
    }
}
