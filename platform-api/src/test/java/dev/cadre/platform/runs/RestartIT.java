package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.TestTools;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * HUMAN_INTERVENTION_TIMEOUT; a workflow of every shape caught mid-step resumes with its finished
 * steps replayed and its interrupted step continued from its own checkpoint.
 */
class RestartIT {

    private final ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("restart_it");
    private ConfigurableApplicationContext context;

    @AfterEach
    void tearDown() {
        TestTools.HOLD.set(null);
        WorkflowRestartTools.GATE.set(null);
        if (context != null) {
            context.close();
        }
        pg.dropSchema();
    }

    private Api start(String approvalTimeout) {
        context = new SpringApplicationBuilder(CadreApplication.class, TestTools.class, WorkflowRestartTools.class)
                // Command-line arguments: they outrank application.yaml, as a deployment's settings would.
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=" + pg.jdbcUrl(),
                        "--spring.datasource.username=" + pg.user(),
                        "--spring.datasource.password=" + pg.password(),
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.agents.locations=classpath:agents/*.yaml,classpath:test-agents/*.yaml,"
                                + "classpath:restart-agents/*.yaml",
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
        assertThat(first.approve(midApproval, Api.ADMIN_KEY).status()).isEqualTo(200);
        Await.until("the approved action to start", () -> restarts(midAction), n -> n == 1L);

        // "Crash": the context goes away while one run waits for a human and one is inside its action.
        context.close();
        TestTools.HOLD.set(null);

        Api second = start("PT30M");
        JsonNode stillPending = pendingApproval(second, waiting);
        assertThat(stillPending.get("id").asString())
                .as("the same request, not a new one")
                .isEqualTo(approvalId);
        assertThat(second.approve(approvalId, Api.ADMIN_KEY).status()).isEqualTo(200);

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
        assertThat(first.approve(approval, Api.ADMIN_KEY).status()).isEqualTo(200);
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

    /**
     * One workflow of every shape, each caught by the "crash" with its earlier (or sibling) steps
     * finished and one step mid-way: that step has recorded its side effect and waits in
     * wait_for_release, its last checkpoint holding the call. All six share one restart.
     */
    private record Shape(
            String workflow,
            String input,
            int finishedBefore,
            String interrupted,
            Map<String, Integer> callsBefore,
            Map<String, Integer> callsAfter,
            List<String> effects) {}

    private static final List<Shape> SHAPES = List.of(
            new Shape(
                    "rs-sequence",
                    "seq mission",
                    1,
                    "rs-b#1",
                    Map.of("rs-a#1", 2, "rs-b#1", 2),
                    Map.of("rs-b#1", 1, "rs-c#1", 1),
                    List.of("rs-a#1 a", "rs-b#1 b")),
            new Shape(
                    "rs-review",
                    "review the release",
                    1,
                    "rs-m2#1",
                    Map.of("rs-m1#1", 2, "rs-m2#1", 2),
                    Map.of("rs-m2#1", 1),
                    List.of("rs-m1#1 m1", "rs-m2#1 m2")),
            new Shape(
                    "rs-sweep",
                    "web\nslow-db",
                    1,
                    "rs-scan#2",
                    Map.of("rs-scan#1", 2, "rs-scan#2", 2),
                    Map.of("rs-scan#2", 1),
                    List.of("rs-scan#1 web", "rs-scan#2 slow-db")),
            new Shape(
                    "rs-debate",
                    "rollback or hotfix?",
                    3,
                    "rs-con#2",
                    Map.of("rs-pro#1", 1, "rs-con#1", 1, "rs-pro#2", 1, "rs-con#2", 2),
                    Map.of("rs-con#2", 1, "rs-judge#1", 2),
                    List.of("rs-con#2 con", "rs-judge#1 judge")),
            new Shape(
                    "rs-chunks",
                    "check alpha\nslow beta",
                    1,
                    "rs-chunk#2",
                    Map.of("rs-chunk#1", 2, "rs-chunk#2", 2),
                    Map.of("rs-chunk#2", 1),
                    List.of("rs-chunk#1 check alpha", "rs-chunk#2 slow beta")),
            new Shape(
                    "rs-desk",
                    "customer disputes invoice 42",
                    1,
                    "rs-back#1",
                    Map.of("rs-front#1", 2, "rs-back#1", 2),
                    Map.of("rs-back#1", 1),
                    List.of("rs-front#1 front", "rs-back#1 back")));

    @Test
    void everyWorkflowShapeCaughtMidStep_resumesTheInterruptedStepFromItsCheckpoint_andRedoesNothingFinished() {
        WorkflowRestartTools.EFFECTS.clear();
        WorkflowRestartTools.WAITS.clear();
        WorkflowRestartTools.GATE.set(new CountDownLatch(1));
        Api first = start("PT30M");
        ScriptedModel before = scripted();
        Map<String, Shape> runs = new LinkedHashMap<>();
        for (Shape shape : SHAPES) {
            runs.put(first.submitRun(shape.workflow(), shape.input()).get("id").asString(), shape);
        }
        // And a step caught while it waits for a human: its request survives, its first turn is not redone.
        String waiting = first.submitRun("rs-approval", "restart api after a look")
                .get("id")
                .asString();
        String approval = pendingApproval(first, waiting).get("id").asString();
        runs.forEach((run, shape) -> {
            Await.until(
                    shape.workflow() + "'s step " + shape.interrupted() + " to wait",
                    () -> WorkflowRestartTools.WAITS.contains(run + "/" + shape.interrupted()),
                    Boolean::booleanValue);
            // The run's iterations count the finished steps its checkpoint holds.
            Await.until(
                    shape.workflow() + "'s finished steps to be checkpointed",
                    () -> first.get("/api/v1/runs/" + run, Api.ADMIN_KEY)
                            .json()
                            .get("iterations")
                            .asInt(),
                    n -> n == shape.finishedBefore());
        });
        // "Crash": the interrupted steps stay parked in the dead context (virtual threads, never
        // released), as a killed process leaves nothing running.
        context.close();
        WorkflowRestartTools.GATE.set(null);

        Api second = start("PT30M");
        ScriptedModel after = scripted();
        assertThat(pendingApproval(second, waiting).get("id").asString())
                .as("the same request, not a new one")
                .isEqualTo(approval);
        assertThat(second.approve(approval, Api.ADMIN_KEY).status()).isEqualTo(200);
        JsonNode approved = awaitEnd(second, waiting);
        assertThat(approved.get("status").asString()).as(approved.toString()).isEqualTo("completed");
        assertThat(approved.get("result").asString()).isEqualTo("Outcome: restarted api");
        assertThat(restarts(waiting)).isEqualTo(1);
        assertThat(callsPerStep(before, waiting)).isEqualTo(Map.of("rs-a#1", 2, "fixer#1", 1));
        assertThat(callsPerStep(after, waiting))
                .as("after the restart only the waiting step's second turn is asked for")
                .isEqualTo(Map.of("fixer#1", 1));
        Map<String, String> results = new TreeMap<>();
        runs.forEach((run, shape) -> {
            JsonNode end = awaitEnd(second, run);
            assertThat(end.get("status").asString()).as(end.toString()).isEqualTo("completed");
            assertThat(end.get("resumeCount").asInt()).isEqualTo(1);
            results.put(shape.workflow(), end.get("result").asString().replace(run + "/", "<run>/"));

            assertThat(callsPerStep(before, run))
                    .as(shape.workflow() + ": model calls before the crash, per step")
                    .isEqualTo(shape.callsBefore());
            assertThat(callsPerStep(after, run))
                    .as(shape.workflow() + ": model calls after the restart, per step (finished steps: none;"
                            + " the interrupted one: only its last turn)")
                    .isEqualTo(shape.callsAfter());
            ModelRequest resumed = after.requests().stream()
                    .filter(r -> r.sessionId().equals(run + "/" + shape.interrupted()))
                    .findFirst()
                    .orElseThrow();
            assertThat(resumed.messages())
                    .as(shape.workflow() + ": the interrupted step continued from its checkpoint")
                    .filteredOn(m -> m instanceof AssistantMessage)
                    .hasSize(2);
            assertThat(resumed.messages())
                    .filteredOn(m -> m instanceof ToolResultMessage)
                    .extracting(m -> ((ToolResultMessage) m).content())
                    .as(shape.workflow() + ": its recorded action's result came from the checkpoint")
                    .containsExactly(
                            "effect "
                                    + shape.effects().stream()
                                            .filter(e -> e.startsWith(shape.interrupted() + " "))
                                            .findFirst()
                                            .orElseThrow()
                                            .substring(shape.interrupted().length() + 1),
                            "released");
            assertThat(WorkflowRestartTools.EFFECTS.stream()
                            .filter(e -> e.startsWith(run + "/"))
                            .map(e -> e.substring(run.length() + 1)))
                    .as(shape.workflow() + ": every side effect ran exactly once")
                    .containsExactlyInAnyOrderElementsOf(shape.effects());
            assertThat(WorkflowRestartTools.WAITS.stream().filter(w -> w.startsWith(run + "/")))
                    .as(shape.workflow() + ": the call in flight at the crash had no result yet, so it ran again")
                    .containsExactly(run + "/" + shape.interrupted(), run + "/" + shape.interrupted());
            var stepEvents = Sse.parse(second.get("/api/v1/runs/" + run + "/events?scope=all", Api.ADMIN_KEY)
                    .body());
            assertThat(stepEvents)
                    .filteredOn(e -> e.name().equals("status")
                            && e.data().path("sessionId").asString().equals(run + "/" + shape.interrupted()))
                    .extracting(e -> e.data().get("message").asString())
                    .as(shape.workflow() + ": the interrupted step's own stream says it resumed")
                    .contains("resumed");
        });
        assertThat(results)
                .containsEntry(
                        "rs-sequence",
                        "c read: seq mission\n\nBaton from rs-b (status ok):\nDecisions:\n- b did effect b, then released")
                .containsEntry("rs-debate", "rollback")
                .containsEntry(
                        "rs-chunks",
                        "subagents 2/2 ok\n- [ok] <run>/rs-chunk#1: checked [check alpha]"
                                + "\n- [ok] <run>/rs-chunk#2: checked [slow beta], then released");
        assertThat(results.get("rs-review")).contains("m2 saw effect m2, then released", "m1 saw effect m1");
        assertThat(results.get("rs-review").indexOf("m2 saw"))
                .isLessThan(results.get("rs-review").indexOf("m1 saw"));
        assertThat(results.get("rs-sweep")).contains("scanned, then released", "fine");
        assertThat(results.get("rs-sweep").indexOf("slow-db"))
                .isLessThan(results.get("rs-sweep").indexOf("web"));
        assertThat(results.get("rs-desk"))
                .startsWith("refunded after effect back, then released; read: customer disputes invoice 42")
                .contains("invoice 42 disputed");
    }

    private ScriptedModel scripted() {
        return context.getBean(AgentCatalog.class).scripted().orElseThrow();
    }

    /** The model calls of one run per step session ({@code agent#n}). */
    private static Map<String, Integer> callsPerStep(ScriptedModel model, String run) {
        Map<String, Integer> out = new TreeMap<>();
        for (ModelRequest r : model.requests()) {
            if (r.runId().equals(run)) {
                out.merge(r.sessionId().substring(run.length() + 1), 1, Integer::sum);
            }
        }
        return out;
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
