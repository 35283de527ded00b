package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.InMemorySharedMemory;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.MemoryRetention;
import dev.cadre.memory.MemoryVersion;
import dev.cadre.memory.Writer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * An incident that stays open while its alert fires once a minute for 30 days (43,200 sightings,
 * time simulated) keeps accepting sightings, and what it leaves in shared memory stays bounded:
 * its value (a capped list of recent runs plus a count; it used to list every run and pass the
 * 256 KiB value limit after about 6,700 sightings), its history (with the hourly prune retention
 * runs: the last 20 versions plus 7 days) and its run links (14 days).
 */
class IncidentGrowthTest {

    /** A clock the test moves. */
    static final class SteppedClock extends Clock {
        private Instant now;

        SteppedClock(Instant start) {
            this.now = start;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void anIncidentSeenEveryMinuteFor30Days_stillAcceptsSightings_andStaysBounded() {
        SteppedClock clock = new SteppedClock(Instant.parse("2026-01-01T00:00:00Z"));
        InMemorySharedMemory memory =
                new InMemorySharedMemory(MemoryOptions.defaults().withClock(clock));
        IncidentService incidents = new IncidentService(
                memory,
                JsonMapper.builder().build(),
                clock,
                new IncidentService.Settings(Duration.ofHours(1), 3, Duration.ofMinutes(30)),
                dev.cadre.platform.web.SecretRedactor.standard());
        Writer alertmanager = Writer.apiClient("alertmanager");
        IncidentService.OpenRequest disk = new IncidentService.OpenRequest(
                "disk-full/db-1", "disk full on db-1", "high", "alertmanager", Map.of("instance", "db-1"), null);
        // The defaults of cadre.retention.* (RetentionSettings.defaults()).
        int keepVersions = 20;
        Duration historyAge = Duration.ofDays(7);
        Duration linkAge = Duration.ofDays(14);
        int sightings = 30 * 24 * 60;
        int largestValue = 0;

        for (int i = 0; i < sightings; i++) {
            clock.advance(Duration.ofMinutes(1));
            IncidentService.Opened opened = incidents.open(disk, alertmanager, "run_" + i);
            assertThat(opened.incident().occurrences()).isEqualTo(i + 1);
            // Notifications are not kept on the record: the outbox and the timeline hold them.
            largestValue =
                    Math.max(largestValue, opened.incident().value().toString().length());
            if (i % 60 == 59) { // retention's hourly pass
                memory.prune(new MemoryRetention(
                        keepVersions,
                        clock.instant().minus(historyAge),
                        clock.instant().minus(historyAge)));
                incidents.pruneRunLinks(clock.instant().minus(linkAge), alertmanager);
            }
        }

        Incident incident = incidents.findActive("disk-full/db-1").orElseThrow();
        assertThat(incident.occurrences()).isEqualTo(sightings);
        assertThat(incident.value().path("runCount").asLong()).isEqualTo(sightings);
        assertThat(incident.runs()).hasSize(IncidentService.MAX_RUNS).endsWith("run_" + (sightings - 1));
        // The value stays far below memory's 256 KiB limit, however long the incident stays open.
        assertThat(largestValue).isLessThan(4 * 1024);

        // History: one version per sighting within the last 7 days (plus the hour since the last
        // prune) and nothing older — about 10,000 versions of under 4 KiB, ≤ 40 MiB.
        List<MemoryVersion> history = memory.history(IncidentService.NAMESPACE, incident.id());
        assertThat(history.size()).isLessThanOrEqualTo(7 * 24 * 60 + 60 + keepVersions);
        long historyBytes = history.stream().mapToLong(v -> v.value().length()).sum();
        assertThat(historyBytes).isLessThan(40L * 1024 * 1024);
        assertThat(history.getFirst().updatedAt())
                .isAfterOrEqualTo(clock.instant().minus(historyAge).minus(Duration.ofHours(1)));

        // Run links: those of the last 14 days and the runs the incident lists; older ones are gone.
        long links = 0;
        String after = null;
        do {
            var page = memory.list(IncidentService.NAMESPACE, "run:", after, 1000);
            links += page.entries().size();
            after = page.nextAfterKey();
        } while (after != null);
        assertThat(links).isLessThanOrEqualTo(14 * 24 * 60 + 60 + IncidentService.MAX_RUNS);
        assertThat(incidents.forRun("run_0")).isEmpty();
        assertThat(incidents.forRun("run_" + (sightings - 1))).map(Incident::id).contains(incident.id());
    }
}
