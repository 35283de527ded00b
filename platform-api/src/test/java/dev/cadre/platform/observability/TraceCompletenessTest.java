package dev.cadre.platform.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * A run's trace says whether it is complete: spans are stored a moment after they end, so a
 * client reading the trace right after the run ended may see part of the tree — and must be told.
 */
@PlatformTest
class TraceCompletenessTest {

    @LocalServerPort
    int port;

    @Test
    void aTraceIsComplete_onlyOnceTheRunEndedAndItsRootSpanIsStored_andThenHoldsEverySpan() {
        Api api = new Api(port);
        String runId = api.submitRun("echoer", "say hello").get("id").asString();
        JsonNode ended = api.awaitRunEnd(runId);
        assertThat(ended.get("status").asString()).isEqualTo("completed");

        // Every answer read while the spans arrive: a complete one already holds the whole tree.
        JsonNode trace = Await.until(
                "the trace of " + runId + " to say it is complete",
                () -> {
                    JsonNode t = api.get("/api/v1/runs/" + runId + "/trace", Api.ADMIN_KEY)
                            .json();
                    assertThat(t.has("complete")).as(t.toString()).isTrue();
                    if (!t.get("complete").asBoolean()) {
                        assertThat(t.get("roots").size() == 1
                                        && t.get("roots")
                                                .get(0)
                                                .get("name")
                                                .asString()
                                                .equals("invoke_agent echoer"))
                                .as("an incomplete trace lacks its root span: " + t)
                                .isFalse();
                    }
                    return t;
                },
                t -> t.get("complete").asBoolean());
        assertThat(trace.get("roots")).hasSize(1);
        JsonNode root = trace.get("roots").get(0);
        assertThat(root.get("name").asString()).isEqualTo("invoke_agent echoer");
        assertThat(nodes(root)).isEqualTo(trace.get("spanCount").asInt());
        assertThat(api.get("/api/v1/runs/" + runId + "/trace", Api.ADMIN_KEY)
                        .json()
                        .get("spanCount")
                        .asInt())
                .isEqualTo(trace.get("spanCount").asInt());
    }

    @Test
    void aRunThatHasNotEnded_hasAnIncompleteTrace() {
        Api api = new Api(port);
        String runId =
                api.submitRun("fixer", "restart the web service").get("id").asString();
        api.pendingApprovalOf(runId);
        JsonNode trace =
                api.get("/api/v1/runs/" + runId + "/trace", Api.ADMIN_KEY).json();
        assertThat(trace.get("complete").asBoolean()).as(trace.toString()).isFalse();
        api.post("/api/v1/runs/" + runId + "/cancel", Api.ADMIN_KEY, null);
    }

    private static int nodes(JsonNode n) {
        int count = 1;
        for (JsonNode c : n.get("children")) {
            count += nodes(c);
        }
        return count;
    }
}
