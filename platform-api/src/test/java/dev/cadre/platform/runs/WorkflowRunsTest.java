package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * Every workflow shape declared in YAML (test-agents/workflows-test.yaml), started over REST like an
 * agent, its steps sessions of the run: the record, the event stream and the trace say so.
 */
@PlatformTest
class WorkflowRunsTest {

    @LocalServerPort
    int port;

    @org.springframework.beans.factory.annotation.Autowired
    io.micrometer.core.instrument.MeterRegistry registry;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    private JsonNode run(String workflow, String input) {
        return api.awaitRunEnd(api.submitRun(workflow, input).get("id").asString());
    }

    private static List<String> steps(JsonNode run, String field) {
        List<String> out = new ArrayList<>();
        run.get("subagents").forEach(s -> out.add(s.get(field).asString()));
        return out;
    }

    /**
     * A step outcome says what its run did, whatever the workflow's shape: one step of each shape calls
     * `echo` once (after a 30 ms scripted model turn) before it answers, the others only answer.
     */
    @Test
    void everyShape_reportsEachStepsIterationsToolsAndDuration_asTheStepRanThem() {
        Set<String> callEcho = Set.of("wf-triage", "wf-scanner", "wf-perf", "wf-judge", "wf-chunk", "wf-billing");
        Map<String, String> inputs = new LinkedHashMap<>();
        inputs.put("wf-incident", "api is slow");
        inputs.put("wf-sweep", "host web\nhost db");
        inputs.put("wf-review", "release 7");
        inputs.put("wf-decide", "rollback or hotfix?");
        inputs.put("wf-chunks", "alpha one\nbravo two");
        inputs.put("wf-desk", "invoice 42 is wrong");
        inputs.forEach((workflow, input) -> {
            JsonNode run = run(workflow, input);
            assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
            List<String> runTools = new ArrayList<>();
            boolean someStepCalledEcho = false;
            for (JsonNode step : run.get("subagents")) {
                String worker = step.get("worker").asString();
                boolean echo = callEcho.contains(worker);
                someStepCalledEcho |= echo;
                assertThat(step.get("iterations").asInt())
                        .as(workflow + " " + step)
                        .isEqualTo(echo ? 2 : 1);
                List<String> tools = new ArrayList<>();
                step.get("toolsCalled").forEach(t -> tools.add(t.asString()));
                assertThat(tools).as(workflow + " " + step).isEqualTo(echo ? List.of("echo") : List.of());
                runTools.addAll(tools);
                // The scripted turn before the call waits 30 ms: a step that made it cannot have taken less.
                assertThat(step.get("durationMs").asLong())
                        .as(workflow + " " + step)
                        .isGreaterThanOrEqualTo(echo ? 30 : 0);
                assertThat(step.get("usage").get("inputTokens").asLong())
                        .as(workflow + " " + step)
                        .isPositive();
            }
            assertThat(someStepCalledEcho).as(workflow).isTrue();
            List<String> recorded = new ArrayList<>();
            run.get("toolsCalled").forEach(t -> recorded.add(t.asString()));
            assertThat(recorded)
                    .as(workflow + ": the run's tools are its steps' tools in step order")
                    .isEqualTo(runTools);
        });
    }

    @Test
    void sequence_handsTheBatonWithStatusAndFindings_toTheNextStep() {
        JsonNode run = run("wf-incident", "api is slow");

        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(run.get("agent").asString()).isEqualTo("wf-incident");
        String id = run.get("id").asString();
        assertThat(steps(run, "sessionId")).containsExactly(id + "/wf-triage#1", id + "/wf-fixer#1");
        assertThat(run.get("result").asString())
                .startsWith("fix planned after: api is slow\n\nBaton from wf-triage (status ok):\n")
                .contains("Decisions:\n- db is the suspect", "Next focus: slow queries")
                .contains("Findings, most severe first:\n2 findings\ndb:\n- [HIGH]");
        assertThat(run.get("result").asString().indexOf("[HIGH]"))
                .isLessThan(run.get("result").asString().indexOf("[LOW]"));
    }

    @Test
    void parallel_fansOutOverTheInputLines_andSortsTheMergedFindingsBySeverity() {
        JsonNode run = run("wf-sweep", "host web\nhost db\nhost cache");

        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(steps(run, "worker")).containsExactly("wf-scanner", "wf-scanner", "wf-scanner");
        String result = run.get("result").asString();
        assertThat(result).startsWith("3 findings\ndb:\n- [CRITICAL]");
        assertThat(result.indexOf("[CRITICAL]")).isLessThan(result.indexOf("[LOW]"));
    }

    @Test
    void parallel_fansOutOverAListInSharedMemory() {
        var put = api.send(
                "PUT",
                "/api/v1/memory/wf-test/hosts",
                Api.ADMIN_KEY,
                "[\"host mail\", \"host db\"]",
                Map.of("Content-Type", "application/json", "If-None-Match", "*"));
        assertThat(put.status()).as(put.body()).isIn(200, 201);

        JsonNode run = run("wf-sweep-memory", "sweep the listed hosts");

        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(steps(run, "summary")).hasSize(2);
        assertThat(run.get("result").asString())
                .startsWith("2 findings\ndb:\n- [CRITICAL]")
                .contains("host mail");
    }

    @Test
    void mapReduce_runsEveryAgentOnTheInput_mostSevereFirst() {
        JsonNode run = run("wf-review", "release 7");

        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(steps(run, "worker")).containsExactly("wf-sec", "wf-perf");
        assertThat(run.get("result").asString())
                .isEqualTo("2 findings\ndb:\n- [CRITICAL] latency: missing index\napi:\n- [MEDIUM] auth: token never"
                        + " expires");
    }

    @Test
    void debate_withoutConsensus_endsWithTheJudgesVerdict() {
        JsonNode run = run("wf-decide", "rollback or hotfix?");

        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(run.get("result").asString()).isEqualTo("hotfix");
        String id = run.get("id").asString();
        assertThat(steps(run, "sessionId"))
                .containsExactly(
                        id + "/wf-sre#1", id + "/wf-dev#1", id + "/wf-sre#2", id + "/wf-dev#2", id + "/wf-judge#1");
    }

    @Test
    void split_cutsTheMissionIntoBoundedChunks_andAggregatesInOrder() {
        JsonNode run = run("wf-chunks", "alpha one\nbravo two\ncharlie three\ndelta four");

        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(steps(run, "summary"))
                .containsExactly("checked [alpha one\nbravo two]", "checked [charlie three]", "checked [delta four]");
        assertThat(run.get("result").asString()).startsWith("subagents 3/3 ok");
    }

    @Test
    void handoff_movesControlWithTheBatonSummary_andPingPongIsStopped() {
        JsonNode desk = run("wf-desk", "my invoice 42 is wrong");
        assertThat(desk.get("status").asString()).as(desk.toString()).isEqualTo("completed");
        assertThat(steps(desk, "worker")).containsExactly("wf-frontdesk", "wf-billing");
        assertThat(desk.get("result").asString())
                .startsWith("refund issued after reading: my invoice 42 is wrong\n\nHandoff from wf-frontdesk:")
                .contains("customer disputes invoice 42", "Next focus: refund");

        JsonNode pingPong = run("wf-pingpong", "whose is it?");
        assertThat(pingPong.get("status").asString()).isEqualTo("failed");
        assertThat(pingPong.get("error").get("code").asString()).isEqualTo("handoff_limit");
        assertThat(steps(pingPong, "worker")).containsExactly("wf-ping", "wf-pong", "wf-ping", "wf-pong");
    }

    @Test
    void workflowField_startsAWorkflow_andNamesOnlyWorkflows() {
        var accepted = api.post(
                "/api/v1/runs", Api.ADMIN_KEY, Api.json(Map.of("workflow", "wf-review", "input", "release 8")));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        assertThat(accepted.json().get("agent").asString()).isEqualTo("wf-review");
        api.awaitRunEnd(accepted.json().get("id").asString());

        var notAWorkflow =
                api.post("/api/v1/runs", Api.ADMIN_KEY, Api.json(Map.of("workflow", "wf-sec", "input", "release 8")));
        assertThat(notAWorkflow.status()).isEqualTo(400);
        assertThat(notAWorkflow.json().get("field").asString()).isEqualTo("workflow");
    }

    @Test
    void stepsAreSessionsOfTheRun_onTheEventStream_withProgress() {
        JsonNode run = run("wf-incident", "events please");
        String id = run.get("id").asString();

        var main = Sse.parse(
                api.get("/api/v1/runs/" + id + "/events", Api.ADMIN_KEY).body());
        assertThat(main).extracting(Sse.Event::name).first().isEqualTo("run_started");
        assertThat(main).extracting(Sse.Event::name).last().isEqualTo("done");
        assertThat(main)
                .filteredOn(e -> e.name().equals("status"))
                .extracting(e -> e.data().get("message").asString())
                .containsExactly(
                        "step 1 of 2: wf-triage",
                        "step 1 of 2 done: wf-triage",
                        "step 2 of 2: wf-fixer",
                        "step 2 of 2 done: wf-fixer");
        assertThat(main)
                .filteredOn(e -> e.name().equals("status"))
                .extracting(e -> e.data().get("progress").get("fraction").asDouble())
                .containsExactly(0.0, 0.5, 0.5, 1.0);

        var all = Sse.parse(api.get("/api/v1/runs/" + id + "/events?scope=all", Api.ADMIN_KEY)
                .body());
        assertThat(all)
                .filteredOn(e -> e.data().get("sessionId").asString().equals(id + "/wf-fixer#1"))
                .extracting(Sse.Event::name)
                .contains("run_started", "done");
        assertThat(all)
                .filteredOn(e -> !e.data().get("sessionId").asString().equals(id))
                .allSatisfy(e ->
                        assertThat(e.data().get("parentSessionId").asString()).isEqualTo(id));
    }

    @Test
    void trace_isOneInvokeWorkflowSpan_withTheStepsInvokeAgentSpansAsChildren() {
        JsonNode run = run("wf-review", "trace please");
        String id = run.get("id").asString();

        JsonNode trace = api.awaitTrace(id);

        assertThat(trace.get("roots")).hasSize(1);
        JsonNode root = trace.get("roots").get(0);
        assertThat(root.get("name").asString()).isEqualTo("invoke_workflow wf-review");
        assertThat(root.get("kind").asString()).isEqualTo("workflow");
        List<String> children = new ArrayList<>();
        root.get("children").forEach(c -> children.add(c.get("name").asString()));
        assertThat(children).containsExactlyInAnyOrder("invoke_agent wf-sec", "invoke_agent wf-perf");
        // wf-sec: its invoke_agent span and one model call; wf-perf: invoke_agent, two model calls and
        // its echo call; nothing else in the run's trace
        assertThat(trace.get("spanCount").asInt()).isEqualTo(7);
        root.get("children")
                .forEach(c -> assertThat(c.get("sessionId").asString()).startsWith(id + "/"));
    }

    @Test
    void everyStep_isCountedPerWorkflowAgentAndOutcome_andTheRunPerWorkflow() {
        double before = steps("wf-review", "wf-sec", "ok");
        double perfBefore = steps("wf-review", "wf-perf", "ok");
        double runsBefore = registry.counter("cadre.runs", "agent", "wf-review", "status", "completed")
                .count();

        run("wf-review", "count me");
        // The run is counted as it ends, just after its status is stored: wait for that count.
        Await.until(
                "the wf-review run to be counted",
                () -> registry.counter("cadre.runs", "agent", "wf-review", "status", "completed")
                        .count(),
                n -> n > runsBefore);

        assertThat(steps("wf-review", "wf-sec", "ok") - before).isEqualTo(1.0);
        assertThat(steps("wf-review", "wf-perf", "ok") - perfBefore).isEqualTo(1.0);
        assertThat(registry.counter("cadre.runs", "agent", "wf-review", "status", "completed")
                                .count()
                        - runsBefore)
                .isEqualTo(1.0);
    }

    private double steps(String workflow, String agent, String outcome) {
        var c = registry.find("cadre.workflow.steps")
                .tags("workflow", workflow, "agent", agent, "outcome", outcome)
                .counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void internal_agentsAndWorkflows_cannotBeStarted_butAreListedForAdmins() {
        var agent = api.post("/api/v1/runs", Api.ADMIN_KEY, Api.json(Map.of("agent", "wf-hidden", "input", "x")));
        assertThat(agent.status()).isEqualTo(404);
        var workflow = api.post("/api/v1/runs", Api.ADMIN_KEY, Api.json(Map.of("agent", "wf-internal", "input", "x")));
        assertThat(workflow.status()).isEqualTo(404);
    }
}
