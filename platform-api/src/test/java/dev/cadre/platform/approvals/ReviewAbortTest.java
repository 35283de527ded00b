package dev.cadre.platform.approvals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/** A result review's third answer (seed 003 level 2): abort stops the whole run, which ends rejected. */
@PlatformTest
class ReviewAbortTest {

    @LocalServerPort
    int port;

    @Test
    void abortingAResultReview_endsTheRunRejected_andTheParentNeverReadsTheResult() {
        Api api = new Api(port);
        String run = api.submitRun("review-parent", "sales question").get("id").asString();
        JsonNode review = api.pendingApprovalOf(run);
        assertThat(review.get("tool").asString()).isEqualTo("review-analyst");
        assertThat(review.get("what").asString()).contains("review the result of worker review-analyst");

        var aborted = api.post(
                "/api/v1/approvals/" + review.get("id").asString() + "/abort",
                Api.ADMIN_KEY,
                "{\"comment\":\"wrong data source\"}");
        assertThat(aborted.status()).as(aborted.body()).isEqualTo(200);
        assertThat(aborted.json().get("status").asString()).isEqualTo("aborted");

        JsonNode end = api.awaitRunEnd(run);
        assertThat(end.get("status").asString()).as(end.toString()).isEqualTo("rejected");
        assertThat(end.get("error").get("code").asString()).isEqualTo("run_aborted");
        assertThat(end.get("error").get("message").asString()).contains("wrong data source");
        assertThat(end.get("result").isNull()).isTrue();
        assertThat(api.get("/api/v1/approvals?status=aborted&runId=" + run, Api.ADMIN_KEY)
                        .json()
                        .get("items"))
                .hasSize(1);
    }
}
