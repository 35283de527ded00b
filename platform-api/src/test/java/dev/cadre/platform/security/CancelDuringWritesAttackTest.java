package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.TestTools;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

/**
 * Issue 23 finding 1 tried as an attacker would, on the embedded default (an H2 file database, the
 * URL form the packaged jar uses): a large submission cancelled a moment later, again and again, at
 * moments spread over the run's life, so cancels land while its thread writes events and
 * checkpoints. Cancelling used to interrupt that thread inside H2's file write; H2 then closed the
 * database for good (every request 503) while health said UP. The platform must keep answering, and
 * health must say what it sees.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:file:./target/cancel-attack/cadre-${random.uuid};MODE=PostgreSQL;"
                    + "DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;AUTO_SERVER=FALSE",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:cancel-agents/*.yaml",
            "cadre.approvals.separation-of-duties=false",
            "cadre.retention.enabled=false"
        })
@Import(TestTools.class)
class CancelDuringWritesAttackTest {

    /** Bounded: the defect showed within one or two rounds of the reproduction. */
    private static final int ROUNDS = 20;

    @LocalServerPort
    int port;

    @Test
    void cancellingRunsInTheMiddleOfTheirWrites_neverClosesTheDatabase_andHealthTellsTheTruth() throws Exception {
        Api api = new Api(port);
        String input = "Summarise this log. " + "x".repeat(85_000) + " " + UUID.randomUUID();
        for (int round = 0; round < ROUNDS; round++) {
            var submitted =
                    api.post("/api/v1/runs", Api.ADMIN_KEY, Api.json(Map.of("agent", "scribe", "input", input)));
            assertThat(submitted.status())
                    .as("round %d: submission answered %s", round, submitted.body())
                    .isEqualTo(202);
            String runId = submitted.json().get("id").asString();
            // Spread the cancels over the run's life: its first writes, its turns, its last ones.
            Thread.sleep((round * 37L) % 400);
            var cancel = api.post("/api/v1/runs/" + runId + "/cancel", Api.ADMIN_KEY, "{}");
            assertThat(cancel.status())
                    .as("round %d: cancel answered %s", round, cancel.body())
                    .isIn(202, 409);
            var ended = Await.until(
                    "run " + runId + " to end (or the platform to stop answering)",
                    () -> api.get("/api/v1/runs/" + runId, Api.ADMIN_KEY),
                    r -> r.status() != 200
                            || r.json().get("status").asString().matches("completed|failed|canceled|rejected"));
            var list = api.get("/api/v1/runs?limit=5", Api.ADMIN_KEY);
            var readiness = api.get("/actuator/health/readiness", null);
            var liveness = api.get("/actuator/health/liveness", null);
            if (ended.status() != 200 || list.status() != 200) {
                // The platform no longer answers: health must at least say so, so it gets restarted.
                assertThat(readiness.status())
                        .as(
                                "round %d: the API answers %d but readiness says %s",
                                round, list.status(), readiness.body())
                        .isEqualTo(503);
                assertThat(liveness.status())
                        .as("round %d: the API answers %d but liveness says %s", round, list.status(), liveness.body())
                        .isEqualTo(503);
            }
            assertThat(list.status())
                    .as("round %d: after a cancel the platform answered %s", round, list.body())
                    .isEqualTo(200);
            assertThat(ended.status()).isEqualTo(200);
            assertThat(readiness.status()).as(readiness.body()).isEqualTo(200);
            assertThat(liveness.status()).as(liveness.body()).isEqualTo(200);
        }
        // And a run after all those cancels still completes.
        var last = api.submitRun("scribe", "one more, after the cancels");
        assertThat(api.awaitRunEnd(last.get("id").asString()).get("status").asString())
                .isEqualTo("completed");
    }
}
