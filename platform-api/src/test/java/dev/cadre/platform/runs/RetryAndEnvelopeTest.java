package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * Seed 003's FAILED → retry and task envelope over REST and A2A: a retry is a new run of the same
 * agent and input linked to the original; priority is kept with the run; past its deadline a run
 * ends failed with TIMEOUT_ERROR.
 */
@PlatformTest
class RetryAndEnvelopeTest {

    @LocalServerPort
    int port;

    @Test
    void retry_startsANewRunOfTheSameAgentAndInput_linkedToTheOriginal() {
        Api api = new Api(port);
        JsonNode failed = api.awaitRunEnd(
                api.submitRun("doomed", "loop forever").get("id").asString());
        assertThat(failed.get("status").asString()).isEqualTo("failed");
        String original = failed.get("id").asString();

        var retried = api.post("/api/v1/runs/" + original + "/retry", Api.ADMIN_KEY, "{}");
        assertThat(retried.status()).as(retried.body()).isEqualTo(202);
        JsonNode run = retried.json();
        assertThat(run.get("id").asString()).isNotEqualTo(original);
        assertThat(run.get("retryOf").asString()).isEqualTo(original);
        assertThat(run.get("agent").asString()).isEqualTo("doomed");
        assertThat(run.get("input").asString()).isEqualTo("loop forever");
        assertThat(api.awaitRunEnd(run.get("id").asString()).get("retryOf").asString())
                .isEqualTo(original);
        assertThat(failed.get("links").get("retry").asString()).isEqualTo("/api/v1/runs/" + original + "/retry");

        assertThat(api.post("/api/v1/runs/run_missing/retry", Api.ADMIN_KEY, "{}")
                        .status())
                .isEqualTo(404);
    }

    @Test
    void retry_ofARunStillWorking_isAConflict() {
        Api api = new Api(port);
        String slow = api.submitRun("slow", "think").get("id").asString();
        var early = api.post("/api/v1/runs/" + slow + "/retry", Api.ADMIN_KEY, "{}");
        assertThat(early.status()).isEqualTo(409);
        assertThat(early.json().get("type").asString()).endsWith("run-not-finished");
        api.post("/api/v1/runs/" + slow + "/cancel", Api.ADMIN_KEY, "{}");
    }

    @Test
    void aRunPastItsDeadline_endsFailedWithTimeoutError() {
        Api api = new Api(port);
        var r = api.post(
                "/api/v1/runs",
                Api.ADMIN_KEY,
                Api.json(Map.of(
                        "agent",
                        "slow",
                        "input",
                        "think past the deadline",
                        "priority",
                        "high",
                        "deadline",
                        Instant.now().plusSeconds(2).toString())));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        assertThat(r.json().get("priority").asString()).isEqualTo("high");
        assertThat(r.json().get("deadline").isNull()).isFalse();

        JsonNode end = api.awaitRunEnd(r.json().get("id").asString());
        assertThat(end.get("status").asString()).as(end.toString()).isEqualTo("failed");
        assertThat(end.get("error").get("category").asString()).isEqualTo("TIMEOUT_ERROR");
        assertThat(end.get("error").get("code").asString()).isEqualTo("deadline_exceeded");
        // It was executing (its slot was free) when the deadline passed: its watchdog stopped it.
        var events = Sse.parse(api.get("/api/v1/runs/" + end.get("id").asString() + "/events", Api.ADMIN_KEY)
                .body());
        assertThat(events).extracting(Sse.Event::name).startsWith("run_started").endsWith("error");
        assertThat(events.getLast().data().get("error").get("code").asString()).isEqualTo("deadline_exceeded");
    }

    @Test
    void aWorkflowRunPastItsDeadline_endsFailed_andItsLastEventSaysDeadlineExceeded() {
        Api api = new Api(port);
        var r = api.post(
                "/api/v1/runs",
                Api.ADMIN_KEY,
                Api.json(Map.of(
                        "workflow",
                        "wf-late",
                        "input",
                        "take your time",
                        "deadline",
                        Instant.now().plusSeconds(2).toString())));
        assertThat(r.status()).as(r.body()).isEqualTo(202);

        JsonNode end = api.awaitRunEnd(r.json().get("id").asString());
        assertThat(end.get("status").asString()).as(end.toString()).isEqualTo("failed");
        assertThat(end.get("error").get("code").asString()).isEqualTo("deadline_exceeded");
        // The workflow writes its own last event: it must say why, not "cancelled".
        var events = Sse.parse(api.get("/api/v1/runs/" + end.get("id").asString() + "/events", Api.ADMIN_KEY)
                .body());
        assertThat(events).extracting(Sse.Event::name).startsWith("run_started").endsWith("error");
        assertThat(events.getLast().data().get("error").get("category").asString())
                .isEqualTo("TIMEOUT_ERROR");
        assertThat(events.getLast().data().get("error").get("code").asString()).isEqualTo("deadline_exceeded");
    }

    @Test
    void badPriorityOrAPastDeadline_isRefusedNamingTheField() {
        Api api = new Api(port);
        var priority = api.post(
                "/api/v1/runs", Api.ADMIN_KEY, Api.json(Map.of("agent", "echoer", "input", "x", "priority", "asap")));
        assertThat(priority.status()).isEqualTo(400);
        assertThat(priority.json().get("field").asString()).isEqualTo("priority");
        var past = api.post(
                "/api/v1/runs",
                Api.ADMIN_KEY,
                Api.json(Map.of("agent", "echoer", "input", "x", "deadline", "2020-01-01T00:00:00Z")));
        assertThat(past.status()).isEqualTo(400);
        assertThat(past.json().get("field").asString()).isEqualTo("deadline");
    }

    @Test
    void a2a_messageMetadata_carriesPriorityAndDeadline() {
        Api api = new Api(port);
        String deadline = Instant.now()
                .plusSeconds(600)
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .toString();
        var task = api.post(
                "/a2a",
                Api.ADMIN_KEY,
                "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"SendMessage\",\"params\":{\"message\":{\"messageId\":\""
                        + UUID.randomUUID()
                        + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hello\"}],\"metadata\":{\"agent\":\"echoer\","
                        + "\"priority\":\"urgent\",\"deadline\":\"" + deadline
                        + "\"}},\"configuration\":{\"blocking\":true}}}");
        assertThat(task.status()).as(task.body()).isEqualTo(200);
        String id = task.json()
                .get("result")
                .path("task")
                .path("id")
                .asString(task.json().get("result").path("id").asString());
        JsonNode run = api.get("/api/v1/runs/" + id, Api.ADMIN_KEY).json();
        assertThat(run.get("priority").asString()).as(task.body()).isEqualTo("urgent");
        assertThat(Instant.parse(run.get("deadline").asString())).isEqualTo(Instant.parse(deadline));
    }
}
