package dev.cadre.platform.tooloutput;

import static dev.cadre.platform.support.TestTools.bigOutputLine;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * Issue 24 item 2 over REST: a run whose tool returned ~2.5 MB shows its model a result capped at the
 * agent's 4 KiB, its trace names the sizes and the handle, and GET
 * /api/v1/runs/{id}/tool-outputs/{handle} pages through the full, redacted output.
 */
@PlatformTest
class ToolOutputRestTest {

    private static final int LINES = 50_000;

    @LocalServerPort
    int port;

    @Test
    void theFullOutputBehindACappedResult_isPagedOverRest_withTheRunsAuth() {
        Api api = new Api(port);
        String id = api.submitRun("log-reader", "read the log").get("id").asString();
        JsonNode run = api.awaitRunEnd(id);
        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        long original = 0;
        for (int i = 0; i < LINES; i++) {
            original += bigOutputLine(i).length() + 1;
        }

        // The trace's tool node: what the tool returned, what the model read, and the handle.
        JsonNode tool = Await.until(
                "the big_output span of " + id + " to be stored",
                () -> toolNode(
                        api.get("/api/v1/runs/" + id + "/trace", Api.ADMIN_KEY).json()),
                n -> n != null);
        assertThat(tool.get("outputOriginalBytes").asLong()).isEqualTo(original);
        assertThat(tool.get("outputDeliveredBytes").asLong())
                .isLessThanOrEqualTo(4096)
                .isGreaterThan(2048);
        String handle = tool.get("outputHandle").asString();
        assertThat(handle).matches("out_[0-9a-f]{16}");

        String base = "/api/v1/runs/" + id + "/tool-outputs/" + handle;
        JsonNode page = ok(api.get(base + "?offset=100&limit=5", Api.ADMIN_KEY));
        assertThat(page.get("tool").asString()).isEqualTo("big_output");
        assertThat(page.get("originalBytes").asLong()).isEqualTo(original);
        assertThat(page.get("storedLines").asLong()).isEqualTo(LINES);
        assertThat(page.get("truncated").asBoolean()).isFalse();
        assertThat(texts(page))
                .containsExactly(
                        bigOutputLine(100),
                        bigOutputLine(101),
                        bigOutputLine(102),
                        bigOutputLine(103),
                        bigOutputLine(104));
        assertThat(page.get("lines").get(0).get("number").asLong()).isEqualTo(100);
        assertThat(page.get("nextOffset").asLong()).isEqualTo(105);

        JsonNode errors = ok(api.get(base + "?offset=1000&limit=2&grep=error", Api.ADMIN_KEY));
        assertThat(texts(errors)).containsExactly(bigOutputLine(1099), bigOutputLine(1199));
        assertThat(errors.get("nextOffset").asLong()).isEqualTo(1200);

        JsonNode end = ok(api.get(base + "?offset=" + (LINES - 1), Api.ADMIN_KEY));
        assertThat(texts(end)).containsExactly(bigOutputLine(LINES - 1));
        assertThat(end.get("nextOffset").isNull()).isTrue();

        // Redacted when kept.
        JsonNode secret = ok(api.get(base + "?grep=connecting", Api.ADMIN_KEY));
        assertThat(texts(secret)).containsExactly("0000007 WARN connecting with [REDACTED]");

        // Bad paging is named; another run, an unknown run and no key are refused.
        assertThat(api.get(base + "?limit=0", Api.ADMIN_KEY).json().get("field").asString())
                .isEqualTo("limit");
        assertThat(api.get(base + "?offset=-1", Api.ADMIN_KEY).status()).isEqualTo(400);
        String other = api.submitRun("log-reader", "again").get("id").asString();
        api.awaitRunEnd(other);
        assertThat(api.get("/api/v1/runs/" + other + "/tool-outputs/" + handle, Api.ADMIN_KEY)
                        .status())
                .isEqualTo(404);
        assertThat(api.get("/api/v1/runs/run_missing/tool-outputs/" + handle, Api.ADMIN_KEY)
                        .status())
                .isEqualTo(404);
        assertThat(api.get(base, null).status()).isEqualTo(401);
    }

    private static JsonNode ok(Api.Response r) {
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    private static List<String> texts(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.get("lines").forEach(l -> out.add(l.get("text").asString()));
        return out;
    }

    private static JsonNode toolNode(JsonNode trace) {
        List<JsonNode> stack = new ArrayList<>();
        trace.get("roots").forEach(stack::add);
        while (!stack.isEmpty()) {
            JsonNode n = stack.removeLast();
            if ("big_output".equals(n.path("tool").asString(null)) && n.hasNonNull("outputHandle")) {
                return n;
            }
            n.get("children").forEach(stack::add);
        }
        return null;
    }
}
