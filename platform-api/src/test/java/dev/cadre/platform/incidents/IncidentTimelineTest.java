package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.memory.InMemorySharedMemory;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.Writer;
import dev.cadre.platform.web.SecretRedactor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The incident timeline: sightings and events are appended outside the versioned record, so an alert
 * repeated hundreds of times adds a handful of versions, not one per repeat; the human actions are
 * idempotent and their conflicts refused.
 */
class IncidentTimelineTest {

    private static final Writer ALERTMANAGER = Writer.apiClient("alertmanager");
    private final JsonMapper json = JsonMapper.builder().build();
    private final IncidentGrowthTest.SteppedClock clock =
            new IncidentGrowthTest.SteppedClock(Instant.parse("2026-05-08T03:00:00Z"));
    private final InMemorySharedMemory memory =
            new InMemorySharedMemory(MemoryOptions.defaults().withClock(clock));
    private final IncidentService incidents = new IncidentService(
            memory,
            json,
            clock,
            new IncidentService.Settings(Duration.ofHours(1), 3, Duration.ofMinutes(30), Duration.ofSeconds(10)),
            SecretRedactor.standard(),
            new InMemoryIncidentTimeline());

    private static IncidentService.OpenRequest alert(String fingerprint) {
        return new IncidentService.OpenRequest(
                fingerprint,
                "HostHighCpu on web-1",
                "critical",
                "alertmanager",
                Map.of("instance", "web-1:9100"),
                "x".repeat(20_000),
                null,
                new IncidentTarget(IncidentTarget.Kind.HOST, "web-1", null, "web-1:9100"));
    }

    @Test
    void threeHundredRepeats_addTwoVersions_andEverySightingIsOnTheTimeline() {
        Incident first = incidents.open(alert("fp-flood"), ALERTMANAGER, null).incident();
        int before = memory.history(IncidentService.NAMESPACE, first.id()).size();
        for (int i = 1; i < 300; i++) {
            clock.advance(Duration.ofMillis(10));
            incidents.open(alert("fp-flood"), ALERTMANAGER, null);
        }
        int after = memory.history(IncidentService.NAMESPACE, first.id()).size();

        assertThat(before).isEqualTo(1);
        // One more version: the escalation at the third sighting; the 297 others are timeline rows.
        assertThat(after).isEqualTo(2);
        Incident incident = incidents.get(first.id()).orElseThrow();
        assertThat(incident.occurrences()).isEqualTo(300);
        assertThat(incident.escalated()).isTrue();
        assertThat(incident.value().path("lastSeenAt").asString())
                .isEqualTo(clock.instant().toString());
        assertThat(incident.value().path("summary").asString()).hasSize(IncidentService.MAX_SUMMARY);
        assertThat(incident.value().path("target").path("name").asString()).isEqualTo("web-1");

        List<IncidentTimeline.Stored> timeline = incidents.timeline(first.id(), 0, 1000);
        assertThat(timeline.stream().map(s -> s.entry().kind()).filter(k -> k == TimelineKind.SIGHTING))
                .hasSize(299);
        assertThat(timeline.stream().map(s -> s.entry().kind()).filter(k -> k == TimelineKind.ESCALATED))
                .hasSize(1);
        assertThat(timeline.getFirst().entry().kind()).isEqualTo(TimelineKind.OPENED);
        assertThat(timeline.getFirst().entry().actor()).isEqualTo("alertmanager");
    }

    @Test
    void sightingsAMinuteApart_refreshTheRecordsCounters() {
        Incident first = incidents.open(alert("fp-slow"), ALERTMANAGER, null).incident();
        clock.advance(Duration.ofMinutes(2));
        incidents.open(alert("fp-slow"), ALERTMANAGER, null);
        // Stored, not only overlaid when read: agents reading memory see it too.
        String stored = memory.get(IncidentService.NAMESPACE, first.id(), true)
                .orElseThrow()
                .value();
        assertThat(json.readTree(stored).path("occurrences").asInt()).isEqualTo(2);
    }

    @Test
    void runsLinked_areOnTheTimelineOnce() {
        Incident incident =
                incidents.open(alert("fp-run"), ALERTMANAGER, "run-1").incident();
        incidents.linkRun("run-1", incident.id(), ALERTMANAGER);
        incidents.linkRun("run-2", incident.id(), ALERTMANAGER);
        assertThat(incidents.timeline(incident.id(), 0, 100).stream()
                        .filter(s -> s.entry().kind() == TimelineKind.RUN_STARTED)
                        .map(s -> s.entry().runId()))
                .containsExactly("run-1", "run-2");
    }

    @Test
    void humanActions_areRecordedOnce_andRepeatsChangeNothing() {
        String id =
                incidents.open(alert("fp-human"), ALERTMANAGER, null).incident().id();

        assertThat(incidents.acknowledge(id, "alice").changed()).isTrue();
        assertThat(incidents.acknowledge(id, "alice").changed()).isFalse();
        assertThat(incidents.assign(id, "bob", "alice").changed()).isTrue();
        assertThat(incidents.assign(id, "bob", "alice").changed()).isFalse();
        assertThat(incidents.comment(id, "looking at the disk", "bob", "k1").changed())
                .isTrue();
        assertThat(incidents.comment(id, "looking at the disk", "bob", "k1").changed())
                .isFalse();
        Resolution fix = new Resolution("a log file grew without rotation", "rotated and compressed it");
        assertThat(incidents.resolve(id, fix, "bob").changed()).isTrue();
        assertThat(incidents.resolve(id, fix, "bob").changed()).isFalse();
        assertThatThrownBy(() -> incidents.resolve(id, new Resolution("other", "other"), "bob"))
                .isInstanceOf(IncidentService.ActionConflict.class);
        assertThatThrownBy(() -> incidents.acknowledge(id, "carol")).isInstanceOf(IncidentService.ActionConflict.class);

        Incident resolved = incidents.get(id).orElseThrow();
        assertThat(resolved.status()).isEqualTo(Incident.RESOLVED);
        assertThat(resolved.value().path("assignee").asString()).isEqualTo("bob");
        assertThat(resolved.value().path("resolution").path("fix").asString()).isEqualTo("rotated and compressed it");
        assertThat(incidents.findActive("fp-human")).isEmpty();

        assertThat(incidents.reopen(id, "it came back", "carol").changed()).isTrue();
        assertThat(incidents.reopen(id, "it came back", "carol").changed()).isFalse();
        assertThat(incidents.findActive("fp-human").orElseThrow().id()).isEqualTo(id);

        assertThat(incidents.timeline(id, 0, 100).stream().map(s -> s.entry().kind()))
                .containsExactly(
                        TimelineKind.OPENED,
                        TimelineKind.ACKNOWLEDGED,
                        TimelineKind.ASSIGNED,
                        TimelineKind.COMMENTED,
                        TimelineKind.RESOLVED,
                        TimelineKind.REOPENED);
        assertThatThrownBy(() -> incidents.acknowledge("inc-nope", "alice")).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void aRemediationThatDidNotFix_isRecorded_andEscalates_andNotificationsAreOnTheTimeline() {
        String id =
                incidents.open(alert("fp-fix"), ALERTMANAGER, null).incident().id();
        RemediationOutcome unchanged = new RemediationOutcome(
                RemediationOutcome.Verdict.UNCHANGED,
                "ready 0/1 after 2m",
                json.createObjectNode().put("ready", "0/1"),
                "alice");
        incidents.recordRemediationOutcome(
                id,
                "call-1",
                "k8s_rollout_undo",
                json.createObjectNode().put("name", "checkout"),
                unchanged,
                ALERTMANAGER);
        incidents.recordRemediationOutcome(
                id,
                "call-1",
                "k8s_rollout_undo",
                json.createObjectNode().put("name", "checkout"),
                unchanged,
                ALERTMANAGER);
        incidents.recordNotification(
                id,
                new NotificationRecord("escalation", "slack", NotificationRecord.Status.FAILED, 1, "HTTP 500", "d-1"));
        incidents.recordNotification(
                id, new NotificationRecord("escalation", "slack", NotificationRecord.Status.SENT, 2, null, "d-1"));
        incidents.recordNotification(
                id, new NotificationRecord("escalation", "slack", NotificationRecord.Status.SENT, 2, null, "d-1"));

        Incident incident = incidents.get(id).orElseThrow();
        assertThat(incident.escalated()).isTrue();
        assertThat(incident.value().path("remediations")).hasSize(1);
        assertThat(incident.value().path("remediations").get(0).path("verdict").asString())
                .isEqualTo("unchanged");
        assertThat(incident.value().path("remediations").get(0).path("approver").asString())
                .isEqualTo("alice");
        assertThat(incidents.timeline(id, 0, 100).stream().map(s -> s.entry().kind()))
                .containsExactly(
                        TimelineKind.OPENED,
                        TimelineKind.ACTION_VERIFIED,
                        TimelineKind.ESCALATED,
                        TimelineKind.NOTIFICATION_FAILED,
                        TimelineKind.NOTIFICATION_SENT);
    }

    @Test
    void anEntryForAnUnknownIncident_isIgnored() {
        incidents.appendTimeline("inc-unknown", TimelineEntry.of(TimelineKind.COMMENTED, "x", "hello"));
        assertThat(incidents.timelineSince(0, 10)).isEmpty();
    }
}
