package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * Keyset paging of GET /api/v1/runs (issue #18), run on H2 ({@link KeysetPagingTest}) and on
 * PostgreSQL ({@link KeysetPagingPostgresTest}): every run exactly once, newest first, while new
 * runs keep arriving, with ties on created_at, and no offset.
 */
abstract class KeysetPagingContract {

    @LocalServerPort
    int port;

    @Autowired
    RunStore store;

    Api api;
    String agent;

    @BeforeEach
    void setUp() {
        api = new Api(port);
        // A name no agent has: only this test's rows match the filter (and no executor takes them).
        agent = "paging-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private String insert(Instant createdAt, RunStatus status, String input) {
        String id = UUID.randomUUID().toString();
        store.insert(new RunRecord(
                id,
                agent,
                input,
                null,
                status,
                null,
                null,
                null,
                null,
                null,
                null,
                0,
                0,
                0,
                "paging-test",
                null,
                null,
                null,
                null,
                0,
                createdAt,
                null,
                null,
                createdAt));
        return id;
    }

    @Test
    void pagesReturnEveryRunOnce_newestFirst_whileNewRunsArrive() {
        Instant base = Instant.now().minus(2, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MILLIS);
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            // Every third run shares its created_at with the one before: the id breaks the tie.
            Instant at = base.plusSeconds(i - (i % 3 == 2 ? 1 : 0));
            expected.add(insert(at, i % 2 == 0 ? RunStatus.COMPLETED : RunStatus.FAILED, "paging disk " + i));
        }
        List<String> seen = new ArrayList<>();
        List<Instant> order = new ArrayList<>();
        String cursor = "";
        int pages = 0;
        int arrived = 0;
        while (true) {
            JsonNode page = api.get("/api/v1/runs?agent=" + agent + "&limit=7&cursor=" + cursor, Api.ADMIN_KEY)
                    .json();
            pages++;
            page.get("items").forEach(r -> {
                seen.add(r.get("id").asString());
                order.add(Instant.parse(r.get("createdAt").asString()));
            });
            assertThat(page.has("total")).as("no count per request").isFalse();
            // New runs arrive between pages, newer than everything paged so far, and old ones complete.
            insert(Instant.now(), RunStatus.SUBMITTED, "arrived " + arrived++);
            if (!page.get("hasMore").asBoolean()) {
                assertThat(page.get("nextCursor").isNull()).isTrue();
                break;
            }
            cursor = page.get("nextCursor").asString();
            assertThat(pages).isLessThan(50);
        }
        assertThat(seen).doesNotHaveDuplicates();
        assertThat(new HashSet<>(seen)).isEqualTo(expected);
        assertThat(pages).isEqualTo(9); // 60 runs, 7 a page
        assertThat(order).isSortedAccordingTo((a, b) -> b.compareTo(a));
    }

    @Test
    void filtersAndSearchPageByCursor_too() {
        Instant base = Instant.now().minus(3, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MILLIS);
        Set<String> disk = new HashSet<>();
        for (int i = 0; i < 25; i++) {
            String id = insert(
                    base.plusSeconds(i),
                    i % 5 == 0 ? RunStatus.FAILED : RunStatus.COMPLETED,
                    i % 2 == 0 ? "Disk full " + i : "cpu " + i);
            if (i % 2 == 0 && i % 5 != 0) {
                disk.add(id);
            }
        }
        Set<String> seen = new HashSet<>();
        String cursor = "";
        do {
            JsonNode page = api.get(
                            "/api/v1/runs?status=completed&agent=" + agent + "&q=DISK&limit=4&cursor=" + cursor,
                            Api.ADMIN_KEY)
                    .json();
            page.get("items")
                    .forEach(r -> assertThat(seen.add(r.get("id").asString())).isTrue());
            cursor = page.get("nextCursor").isNull()
                    ? null
                    : page.get("nextCursor").asString();
        } while (cursor != null);
        assertThat(seen).isEqualTo(disk);
    }

    @Test
    void theListReadsNoCheckpoint() {
        String id = insert(Instant.now().minusSeconds(5), RunStatus.COMPLETED, "checkpoint check");
        List<RunRecord> page = store.list(
                dev.cadre.platform.tenancy.TeamScope.allTeams("test"),
                new RunStore.Query(null, agent, null, null, null, 0, 10));
        assertThat(page).extracting(RunRecord::id).containsExactly(id);
        assertThat(page.getFirst().checkpoint()).isNull();
    }

    @Test
    void offsetAndForeignCursors_areRefused_namingTheParameter() {
        var offset = api.get("/api/v1/runs?offset=50", Api.ADMIN_KEY);
        assertThat(offset.status()).isEqualTo(400);
        assertThat(offset.json().get("parameter").asString()).isEqualTo("offset");
        assertThat(offset.body()).contains("cursor");
        assertThat(api.get("/api/v1/runs?offset=0", Api.ADMIN_KEY).status()).isEqualTo(200);
        for (String bad : List.of("nope", "YzE6MTox", "YzE6OTIyMzM3MjAzNjg1NDc3NTgwNzowOng")) {
            var r = api.get("/api/v1/runs?cursor=" + bad, Api.ADMIN_KEY);
            assertThat(r.status()).as(bad).isEqualTo(400);
            assertThat(r.json().get("parameter").asString()).isEqualTo("cursor");
        }
        var approvals = api.get("/api/v1/approvals?offset=10", Api.ADMIN_KEY);
        assertThat(approvals.status()).isEqualTo(400);
        assertThat(approvals.json().get("parameter").asString()).isEqualTo("offset");
    }
}
