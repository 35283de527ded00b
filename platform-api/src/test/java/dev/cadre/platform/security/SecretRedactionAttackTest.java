package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Issue 23, finding 4, tried as an attacker with a viewer key would: a model's reasoning ({@code
 * why}) and the calls of its turn ({@code plan}) hold credentials, and an approval showed them in
 * clear wherever it went — the approvals list, the {@code approval_requested} event over REST and
 * SSE, and the A2A input-required status — while {@code arguments} and {@code what} were redacted.
 */
@PlatformTest
class SecretRedactionAttackTest {

    /** What the {@code leaky-approver} test agent's turn holds (test-team.yaml). */
    private static final List<String> SECRETS =
            List.of("WhyS3cretPw", "WhyPass77", "PlanPass-echo-9", "sk-live-PlanToken", "PlanS3cretPw");

    @LocalServerPort
    int port;

    @Test
    void finding4_anApprovalsWhyAndPlan_leaveRedacted_overRestSseAndA2a() throws Exception {
        Api api = new Api(port);
        var key = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", "redaction-viewer-" + UUID.randomUUID(), "role", "viewer")));
        assertThat(key.status()).as(key.body()).isEqualTo(201);
        String viewer = key.json().get("secret").asString();

        String run = api.submitRun("leaky-approver", "restart what is stuck")
                .get("id")
                .asString();
        String approval = api.pendingApprovalOf(run).get("id").asString();
        try {
            var list = api.get("/api/v1/approvals?runId=" + run, viewer);
            assertThat(list.status()).isEqualTo(200);
            assertRedacted(list.body());
            // It is the same request, only redacted: the user of the URL and the plan's calls stay.
            assertThat(list.json().at("/items/0/why").asString())
                    .contains("postgres://app:[REDACTED]@db:5432/orders")
                    .contains("[REDACTED]");
            assertThat(list.json().at("/items/0/plan").toString()).contains("restart_service", "echo");
            assertRedacted(api.get("/api/v1/approvals/" + approval, viewer).body());

            // The run's events (one SSE endpoint), read up to the approval_requested event.
            assertRedacted(sseUntil(run, viewer, "approval_requested"));

            // The same approval seen by an A2A client: its input-required status text quotes the why.
            var task = api.post(
                    "/a2a",
                    Api.ADMIN_KEY,
                    "{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"method\":\"SendMessage\",\"params\":{\"message\":{"
                            + "\"messageId\":\"" + UUID.randomUUID() + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":"
                            + "\"restart what is stuck\"}],\"metadata\":{\"agent\":\"leaky-approver\"}},"
                            + "\"configuration\":{\"blocking\":true}}}");
            assertThat(task.status()).as(task.body()).isEqualTo(200);
            assertThat(task.body()).contains("INPUT_REQUIRED").contains("why: ");
            assertRedacted(task.body());
            String a2aRun = task.json().get("result").findValue("id").asString();
            api.post("/api/v1/runs/" + a2aRun + "/cancel", Api.ADMIN_KEY, null);
        } finally {
            api.post("/api/v1/runs/" + run + "/cancel", Api.ADMIN_KEY, null);
        }
    }

    /** The SSE stream of a run, read until {@code marker} has come (at most 20 s). */
    private String sseUntil(String run, String key, String marker) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<InputStream> r = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/runs/" + run + "/events"))
                        .header("Authorization", "Bearer " + key)
                        .header("Accept", "text/event-stream")
                        .timeout(Duration.ofSeconds(20))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        StringBuilder seen = new StringBuilder();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                seen.append(line).append('\n');
                // The event's data line follows its name line; read on to the blank line that ends it.
                if (seen.indexOf(marker) >= 0 && line.isEmpty()) {
                    break;
                }
            }
        }
        assertThat(seen.toString()).contains(marker);
        return seen.toString();
    }

    private static void assertRedacted(String body) {
        for (String secret : SECRETS) {
            assertThat(body).as("a response shows %s", secret).doesNotContain(secret);
        }
    }
}
