package dev.cadre.platform.tools;

import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.incidents.NotificationRecord;
import dev.cadre.platform.outbox.DeliveryState;
import dev.cadre.platform.outbox.OutboundMessage;
import dev.cadre.platform.outbox.Outbox;
import dev.cadre.platform.outbox.OutboxDelivery;
import dev.cadre.platform.outbox.OutboxListener;
import dev.cadre.platform.web.SecretRedactor;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Notifications to the ops channel ({@code notify}) and pages to the escalation channel, delivered
 * through the durable {@link Outbox}: retried with backoff until the webhook answers 2xx, and recorded
 * on the incident as they really went (sent only after a 2xx; each failed attempt, a refusal or a
 * missing webhook as a failure). About an incident, at most one alert per notify window counted from
 * the last one <em>delivered</em>, and none while one is still being delivered; an escalation is paged
 * once (again only if the earlier page failed for good).
 */
public final class Notifier implements IncidentService.Listener, OutboxListener {

    private static final Logger log = LoggerFactory.getLogger(Notifier.class);

    /** The outbox channel of notifications ({@code cadre.tools.notify.webhook-url}). */
    public static final String NOTIFY_CHANNEL = "notify";

    /** The outbox channel of escalations ({@code cadre.tools.notify.escalation-url}). */
    public static final String ESCALATION_CHANNEL = "escalation";

    private final OpsToolsProperties.Notify config;
    private final @Nullable URI publicUrl;
    private final Outbox outbox;
    private final Clock clock;
    private final IncidentService incidents;
    private final SecretRedactor redactor;
    private final NotificationText text;
    private final Map<String, CompletableFuture<Settlement>> waiting = new ConcurrentHashMap<>();

    /**
     * @param publicUrl {@code cadre.public-url}: where people reach the console, for the links in a
     *     message (none when null)
     */
    public Notifier(
            OpsToolsProperties.Notify config,
            @Nullable URI publicUrl,
            Outbox outbox,
            JsonMapper json,
            Clock clock,
            IncidentService incidents,
            SecretRedactor redactor) {
        this.config = config;
        this.publicUrl = publicUrl;
        this.outbox = outbox;
        this.clock = clock;
        this.incidents = incidents;
        this.redactor = redactor;
        this.text = new NotificationText(json);
    }

    /** A link to a page of the console: an incident or an approval ({@code url} null without a public URL). */
    public record Link(String id, @Nullable URI url) {}

    /** A value that came from outside the platform (an alert's label), shown only quoted, as data. */
    public record Reported(String name, String value) {}

    /** A message as people will read it; rendered once, at the edge, by {@link NotificationText}. */
    record Notification(
            boolean escalation,
            String title,
            String severity,
            @Nullable String target,
            String found,
            @Nullable String proposed,
            List<Reported> reported,
            @Nullable String incident,
            @Nullable URI incidentUrl,
            List<Link> approvals,
            @Nullable String runId,
            @Nullable String agent) {}

    /** An agent's notification: a title, what was found, optionally what is proposed. */
    public record Message(
            String title,
            String found,
            String severity,
            @Nullable String proposed,
            @Nullable String incident,
            @Nullable String runId,
            @Nullable String agent,
            @Nullable String callId,
            List<String> approvalIds) {}

    /** What {@link #notify} did with a message. */
    public sealed interface Outcome {
        /** Stored in the outbox; the worker delivers it. */
        record Queued(OutboxDelivery delivery) implements Outcome {}

        /** Not sent: one about the incident was delivered within the window, or is being delivered. */
        record AlreadyNotified(String reason) implements Outcome {}

        /** Not sent: no webhook is configured (recorded on the incident as a failed notification). */
        record NotConfigured(String detail) implements Outcome {}
    }

    public boolean configured() {
        return outbox.configured(NOTIFY_CHANNEL);
    }

    /** Enqueues an agent's notification (about an incident: at most one per notify window). */
    public Outcome notify(Message m) {
        String channel = NOTIFY_CHANNEL;
        Optional<Incident> incident = m.incident() == null ? Optional.empty() : incidents.get(m.incident());
        if (!outbox.configured(channel)) {
            String detail = "no webhook configured (cadre.tools.notify.webhook-url); nothing was sent";
            incident.ifPresent(i -> incidents.recordNotification(
                    i.id(),
                    new NotificationRecord(
                            "alert", channel, NotificationRecord.Status.FAILED, 0, "not configured: " + detail, null)));
            return new Outcome.NotConfigured(detail);
        }
        List<Link> approvals = new ArrayList<>();
        for (String id : m.approvalIds()) {
            approvals.add(new Link(id, link("approvals", id)));
        }
        Notification n = new Notification(
                false,
                m.title(),
                NotificationText.severity(m.severity()),
                incident.map(Notifier::target).orElse(null),
                m.found(),
                m.proposed(),
                List.of(),
                incident.map(Incident::id).orElse(null),
                incident.map(i -> link("incidents", i.id())).orElse(null),
                approvals,
                m.runId(),
                m.agent());
        if (incident.isEmpty()) {
            // Not about an incident: every call is sent; a replayed call (same run and call) is not sent twice.
            String key = m.runId() != null && m.callId() != null
                    ? "notify:" + m.runId() + ":" + m.callId()
                    : "notify:" + UUID.randomUUID();
            return new Outcome.Queued(outbox.enqueue(new OutboundMessage(channel, key, null, "alert", body(n)))
                    .delivery());
        }
        return enqueueAbout(incident.get().id(), "alert", channel, n);
    }

    @Override
    public void escalated(Incident incident) {
        if (!outbox.configured(ESCALATION_CHANNEL)) {
            incidents.recordNotification(
                    incident.id(),
                    new NotificationRecord(
                            "escalation",
                            ESCALATION_CHANNEL,
                            NotificationRecord.Status.FAILED,
                            0,
                            "not configured: no escalation webhook (cadre.tools.notify.escalation-url or webhook-url)",
                            null));
            return;
        }
        JsonNode v = incident.value();
        // The platform's own words only; the alert's title and summary (anyone who can fire an alert
        // writes them) are shown quoted, as data, never as the message's title or instructions.
        List<Reported> reported = new ArrayList<>();
        if (!v.path("title").asString("").isBlank()) {
            reported.add(new Reported("alert", v.path("title").asString()));
        }
        if (!v.path("summary").asString("").isBlank()) {
            reported.add(new Reported("summary", v.path("summary").asString()));
        }
        // The record's count may lag (sightings are written to it at most once a minute); get() is exact.
        int seen = incidents.get(incident.id()).map(Incident::occurrences).orElse(incident.occurrences());
        Notification n = new Notification(
                true,
                "Escalated to a person: incident " + incident.id(),
                NotificationText.severity(v.path("severity").asString(null)),
                target(incident),
                "Seen " + seen + " times. Automated remediation is off for this incident;" + " a person owns it now.",
                "Look at the incident, acknowledge it, and decide what to do.",
                reported,
                incident.id(),
                link("incidents", incident.id()),
                List.of(),
                null,
                null);
        Outcome o = enqueueAbout(incident.id(), "escalation", ESCALATION_CHANNEL, n);
        log.info("Escalation of {}: {}", incident.id(), o);
    }

    /**
     * Enqueues a message of {@code kind} about an incident unless one was delivered within the window
     * (an escalation: ever) or one is still being delivered. Concurrent callers compute the same
     * idempotency key (the next slot after the settled deliveries), so the outbox stores one of them.
     */
    private Outcome enqueueAbout(String incidentId, String kind, String channel, Notification n) {
        Instant now = clock.instant();
        Duration window = incidents.settings().notifyWindow();
        int slot = 0;
        for (OutboxDelivery d : outbox.about(incidentId, kind)) {
            if (d.state() == DeliveryState.PENDING) {
                return new Outcome.AlreadyNotified("a notification about incident " + incidentId
                        + " is still being delivered (" + d.id() + ", " + d.attempts() + " attempts so far); not"
                        + " sent again");
            }
            if (d.state() == DeliveryState.DELIVERED
                    && (kind.equals("escalation")
                            || (d.deliveredAt() != null
                                    && d.deliveredAt().plus(window).isAfter(now)))) {
                return new Outcome.AlreadyNotified(
                        kind.equals("escalation")
                                ? "incident " + incidentId + " was already escalated"
                                : "already notified about incident " + incidentId + " within " + window
                                        + "; not sent again");
            }
            slot = Math.max(slot, slotOf(d.idempotencyKey()) + 1);
        }
        Outbox.Enqueued e = outbox.enqueue(
                new OutboundMessage(channel, kind + ":" + incidentId + ":" + slot, incidentId, kind, body(n)));
        if (!e.created()) {
            return new Outcome.AlreadyNotified("a notification about incident " + incidentId
                    + " was queued at the same moment (" + e.delivery().id() + "); not sent again");
        }
        return new Outcome.Queued(e.delivery());
    }

    private static int slotOf(String key) {
        int i = key.lastIndexOf(':');
        try {
            return Integer.parseInt(key.substring(i + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Waits at most {@code max} for the first attempt of a queued delivery: its outcome, or empty
     * when it has not been attempted yet.
     */
    public Optional<Settlement> firstAttempt(String deliveryId, Duration max) throws InterruptedException {
        CompletableFuture<Settlement> f = waiting.computeIfAbsent(deliveryId, k -> new CompletableFuture<>());
        try {
            Optional<Settlement> already = outbox.find(deliveryId)
                    .filter(d -> d.attempts() > 0
                            && (d.state() != DeliveryState.PENDING || d.lastStatus() != 0 || d.lastError() != null))
                    .map(d -> new Settlement(d.state(), d.attempts(), d.lastStatus(), d.lastError(), null));
            if (already.isPresent()) {
                return already;
            }
            return Optional.of(f.get(max.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (ExecutionException e) {
            return Optional.empty();
        } finally {
            waiting.remove(deliveryId);
        }
    }

    /** Records each attempt's outcome on the incident it is about, and wakes a waiting {@code notify}. */
    @Override
    public void settled(OutboxDelivery d, Settlement s) {
        try {
            record(d, s);
        } finally {
            // After the record: a notify that returns has its outcome on the incident already.
            CompletableFuture<Settlement> f = waiting.get(d.id());
            if (f != null) {
                f.complete(s);
            }
        }
    }

    private void record(OutboxDelivery d, Settlement s) {
        if (d.subject() == null || d.kind() == null) {
            return;
        }
        NotificationRecord.Status status = s.state() == DeliveryState.DELIVERED
                ? NotificationRecord.Status.SENT
                : NotificationRecord.Status.FAILED;
        String error = s.error();
        if (s.state() == DeliveryState.PENDING && s.nextAttemptAt() != null) {
            error = error + "; next attempt at " + s.nextAttemptAt();
        }
        incidents.recordNotification(
                d.subject(), new NotificationRecord(d.kind(), d.channel(), status, s.attempts(), error, d.id()));
    }

    /** The webhook body in the configured format, redacted as a whole: it leaves the platform. */
    private String body(Notification n) {
        return redactor.redact(
                        config.format().equals("slack")
                                ? text.slack(n)
                                : text.generic(n, clock.instant().toString()))
                .toString();
    }

    private @Nullable URI link(String page, String id) {
        return publicUrl == null ? null : URI.create(publicUrl + "/#/" + page + "/" + id);
    }

    /** What the incident is about, as "host web-1" or "deployment shop/checkout"; null when not known. */
    static @Nullable String target(Incident incident) {
        JsonNode t = incident.value().path("target");
        String name = t.path("name").asString("");
        if (!name.isBlank()) {
            String ns = t.path("namespace").asString("");
            String kind = t.path("kind").asString("");
            return (kind.isBlank() || kind.equals("unknown") ? "" : kind + " ") + (ns.isBlank() ? "" : ns + "/") + name;
        }
        JsonNode labels = incident.value().path("labels");
        for (String label : List.of("instance", "node", "host", "pod", "deployment", "service", "job")) {
            String v = labels.path(label).asString("");
            if (!v.isBlank()) {
                return v;
            }
        }
        return null;
    }
}
