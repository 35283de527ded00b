package dev.cadre.platform.integrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.InMemorySharedMemory;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.InMemoryIncidentTimeline;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.incidents.IncidentTimeline;
import dev.cadre.platform.security.Actor;
import dev.cadre.platform.web.SecretRedactor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * How much one delivery of a repeat (a firing alert of an open incident) reads: the rate limiter's
 * charge looks the incident up, and the intake opens the sighting from that lookup instead of reading
 * the pointer, the record and the sighting count a second time — under load each read is a wait for
 * a database connection.
 */
class AlertmanagerIntakeReadsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Counts the calls of one method name on a real component. */
    @SuppressWarnings("unchecked")
    private static <T> T counting(Class<T> type, T real, String method, AtomicInteger calls) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
            if (m.getName().equals(method)) {
                calls.incrementAndGet();
            }
            try {
                return m.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    private static JsonNode delivery(String startsAt) {
        return JSON.readTree("""
                {"version":"4","status":"firing","alerts":[{"status":"firing",
                  "labels":{"alertname":"HostHighCpu","instance":"web-1:9100","severity":"critical"},
                  "annotations":{"summary":"CPU above 90 percent"},
                  "startsAt":"%s","fingerprint":"reads-1"}]}
                """.formatted(startsAt));
    }

    @Test
    void aRepeat_readsThePointerAndTheRecordOnce_andTheSightingsTwice() {
        Clock clock = Clock.fixed(Instant.parse("2026-12-08T01:00:00Z"), ZoneOffset.UTC);
        AtomicInteger memoryReads = new AtomicInteger();
        AtomicInteger sightingReads = new AtomicInteger();
        SharedMemory memory = counting(
                SharedMemory.class,
                new InMemorySharedMemory(MemoryOptions.defaults().withClock(clock)),
                "get",
                memoryReads);
        IncidentTimeline timeline =
                counting(IncidentTimeline.class, new InMemoryIncidentTimeline(), "sightings", sightingReads);
        IncidentService incidents = new IncidentService(
                memory,
                JSON,
                clock,
                new IncidentService.Settings(Duration.ofHours(1), 1000, Duration.ofMinutes(30), Duration.ofSeconds(10)),
                SecretRedactor.standard(),
                timeline);
        // A repeat starts no run: the intake never reaches the run service.
        AlertmanagerIntake intake = new AlertmanagerIntake(incidents, null, JSON, "triage");
        var opened = incidents.open(
                new IncidentService.OpenRequest(
                        "alertmanager:reads-1",
                        "HostHighCpu on web-1:9100",
                        "critical",
                        "alertmanager",
                        Map.of(),
                        null,
                        "2026-12-08T00:59:00Z firing"),
                Writer.apiClient("alertmanager"),
                null);
        assertThat(opened.created()).isTrue();
        memoryReads.set(0);
        sightingReads.set(0);

        JsonNode payload = delivery("2026-12-08T01:00:00Z");
        AlertmanagerIntake.Charge charge = intake.charge(payload);
        var out = intake.accept(payload, Actor.platform("alertmanager"), charge);

        assertThat(charge.newIncidents()).isZero();
        assertThat(charge.repeats()).isEqualTo(1);
        assertThat(out.get("alerts").get(0).get("action").asString()).isEqualTo("seen-again");
        assertThat(out.get("alerts").get(0).get("occurrences").asInt()).isEqualTo(2);
        // The charge reads pointer and record (the incident) once, and nothing reads them again. It was
        // 5: the intake read pointer and record again, and the sighting's timeline entry the record.
        assertThat(memoryReads).hasValue(2);
        // The lookup's count, and the count after this sighting. It was 3.
        assertThat(sightingReads).hasValue(2);
    }
}
