package dev.cadre.platform.outbox;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Makes one HTTP attempt of a delivery and classifies the answer. */
final class HttpAttempts {

    /** Of an error answer's body, this much is kept as the delivery's last error. */
    private static final int ERROR_BODY_BYTES = 300;

    private final HttpClient http;
    private final Clock clock;

    HttpAttempts(HttpClient http, Clock clock) {
        this.http = http;
        this.clock = clock;
    }

    AttemptResult attempt(OutboxDelivery d, OutboxChannel channel) throws InterruptedException {
        if (channel.url() == null) {
            return new AttemptResult.Refused(0, "channel " + channel.name() + " has no URL configured");
        }
        HttpRequest request = HttpRequest.newBuilder(channel.url())
                .timeout(channel.timeout())
                .header("Content-Type", channel.contentType())
                .header("User-Agent", "cadre-outbox")
                .header("Idempotency-Key", d.idempotencyKey())
                .POST(HttpRequest.BodyPublishers.ofString(d.body()))
                .build();
        HttpResponse<InputStream> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpTimeoutException e) {
            return new AttemptResult.Transient(0, "no answer within " + channel.timeout(), null);
        } catch (IOException e) {
            return new AttemptResult.Transient(0, "connection failed: " + e, null);
        }
        int status = response.statusCode();
        String head;
        try (InputStream body = response.body()) {
            head = new String(body.readNBytes(ERROR_BODY_BYTES), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            head = "";
        }
        if (status / 100 == 2) {
            return new AttemptResult.Delivered(status);
        }
        String error = "HTTP " + status + (head.isEmpty() ? "" : ": " + head);
        if (status >= 500 || status == 408 || status == 429) {
            return new AttemptResult.Transient(
                    status,
                    error,
                    retryAfter(response.headers().firstValue("Retry-After")).orElse(null));
        }
        return new AttemptResult.Refused(status, error);
    }

    /** {@code Retry-After} as seconds or an HTTP date; empty when absent or unreadable. */
    Optional<Duration> retryAfter(Optional<String> header) {
        if (header.isEmpty()) {
            return Optional.empty();
        }
        String v = header.get().strip();
        try {
            return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(v))));
        } catch (NumberFormatException notSeconds) {
            return date(v).map(at -> {
                Duration d = Duration.between(clock.instant(), at.toInstant());
                return d.isNegative() ? Duration.ZERO : d;
            });
        }
    }

    private static Optional<ZonedDateTime> date(@Nullable String v) {
        try {
            return Optional.of(ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME));
        } catch (DateTimeParseException | NullPointerException e) {
            return Optional.empty();
        }
    }
}
