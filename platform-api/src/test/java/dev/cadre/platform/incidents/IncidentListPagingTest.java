package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.InMemorySharedMemory;
import dev.cadre.memory.MemoryListener;
import dev.cadre.memory.MemoryOptions;
import dev.cadre.memory.Writer;
import dev.cadre.platform.web.SecretRedactor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The incident list reads a page, not every incident: with 300 incidents, a page of 10 lists no
 * memory keys and reads 11 records (the page and the one that says there is more), filtered by
 * status through the index too; paging through all of them shows each exactly once, newest first.
 */
class IncidentListPagingTest {

    private final AtomicInteger lists = new AtomicInteger();
    private final AtomicInteger gets = new AtomicInteger();
    private final IncidentGrowthTest.SteppedClock clock =
            new IncidentGrowthTest.SteppedClock(Instant.parse("2026-12-01T00:00:00Z"));
    private final InMemorySharedMemory memory =
            new InMemorySharedMemory(MemoryOptions.defaults().withClock(clock).withListener(op -> {
                if (op.namespace().equals(IncidentService.NAMESPACE)) {
                    if (op.op() == MemoryListener.Op.LIST) {
                        lists.incrementAndGet();
                    } else if (op.op() == MemoryListener.Op.GET) {
                        gets.incrementAndGet();
                    }
                }
            }));
    private final IncidentService incidents = new IncidentService(
            memory,
            JsonMapper.builder().build(),
            clock,
            new IncidentService.Settings(Duration.ofHours(1), 3, Duration.ofMinutes(30)),
            SecretRedactor.standard(),
            new InMemoryIncidentTimeline(),
            new InMemoryIncidentIndex());
    private final IncidentController controller = new IncidentController(
            incidents, null, null, null, null, JsonMapper.builder().build());

    private List<String> openIncidents(int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clock.advance(Duration.ofSeconds(1));
            ids.add(incidents
                    .open(
                            new IncidentService.OpenRequest(
                                    "page-" + i,
                                    "disk full " + i,
                                    i % 2 == 0 ? "critical" : "warning",
                                    "alertmanager",
                                    Map.of("instance", "db-" + i),
                                    null),
                            Writer.apiClient("alertmanager"),
                            null)
                    .incident()
                    .id());
        }
        return ids;
    }

    @Test
    void aPageOfTheList_readsAPageOfIncidents_andPagingShowsEachOnceNewestFirst() {
        List<String> ids = openIncidents(300);
        lists.set(0);
        gets.set(0);

        IncidentController.IncidentPage first = controller.list(null, null, null, null, null, null, 10);
        assertThat(first.items())
                .extracting(IncidentController.IncidentSummary::id)
                .containsExactlyElementsOf(ids.reversed().subList(0, 10));
        assertThat(first.nextCursor()).isNotNull();
        assertThat(lists.get()).isZero();
        assertThat(gets.get()).isEqualTo(11);

        List<String> seen = new ArrayList<>();
        String cursor = null;
        do {
            IncidentController.IncidentPage page = controller.list(null, null, null, null, null, cursor, 40);
            page.items().forEach(s -> seen.add(s.id()));
            cursor = page.nextCursor();
        } while (cursor != null);
        assertThat(seen).containsExactlyElementsOf(ids.reversed());

        // Filters go through the index: critical ones only, a page of them.
        gets.set(0);
        IncidentController.IncidentPage critical = controller.list(null, "critical", null, null, null, null, 5);
        assertThat(critical.items())
                .hasSize(5)
                .allSatisfy(s -> assertThat(s.severity()).isEqualTo("critical"));
        assertThat(gets.get()).isEqualTo(6);
    }

    @Test
    void theActiveIncidents_amongManyResolved_areFoundWithoutReadingTheResolvedOnes() {
        List<String> ids = openIncidents(200);
        for (String id : ids.subList(0, 195)) {
            incidents.resolve(id, new Resolution("cleaned up", "rotated the logs"), "ops@example.org");
        }
        lists.set(0);
        gets.set(0);

        IncidentController.IncidentPage active = controller.list("active", null, null, null, null, null, 50);

        assertThat(active.items())
                .extracting(IncidentController.IncidentSummary::id)
                .containsExactlyElementsOf(ids.subList(195, 200).reversed());
        assertThat(active.nextCursor()).isNull();
        assertThat(lists.get()).isZero();
        assertThat(gets.get()).isEqualTo(5);
    }
}
