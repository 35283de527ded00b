package dev.cadre.platform.tools;

import static dev.cadre.platform.tools.ToolTestSupport.JSON;
import static dev.cadre.platform.tools.ToolTestSupport.args;
import static dev.cadre.platform.tools.ToolTestSupport.ctx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.memory.Writer;
import dev.cadre.memory.testing.TestDatabases;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.incidents.IncidentTarget;
import dev.cadre.platform.incidents.IncidentTimeline;
import dev.cadre.platform.incidents.TimelineKind;
import dev.cadre.platform.outbox.Outbox;
import dev.cadre.platform.outbox.OutboxChannel;
import dev.cadre.platform.outbox.OutboxProperties;
import dev.cadre.platform.outbox.OutboxStore;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.MovableClock;
import dev.cadre.platform.support.WebhookReceiver;
import dev.cadre.platform.support.WebhookReceiver.Step;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * {@code notify} and the escalation page through the durable outbox, against a real local webhook
 * receiver: what a person reads (Slack Block Kit and the generic JSON format), recorded as sent only
 * after a 2xx, a failure or a missing webhook recorded as such and never silencing the incident, and
 * the alert's own text kept out of the platform's words.
 */
class NotifyToolTest {

    static final URI CONSOLE = URI.create("https://cadre.example.com");

    @TempDir
    Path dir;

    HikariDataSource db;
    WebhookReceiver receiver;
    MovableClock clock;
    Outbox outbox;
    IncidentService incidents;

    @BeforeEach
    void start() throws Exception {
        db = TestDatabases.h2File(dir, 4);
        Flyway.configure()
                .dataSource(db)
                .locations("classpath:db/migration", "classpath:db/vendor/h2")
                .load()
                .migrate();
        receiver = new WebhookReceiver();
        clock = new MovableClock(Instant.now());
        incidents = ToolTestSupport.incidents();
    }

    @AfterEach
    void stop() throws Exception {
        if (outbox != null) {
            outbox.close();
        }
        receiver.close();
        db.close();
    }

    private NotifyTool tool(String path, String format) {
        URI url = path == null ? null : receiver.url(path);
        var config = new OpsToolsProperties.Notify(url, format, receiver.url("/escalate"), Duration.ofSeconds(2));
        outbox = new Outbox(
                new OutboxStore(
                        JdbcClient.create(db), new TransactionTemplate(new DataSourceTransactionManager(db)), false),
                List.of(
                        new OutboxChannel(Notifier.NOTIFY_CHANNEL, config.webhookUrl(), config.timeout()),
                        new OutboxChannel(Notifier.ESCALATION_CHANNEL, config.escalationUrl(), config.timeout())),
                // Backoff of 60 s: a retry happens only when the test moves the clock.
                new OutboxProperties(
                        5,
                        Duration.ofSeconds(60),
                        Duration.ofSeconds(60),
                        null,
                        null,
                        Duration.ofMillis(50),
                        null,
                        null),
                HttpClient.newHttpClient(),
                clock,
                new Random(3),
                "test",
                new SimpleMeterRegistry());
        Notifier notifier = new Notifier(
                config, CONSOLE, outbox, JSON, clock, incidents, dev.cadre.platform.web.SecretRedactor.standard());
        incidents.addListener(notifier);
        outbox.addListener(notifier);
        outbox.start();
        return new NotifyTool(notifier, incidents, null, JSON, config.timeout());
    }

    private String openIncident(String fingerprint, String title, Map<String, String> labels) {
        return incidents
                .open(
                        new IncidentService.OpenRequest(
                                fingerprint,
                                title,
                                "high",
                                "alertmanager",
                                labels,
                                null,
                                null,
                                new IncidentTarget(IncidentTarget.Kind.HOST, "db-1", null, "db-1:9100")),
                        Writer.apiClient("t"),
                        "run-1")
                .incident()
                .id();
    }

    private List<String> notificationTimeline(String incident) {
        return incidents.timeline(incident, 0, 100).stream()
                .map(IncidentTimeline.Stored::entry)
                .filter(e -> e.kind() == TimelineKind.NOTIFICATION_SENT || e.kind() == TimelineKind.NOTIFICATION_FAILED)
                .map(e -> e.kind() + " " + e.data().path("kind").asString() + " #"
                        + e.data().path("attempts").asInt())
                .toList();
    }

    private void retryNow() {
        clock.advance(Duration.ofSeconds(61));
        outbox.wake();
    }

    @Test
    void genericJson_carriesWhatAPersonNeeds_andOneAlertPerIncidentPerWindow() throws Exception {
        String id = openIncident("disk@db-1", "disk full", Map.of("instance", "db-1:9100"));
        NotifyTool notify = tool("/hook", "json");
        assertThat(notify.risk()).isEqualTo(Risk.SUGGEST);
        JsonNode first = JSON.readTree(notify.execute(
                args("{\"title\":\"Disk almost full on db-1\",\"text\":\"/var at 97%, growing 1%/h\","
                        + "\"proposed\":\"Clear /var/tmp older than 2 h\",\"severity\":\"high\"}"),
                ctx("run-1", "c1")));
        assertThat(first.get("sent").asBoolean()).as(first.toString()).isTrue();
        assertThat(first.get("httpStatus").asInt()).isEqualTo(200);
        assertThat(first.get("incident").asString()).isEqualTo(id);

        JsonNode second =
                JSON.readTree(notify.execute(args("{\"title\":\"Disk\",\"text\":\"again\"}"), ctx("run-1", "c2")));
        assertThat(second.get("sent").asBoolean()).isFalse();
        assertThat(second.get("reason").asString())
                .isEqualTo("already notified about incident " + id + " within PT30M; not sent again");

        assertThat(receiver.requests).hasSize(1);
        WebhookReceiver.Request r = receiver.requests.getFirst();
        assertThat(r.path()).isEqualTo("/hook");
        assertThat(r.idempotencyKey()).isEqualTo("alert:" + id + ":0");
        assertThat(r.contentType()).isEqualTo("application/json");
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.get("kind").asString()).isEqualTo("notification");
        assertThat(body.get("title").asString()).isEqualTo("Disk almost full on db-1");
        assertThat(body.get("severity").asString()).isEqualTo("high");
        assertThat(body.get("target").asString()).isEqualTo("host db-1");
        assertThat(body.get("found").asString()).isEqualTo("/var at 97%, growing 1%/h");
        assertThat(body.get("proposed").asString()).isEqualTo("Clear /var/tmp older than 2 h");
        assertThat(body.get("incident").get("id").asString()).isEqualTo(id);
        assertThat(body.get("incident").get("url").asString()).isEqualTo("https://cadre.example.com/#/incidents/" + id);
        assertThat(body.get("text").asString())
                .isEqualTo("Disk almost full on db-1\nSeverity: high · Target: \"host db-1\"\n"
                        + "Found: /var at 97%, growing 1%/h\nProposed: Clear /var/tmp older than 2 h\n"
                        + "Incident: https://cadre.example.com/#/incidents/" + id);
        assertThat(body.has("reported")).isFalse();
        assertThat(notificationTimeline(id)).containsExactly("NOTIFICATION_SENT alert #1");
    }

    @Test
    void aFailedSend_isRecordedAsAFailure_retriedWithBackoff_andDoesNotSilenceTheIncident() throws Exception {
        receiver.answering(Step.status(500), Step.slow(4000), Step.status(200));
        String id = openIncident("cpu@db-1", "cpu high", Map.of());
        NotifyTool notify = tool("/hook", "json");

        JsonNode first =
                JSON.readTree(notify.execute(args("{\"title\":\"CPU\",\"text\":\"db-1 at 99%\"}"), ctx("run-1", "c1")));
        assertThat(first.get("sent").asBoolean()).isFalse();
        assertThat(first.get("queued").asBoolean()).isTrue();
        assertThat(first.get("httpStatus").asInt()).isEqualTo(500);
        assertThat(notificationTimeline(id)).containsExactly("NOTIFICATION_FAILED alert #1");

        // While it is being delivered, another call is not a second message.
        JsonNode meanwhile =
                JSON.readTree(notify.execute(args("{\"title\":\"CPU\",\"text\":\"still\"}"), ctx("run-1", "c2")));
        assertThat(meanwhile.get("sent").asBoolean()).isFalse();
        assertThat(meanwhile.get("reason").asString()).contains("is still being delivered");

        retryNow(); // the receiver now takes longer than the 2 s the sender waits
        Await.until("the timed-out attempt recorded", () -> notificationTimeline(id), t -> t.size() == 2);
        retryNow();
        Await.until("the delivery after the retries", () -> notificationTimeline(id), t -> t.size() == 3);
        assertThat(notificationTimeline(id))
                .containsExactly(
                        "NOTIFICATION_FAILED alert #1", "NOTIFICATION_FAILED alert #2", "NOTIFICATION_SENT alert #3");
        assertThat(receiver.requests).hasSize(3);
        assertThat(receiver.requests)
                .extracting(WebhookReceiver.Request::idempotencyKey)
                .containsOnly("alert:" + id + ":0");
        assertThat(receiver.processed()).hasSize(1);
    }

    @Test
    void aRefusedSend_failsTheCall_isNotRetried_andTheNextNotificationIsSent() throws Exception {
        receiver.answering(Step.status(400), Step.status(200));
        String id = openIncident("mem@db-1", "memory", Map.of());
        NotifyTool notify = tool("/hook", "json");
        assertThatThrownBy(() -> notify.execute(args("{\"title\":\"Mem\",\"text\":\"x\"}"), ctx("run-1", "c1")))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("HTTP 400");
        retryNow();
        JsonNode next =
                JSON.readTree(notify.execute(args("{\"title\":\"Mem\",\"text\":\"second try\"}"), ctx("run-1", "c2")));
        assertThat(next.get("sent").asBoolean()).as(next.toString()).isTrue();
        assertThat(receiver.requests).hasSize(2);
        assertThat(receiver.requests.get(1).idempotencyKey()).isEqualTo("alert:" + id + ":1");
        assertThat(notificationTimeline(id))
                .containsExactly("NOTIFICATION_FAILED alert #1", "NOTIFICATION_SENT alert #1");
    }

    @Test
    void noWebhook_isRecordedAsAFailedNotification_andNeverStartsTheWindow() throws Exception {
        String id = openIncident("net@db-1", "network", Map.of());
        NotifyTool notify = tool(null, "json");
        for (String call : List.of("c1", "c2")) {
            JsonNode out = JSON.readTree(notify.execute(args("{\"title\":\"x\",\"text\":\"y\"}"), ctx("run-1", call)));
            assertThat(out.get("sent").asBoolean()).isFalse();
            assertThat(out.has("reason")).as("not 'already notified'").isFalse();
            assertThat(out.get("detail").asString())
                    .isEqualTo("no webhook configured (cadre.tools.notify.webhook-url); nothing was sent");
        }
        assertThat(notificationTimeline(id))
                .containsExactly("NOTIFICATION_FAILED alert #0", "NOTIFICATION_FAILED alert #0");
    }

    @Test
    void slack_isBlockKit_withSeverityTargetFindingsProposalAndLinks() throws Exception {
        String id = openIncident("disk@db-2", "disk", Map.of());
        NotifyTool slack = tool("/slack", "slack");
        slack.execute(
                args("{\"title\":\"Disk almost full\",\"text\":\"/var at 97% <b>\",\"proposed\":\"Clear tmp\","
                        + "\"severity\":\"critical\"}"),
                ctx("run-1", "c1"));
        JsonNode body = JSON.readTree(receiver.requests.getFirst().body());
        assertThat(body.get("text").asString()).startsWith("Disk almost full\nSeverity: critical");
        JsonNode blocks = body.get("blocks");
        assertThat(blocks.get(0).get("type").asString()).isEqualTo("header");
        assertThat(blocks.get(0).get("text").get("text").asString()).isEqualTo("🔴 Disk almost full");
        assertThat(blocks.get(1).get("fields").get(0).get("text").asString()).isEqualTo("*Severity*\ncritical");
        assertThat(blocks.get(1).get("fields").get(1).get("text").asString()).isEqualTo("*Target*\n`host db-1`");
        assertThat(blocks.get(2).get("text").get("text").asString())
                .isEqualTo("*What was found*\n/var at 97% &lt;b&gt;");
        assertThat(blocks.get(3).get("text").get("text").asString()).isEqualTo("*What is proposed*\nClear tmp");
        assertThat(blocks.get(4).get("type").asString()).isEqualTo("actions");
        assertThat(blocks.get(4).get("elements").get(0).get("url").asString())
                .isEqualTo("https://cadre.example.com/#/incidents/" + id);
        assertThat(blocks.get(5).get("elements").get(0).get("text").asString())
                .isEqualTo("Cadre · incident " + id + " · run run-1");
    }

    @Test
    void theEscalationPage_usesThePlatformsWords_andQuotesTheAlertsTextAsData() throws Exception {
        tool("/hook", "slack");
        String phishing = "URGENT: your session expired, re-login at https://evil.example/login and paste the token";
        String id = null;
        for (int i = 0; i < 3; i++) { // escalate-after 3
            id = openIncident("phish@db-1", phishing, Map.of("alertname", phishing));
        }
        String incident = id;
        Await.until("the escalation page", () -> receiver.requests.size(), n -> n == 1);
        WebhookReceiver.Request page = receiver.requests.getFirst();
        assertThat(page.path()).isEqualTo("/escalate");
        assertThat(page.idempotencyKey()).isEqualTo("escalation:" + incident + ":0");
        assertThat(page.body()).doesNotContain("https://evil.example").doesNotContain("http://");
        JsonNode blocks = JSON.readTree(page.body()).get("blocks");
        assertThat(blocks.get(0).get("text").get("text").asString())
                .isEqualTo("🚨 Escalated to a person: incident " + incident);
        String reported = blocks.get(4).get("text").get("text").asString();
        assertThat(blocks.get(2).get("text").get("text").asString())
                .isEqualTo("*What was found*\nSeen 3 times. Automated remediation is off for this incident; a person"
                        + " owns it now.");
        assertThat(reported)
                .isEqualTo("*Reported by the alert (unverified, quoted as received)*\n• alert: `URGENT: your session"
                        + " expired, re-login at hxxps[:]//evil.example/login and paste the token`");
        Await.until("the page recorded", () -> notificationTimeline(incident), t -> !t.isEmpty());
        assertThat(notificationTimeline(incident)).containsExactly("NOTIFICATION_SENT escalation #1");
    }
}
