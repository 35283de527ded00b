package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.InMemorySharedMemory;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.Writer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 26 item 5: copies of one Alertmanager notification (same fingerprint, {@code startsAt} and
 * status) within the duplicate window are one sighting — an HA pair, a retried delivery, concurrent
 * deliveries — while a repeat after the window still counts, so escalation at the third sighting
 * still works for an alert that keeps firing.
 */
class IncidentSightingsTest {

    private static final Writer ALERTMANAGER = Writer.apiClient("alertmanager");
    private static final String STARTS = "2026-05-08T03:00:00Z firing";

    private final IncidentGrowthTest.SteppedClock clock =
            new IncidentGrowthTest.SteppedClock(Instant.parse("2026-05-08T03:00:05Z"));

    private IncidentService service(SharedMemory memory) {
        return new IncidentService(
                memory,
                JsonMapper.builder().build(),
                clock,
                new IncidentService.Settings(Duration.ofHours(1), 3, Duration.ofMinutes(30), Duration.ofSeconds(10)),
                dev.cadre.platform.web.SecretRedactor.standard());
    }

    private static IncidentService.OpenRequest notification(String fingerprint, String deliveryKey) {
        return new IncidentService.OpenRequest(
                fingerprint, "HostHighCpu on web-1", "critical", "alertmanager", Map.of(), null, deliveryKey);
    }

    @Test
    void fiveCopiesOfOneNotification_areOneSighting_andEscalateNothing() {
        IncidentService incidents =
                service(new InMemorySharedMemory(MemoryOptions.defaults().withClock(clock)));
        List<IncidentService.Opened> answers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            answers.add(incidents.open(notification("fp-copies", STARTS), ALERTMANAGER, null));
            clock.advance(Duration.ofSeconds(1));
        }
        assertThat(answers.stream().filter(IncidentService.Opened::created)).hasSize(1);
        assertThat(answers.stream().filter(IncidentService.Opened::duplicate)).hasSize(4);
        Incident incident = incidents.findActive("fp-copies").orElseThrow();
        assertThat(incident.occurrences()).isEqualTo(1);
        assertThat(incident.escalated()).isFalse();
    }

    @Test
    void concurrentCopies_areOneSighting() throws Exception {
        IncidentService incidents =
                service(new InMemorySharedMemory(MemoryOptions.defaults().withClock(clock)));
        assertThat(concurrently(List.of(incidents, incidents, incidents, incidents, incidents, incidents), "fp-race"))
                .isEqualTo(1);
    }

    @Test
    void aRepeatAfterTheWindow_counts_andTheThirdRealSightingEscalates() {
        IncidentService incidents =
                service(new InMemorySharedMemory(MemoryOptions.defaults().withClock(clock)));
        IncidentService.Opened first = incidents.open(notification("fp-repeat", STARTS), ALERTMANAGER, null);
        assertThat(first.created()).isTrue();

        // Alertmanager's repeat_interval: the same startsAt and status, the alert still firing.
        clock.advance(Duration.ofSeconds(11));
        IncidentService.Opened second = incidents.open(notification("fp-repeat", STARTS), ALERTMANAGER, null);
        assertThat(second.duplicate()).isFalse();
        assertThat(second.incident().occurrences()).isEqualTo(2);
        assertThat(second.escalatedNow()).isFalse();

        // Its copy from the other member of the HA pair, 2 s later: nothing more.
        clock.advance(Duration.ofSeconds(2));
        IncidentService.Opened copy = incidents.open(notification("fp-repeat", STARTS), ALERTMANAGER, null);
        assertThat(copy.duplicate()).isTrue();
        assertThat(copy.incident().occurrences()).isEqualTo(2);

        clock.advance(Duration.ofMinutes(5));
        IncidentService.Opened third = incidents.open(notification("fp-repeat", STARTS), ALERTMANAGER, null);
        assertThat(third.incident().occurrences()).isEqualTo(3);
        assertThat(third.escalatedNow()).isTrue();
        assertThat(third.incident().escalated()).isTrue();

        clock.advance(Duration.ofSeconds(1));
        IncidentService.Opened thirdsCopy = incidents.open(notification("fp-repeat", STARTS), ALERTMANAGER, null);
        assertThat(thirdsCopy.duplicate()).isTrue();
        assertThat(thirdsCopy.escalatedNow()).isFalse();
    }

    @Test
    void anotherFiringOfTheSameAlert_withinTheWindow_counts() {
        IncidentService incidents =
                service(new InMemorySharedMemory(MemoryOptions.defaults().withClock(clock)));
        incidents.open(notification("fp-flap", STARTS), ALERTMANAGER, null);
        IncidentService.Opened other =
                incidents.open(notification("fp-flap", "2026-05-08T03:00:04Z firing"), ALERTMANAGER, null);
        assertThat(other.duplicate()).isFalse();
        assertThat(other.incident().occurrences()).isEqualTo(2);
    }

    @Test
    void theResolvedFiringDeliveredLate_isStale_andANewFiringOpensANewIncident() {
        IncidentService incidents =
                service(new InMemorySharedMemory(MemoryOptions.defaults().withClock(clock)));
        Incident first = incidents
                .open(notification("fp-late", STARTS), ALERTMANAGER, null)
                .incident();
        clock.advance(Duration.ofMinutes(2));
        incidents.resolve("fp-late", "Alertmanager reported resolved", ALERTMANAGER);

        clock.advance(Duration.ofSeconds(30));
        IncidentService.Opened late = incidents.open(notification("fp-late", STARTS), ALERTMANAGER, null);
        assertThat(late.duplicate()).isTrue();
        assertThat(late.created()).isFalse();
        assertThat(late.incident().id()).isEqualTo(first.id());
        assertThat(late.incident().active()).isFalse();

        IncidentService.Opened again =
                incidents.open(notification("fp-late", "2026-05-08T04:00:00Z firing"), ALERTMANAGER, null);
        assertThat(again.created()).isTrue();
        assertThat(again.incident().id()).isNotEqualTo(first.id());
    }

    @Test
    void callsWithoutADeliveryKey_countEverySighting() {
        IncidentService incidents =
                service(new InMemorySharedMemory(MemoryOptions.defaults().withClock(clock)));
        for (int i = 0; i < 3; i++) {
            incidents.open(notification("fp-agent", null), ALERTMANAGER, null);
        }
        assertThat(incidents.findActive("fp-agent").orElseThrow().occurrences()).isEqualTo(3);
    }

    /** Opens one notification from every service at once (released together); the sightings counted. */
    static int concurrently(List<IncidentService> services, String fingerprint) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Callable<IncidentService.Opened>> calls = new ArrayList<>();
        for (IncidentService s : services) {
            calls.add(() -> {
                go.await();
                return s.open(notification(fingerprint, STARTS), ALERTMANAGER, null);
            });
        }
        List<IncidentService.Opened> answers = new ArrayList<>();
        try (var pool = Executors.newFixedThreadPool(services.size())) {
            List<Future<IncidentService.Opened>> futures = new ArrayList<>();
            for (Callable<IncidentService.Opened> c : calls) {
                futures.add(pool.submit(c));
            }
            go.countDown();
            for (Future<IncidentService.Opened> f : futures) {
                answers.add(f.get());
            }
        }
        assertThat(answers.stream().filter(IncidentService.Opened::created)).hasSize(1);
        assertThat(answers.stream().map(a -> a.incident().id()).distinct()).hasSize(1);
        return services.getFirst().findActive(fingerprint).orElseThrow().occurrences();
    }
}
