package dev.cadre.platform.tools;

import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.web.SecretRedactor;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Sends notifications to the configured webhook, as generic JSON or as a Slack-compatible
 * {@code {"text": …}} body, and pages the escalation channel once when an incident is escalated.
 */
public final class Notifier implements IncidentService.Listener {

    private static final Logger log = LoggerFactory.getLogger(Notifier.class);

    private final OpsToolsProperties.Notify config;
    private final HttpClient http;
    private final JsonMapper json;
    private final Clock clock;
    private final IncidentService incidents;
    private final SecretRedactor redactor;

    public Notifier(
            OpsToolsProperties.Notify config,
            HttpClient http,
            JsonMapper json,
            Clock clock,
            IncidentService incidents,
            SecretRedactor redactor) {
        this.redactor = redactor;
        this.config = config;
        this.http = http;
        this.json = json;
        this.clock = clock;
        this.incidents = incidents;
    }

    /** One message. */
    public record Message(
            String title,
            String text,
            String severity,
            @Nullable String incident,
            @Nullable String runId,
            @Nullable String agent) {}

    /** What happened to a message. */
    public record Delivery(boolean sent, int httpStatus, String detail) {}

    public boolean configured() {
        return config.webhookUrl() != null;
    }

    /** Posts a message to the webhook (or the escalation webhook). */
    public Delivery send(Message message, boolean escalation) throws IOException, InterruptedException {
        URI target = escalation ? config.escalationUrl() : config.webhookUrl();
        if (target == null) {
            return new Delivery(false, 0, "no webhook configured (cadre.tools.notify.webhook-url); message not sent");
        }
        String body = body(message, escalation);
        HttpRequest request = HttpRequest.newBuilder(target)
                .timeout(config.timeout())
                .header("Content-Type", "application/json")
                .header("User-Agent", "cadre-notify")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        boolean ok = response.statusCode() / 100 == 2;
        return new Delivery(
                ok,
                response.statusCode(),
                ok
                        ? "delivered"
                        : "webhook answered HTTP " + response.statusCode() + ": " + abbreviate(response.body()));
    }

    /** The webhook body, redacted as a whole (issue 23): it leaves the platform. */
    private String body(Message m, boolean escalation) {
        return redactor.redact(rawBody(m, escalation)).toString();
    }

    private ObjectNode rawBody(Message m, boolean escalation) {
        if (config.format().equals("slack")) {
            String icon = escalation ? ":rotating_light: " : m.severity().equals("critical") ? ":red_circle: " : "";
            return json.createObjectNode()
                    .put(
                            "text",
                            icon + "*" + m.title() + "*\n" + m.text()
                                    + (m.incident() == null ? "" : "\nincident: `" + m.incident() + "`"));
        }
        ObjectNode o = json.createObjectNode();
        o.put("source", "cadre");
        o.put("kind", escalation ? "escalation" : "notification");
        o.put("title", m.title());
        o.put("text", m.text());
        o.put("severity", m.severity());
        o.put("incident", m.incident());
        o.put("runId", m.runId());
        o.put("agent", m.agent());
        o.put("at", clock.instant().toString());
        return o;
    }

    @Override
    public void escalated(Incident incident) {
        if (!incidents.claimNotification(incident.id(), "escalation", Writer.apiClient("cadre-notifier"))) {
            return;
        }
        Message m = new Message(
                "Escalated: " + incident.value().path("title").asString(incident.fingerprint()),
                "Incident " + incident.id() + " was seen " + incident.occurrences()
                        + " times. Automated remediation is off for it; a human owns it now.",
                "critical",
                incident.id(),
                null,
                null);
        try {
            Delivery d = send(m, true);
            log.info("Escalation of {}: {}", incident.id(), d.detail());
        } catch (IOException e) {
            log.warn("Escalation of {} could not be delivered: {}", incident.id(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 199) + "…";
    }
}
