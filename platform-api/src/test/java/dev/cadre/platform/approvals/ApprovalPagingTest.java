package dev.cadre.platform.approvals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/** Keyset paging of GET /api/v1/approvals (issue #18): every request once, newest first, while new ones arrive. */
@PlatformTest
class ApprovalPagingTest {

    @LocalServerPort
    int port;

    @Autowired
    ApprovalStore store;

    private String insert(String runId, Instant createdAt) {
        String id = UUID.randomUUID().toString();
        store.insertAttempt(
                new ApprovalRecord(
                        id,
                        runId,
                        "s",
                        id,
                        "paging-agent",
                        "runbook_execute",
                        "{}",
                        "what",
                        "why",
                        0.5,
                        null,
                        ApprovalRecord.APPROVED,
                        null,
                        null,
                        "someone",
                        createdAt,
                        createdAt,
                        createdAt.plus(1, ChronoUnit.DAYS),
                        0,
                        dev.cadre.agent.approval.ActionHash.of(
                                "runbook_execute",
                                tools.jackson.databind.json.JsonMapper.builder()
                                        .build()
                                        .createObjectNode()),
                        null,
                        null),
                dev.cadre.platform.tenancy.TeamId.DEFAULT);
        return id;
    }

    @Test
    void pagesReturnEveryRequestOnce_whileNewOnesArrive() {
        Api api = new Api(port);
        String runId = "apaging-" + UUID.randomUUID();
        Instant base = Instant.now().minus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MILLIS);
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 23; i++) {
            // Pairs share created_at: the id breaks the tie.
            expected.add(insert(runId, base.plusSeconds(i / 2)));
        }
        List<String> seen = new ArrayList<>();
        String cursor = "";
        int pages = 0;
        while (true) {
            JsonNode page = api.get("/api/v1/approvals?runId=" + runId + "&limit=5&cursor=" + cursor, Api.ADMIN_KEY)
                    .json();
            pages++;
            page.get("items").forEach(a -> seen.add(a.get("id").asString()));
            insert(runId, Instant.now());
            if (!page.get("hasMore").asBoolean()) {
                break;
            }
            cursor = page.get("nextCursor").asString();
        }
        assertThat(seen).doesNotHaveDuplicates();
        assertThat(new HashSet<>(seen)).isEqualTo(expected);
        assertThat(pages).isEqualTo(5);
    }
}
