package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.TestTools;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * Durable runs across a restart on the same PostgreSQL database: a pending approval survives and
 * is decided after the restart; an action approved and started just before the "crash" is never
 * run a second time; no run is left working; an unanswered approval expires with
 * HUMAN_INTERVENTION_TIMEOUT.
 */
class RestartIT {

    private final ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("restart_it");
    private ConfigurableApplicationContext context;

    @AfterEach
    void tearDown() {
        TestTools.HOLD.set(null);
        if (context != null) {
            context.close();
        }
        pg.dropSchema();
    }

    private Api start(String approvalTimeout) {
        context = new SpringApplicationBuilder(CadreApplication.class, TestTools.class)
                // Command-line arguments: they outrank application.yaml, as a deployment's settings would.
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=" + pg.jdbcUrl(),
                        "--spring.datasource.username=" + pg.user(),
                        "--spring.datasource.password=" + pg.password(),
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.agents.locations=classpath:agents/*.yaml,classpath:test-agents/*.yaml",
                        "--cadre.approvals.timeout=" + approvalTimeout,
                        "--cadre.approvals.sweep-interval=PT0.2S",
                        // One admin key submits and decides here (SecurityAttackTest covers the refusal).
                        "--cadre.approvals.separation-of-duties=false");
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        return new Api(port);
    }

    private static String submit(Api api, String input) {
        return api.submitRun("fixer", input).get("id").asString();
    }

    private static JsonNode pendingApproval(Api api, String run) {
        return api.pendingApprovalOf(run);
    }

    private static JsonNode awaitEnd(Api api, String id) {
        return api.awaitRunEnd(id);
    }

    private static long restarts(String run) {
        return TestTools.RESTARTS.stream().filter(r -> r.startsWith(run + " ")).count();
    }

    @Test
    void pendingApprovalsAndInterruptedRuns_surviveARestart_andNoActionRunsTwice() {
        Api first = start("PT30M");
        String waiting = submit(first, "restart survives (pending)");
        String approvalId = pendingApproval(first, waiting).get("id").asString();

        String midAction = submit(first, "restart survives (mid-action)");
        String midApproval = pendingApproval(first, midAction).get("id").asString();
        CountDownLatch hold = new CountDownLatch(1);
        TestTools.HOLD.set(hold);
        assertThat(first.post("/api/v1/approvals/" + midApproval + "/approve", Api.ADMIN_KEY, "{}")
                        .status())
                .isEqualTo(200);
        Await.until("the approved action to start", () -> restarts(midAction), n -> n == 1L);

        // "Crash": the context goes away while one run waits for a human and one is inside its action.
        context.close();
        TestTools.HOLD.set(null);

        Api second = start("PT30M");
        JsonNode stillPending = pendingApproval(second, waiting);
        assertThat(stillPending.get("id").asString())
                .as("the same request, not a new one")
                .isEqualTo(approvalId);
        assertThat(second.post("/api/v1/approvals/" + approvalId + "/approve", Api.ADMIN_KEY, "{}")
                        .status())
                .isEqualTo(200);

        JsonNode waitingEnd = awaitEnd(second, waiting);
        assertThat(waitingEnd.get("status").asString()).isEqualTo("completed");
        assertThat(waitingEnd.get("resumeCount").asInt()).isEqualTo(1);
        assertThat(restarts(waiting)).isEqualTo(1);

        JsonNode midEnd = awaitEnd(second, midAction);
        assertThat(restarts(midAction))
                .as("an action interrupted mid-way is never run again")
                .isEqualTo(1);
        assertThat(midEnd.get("result").asString()).contains("not re-run");

        var unfinished = second.get("/api/v1/runs?status=working", Api.ADMIN_KEY)
                        .json()
                        .get("items")
                        .size()
                + second.get("/api/v1/runs?status=input-required", Api.ADMIN_KEY)
                        .json()
                        .get("items")
                        .size()
                + second.get("/api/v1/runs?status=submitted", Api.ADMIN_KEY)
                        .json()
                        .get("items")
                        .size();
        assertThat(unfinished).isZero();
        hold.countDown();
    }

    @Test
    void aWorkflowInterruptedInItsSecondStep_resumesThere_withoutRedoingTheFirstStepOrItsAction() {
        Api first = start("PT30M");
        String run = first.submitRun("wf-restart", "restart api, then look again")
                .get("id")
                .asString();
        String approval = pendingApproval(first, run).get("id").asString();
        assertThat(first.post("/api/v1/approvals/" + approval + "/approve", Api.ADMIN_KEY, "{}")
                        .status())
                .isEqualTo(200);
        // Step 1 (the approved restart) has finished and step 2 is under way when the "crash" comes.
        // (The run's event stream stays open while the run lives: the scripted model is asked instead.)
        var firstModel = context.getBean(dev.cadre.platform.agents.AgentCatalog.class)
                .scripted()
                .orElseThrow();
        Await.until("the second step to start", () -> firstModel.requestsOf("wf-slow-step"), r -> !r.isEmpty());
        assertThat(restarts(run)).isEqualTo(1);
        context.close();

        Api second = start("PT30M");
        JsonNode end = awaitEnd(second, run);
        assertThat(end.get("status").asString()).as(end.toString()).isEqualTo("completed");
        assertThat(end.get("resumeCount").asInt()).isEqualTo(1);
        assertThat(end.get("result").asString()).startsWith("slow step read: restart api, then look again");
        assertThat(restarts(run))
                .as("the finished step's action is not run again")
                .isEqualTo(1);
        var scripted = context.getBean(dev.cadre.platform.agents.AgentCatalog.class)
                .scripted()
                .orElseThrow();
        assertThat(scripted.requestsOf("fixer"))
                .as("the finished step is replayed, not re-run")
                .isEmpty();
        assertThat(scripted.requestsOf("wf-slow-step")).hasSize(1);
        assertThat(second.get("/api/v1/approvals?runId=" + run, Api.ADMIN_KEY)
                        .json()
                        .get("items"))
                .as("no second approval")
                .hasSize(1);
        var events = Sse.parse(
                second.get("/api/v1/runs/" + run + "/events", Api.ADMIN_KEY).body());
        assertThat(events)
                .filteredOn(e -> e.name().equals("status"))
                .extracting(e -> e.data().get("message").asString())
                .containsSubsequence(
                        "step 2 of 2: wf-slow-step", "step 1 of 2 done: fixer", "step 2 of 2: wf-slow-step");
    }

    @Test
    void unansweredApproval_expiresWithHumanInterventionTimeout() {
        Api api = start("PT1S");
        String run = submit(api, "nobody answers");
        JsonNode end = awaitEnd(api, run);
        assertThat(restarts(run)).isZero();
        var events = Sse.parse(
                api.get("/api/v1/runs/" + run + "/events", Api.ADMIN_KEY).body());
        assertThat(events)
                .filteredOn(e -> e.name().equals("tool_result"))
                .anySatisfy(
                        e -> assertThat(e.data().get("error").get("category").asString())
                                .isEqualTo("HUMAN_INTERVENTION_TIMEOUT"));
        JsonNode approvals =
                api.get("/api/v1/approvals?runId=" + run, Api.ADMIN_KEY).json().get("items");
        assertThat(approvals.get(0).get("status").asString()).isEqualTo("expired");
        assertThat(end.get("status").asString()).isIn("completed", "failed");
    }
}
