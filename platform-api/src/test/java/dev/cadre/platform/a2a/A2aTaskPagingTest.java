package dev.cadre.platform.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;

/**
 * ListTasks pages by key, not by offset: every task that existed when paging began comes back
 * exactly once, however many tasks arrive between pages (with offsets the new ones pushed earlier
 * tasks onto the next page a second time), on the plain path and on the filtered one; a token this
 * server did not hand out is a clear invalid-params error.
 */
@PlatformTest
class A2aTaskPagingTest {

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private JsonNode list(String params) {
        JsonNode body = api.post(
                        "/a2a",
                        Api.ADMIN_KEY,
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ListTasks\",\"params\":" + params + "}")
                .json();
        assertThat(body.has("error")).as(body.toString()).isFalse();
        return body.get("result");
    }

    private String send(String contextId) {
        String params = "{\"message\":{\"messageId\":\"" + UUID.randomUUID() + "\",\"role\":\"ROLE_USER\""
                + (contextId == null ? "" : ",\"contextId\":\"" + contextId + "\"")
                + ",\"parts\":[{\"text\":\"check host db-1\"}]},\"configuration\":{\"returnImmediately\":true}}";
        JsonNode body = api.post(
                        "/a2a",
                        Api.ADMIN_KEY,
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":" + params + "}")
                .json();
        return body.get("result").get("task").get("id").asString();
    }

    @Test
    void everyTaskOnce_whileNewTasksArriveBetweenPages() {
        for (int i = 0; i < 4; i++) {
            send(null);
        }
        // The caller's team's runs: other tests sharing this context run in other teams, which it never sees.
        Set<String> before = new HashSet<>(jdbc.sql("SELECT id FROM cadre_run WHERE team = 'default'")
                .query(String.class)
                .list());

        List<String> seen = new ArrayList<>();
        Set<String> arrived = new HashSet<>();
        String token = "";
        int pages = 0;
        do {
            JsonNode page = list("{\"pageSize\":7" + (token.isEmpty() ? "" : ",\"pageToken\":\"" + token + "\"") + "}");
            page.get("tasks").forEach(t -> seen.add(t.get("id").asString()));
            assertThat(page.get("totalSize").asInt()).isGreaterThanOrEqualTo(seen.size());
            token = page.get("nextPageToken").asString();
            // Two new tasks before the next page: newer than the position, so they cannot shift it.
            arrived.add(send(null));
            arrived.add(send(null));
            pages++;
        } while (!token.isEmpty() && pages < 1_000);

        assertThat(seen).doesNotHaveDuplicates();
        assertThat(seen).containsAll(before);
        assertThat(seen).doesNotContainAnyElementsOf(arrived);
    }

    @Test
    void everyTaskOnce_onTheFilteredPath_too() {
        String context = "paging-" + UUID.randomUUID();
        Set<String> mine = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            mine.add(send(context));
        }
        List<String> seen = new ArrayList<>();
        String token = "";
        int pages = 0;
        do {
            JsonNode page = list("{\"contextId\":\"" + context + "\",\"pageSize\":2"
                    + (token.isEmpty() ? "" : ",\"pageToken\":\"" + token + "\"") + "}");
            page.get("tasks").forEach(t -> seen.add(t.get("id").asString()));
            token = page.get("nextPageToken").asString();
            send(context);
            pages++;
        } while (!token.isEmpty() && pages < 100);

        assertThat(seen).doesNotHaveDuplicates();
        assertThat(seen).containsExactlyInAnyOrderElementsOf(mine);
        assertThat(pages).isEqualTo(3);
    }

    @Test
    void aTokenThisServerDidNotHandOut_isInvalidParams_namingPageToken() {
        for (String bad : List.of("abc", "50", "dDE6LTE6eA")) {
            JsonNode body = api.post(
                            "/a2a",
                            Api.ADMIN_KEY,
                            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ListTasks\",\"params\":{\"pageToken\":\"" + bad
                                    + "\"}}")
                    .json();
            JsonNode error = body.get("error");
            assertThat(error.get("code").asInt()).as(bad).isEqualTo(-32602);
            assertThat(error.get("data").get("param").asString()).isEqualTo("pageToken");
            assertThat(error.toString()).contains("not a token this server handed out");
        }
    }
}
