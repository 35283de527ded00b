package dev.cadre.agent.workflow;

import static dev.cadre.agent.testing.Fixtures.agent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.AgentTree;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.approval.ApprovalKind;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class WorkflowTest {

    private static final String SCRIPT = """
            {"agents": {
              "triage": {"turns": [{"text": "{\\"baton\\": {\\"decisions\\": [\\"db is the suspect\\"], \\"reasons\\": [\\"p99 comes from db\\"], \\"constraints\\": [\\"no restart before 18:00\\"], \\"next_focus\\": \\"slow queries\\"}}"}]},
              "dba": {"turns": [{"text": "dba read: {{input}}"}]},
              "security": {"turns": [{"text": "{\\"findings\\": [{\\"id\\": \\"s1\\", \\"severity\\": \\"high\\", \\"category\\": \\"auth\\", \\"target\\": \\"api\\", \\"description\\": \\"Token  never expires\\", \\"suggestion\\": \\"set ttl\\", \\"confidence\\": 0.9}, {\\"id\\": \\"s2\\", \\"severity\\": \\"low\\", \\"category\\": \\"tls\\", \\"target\\": \\"db\\", \\"description\\": \\"old cipher\\", \\"confidence\\": 0.6}]}"}]},
              "performance": {"turns": [{"text": "[{\\"id\\": \\"p1\\", \\"severity\\": \\"critical\\", \\"category\\": \\"latency\\", \\"target\\": \\"db\\", \\"description\\": \\"missing index\\", \\"confidence\\": 0.8}, {\\"id\\": \\"p2\\", \\"severity\\": \\"high\\", \\"category\\": \\"auth\\", \\"target\\": \\"api\\", \\"description\\": \\"token never expires\\", \\"confidence\\": 0.7}]"}]},
              "sre": {"variants": [{"when": "Round 1 of", "turns": [{"text": "{\\"verdict\\": \\"rollback\\", \\"confidence\\": 0.7}"}]},
                                   {"turns": [{"text": "{\\"verdict\\": \\"rollback\\", \\"confidence\\": 0.8}"}]}]},
              "dev": {"variants": [{"when": "Round 1 of", "turns": [{"text": "{\\"verdict\\": \\"hotfix\\", \\"confidence\\": 0.6}"}]},
                                   {"turns": [{"text": "{\\"verdict\\": \\"Rollback\\", \\"confidence\\": 0.6, \\"argument\\": \\"convinced\\"}"}]}]},
              "stubborn": {"turns": [{"text": "{\\"verdict\\": \\"hotfix\\"}"}]},
              "checker": {"turns": [{"text": "checked [{{input}}]"}]},
              "frontdesk": {"turns": [{"text": "{\\"handoff\\": {\\"to\\": \\"billing\\", \\"summary\\": \\"customer disputes invoice 42\\", \\"next_focus\\": \\"refund\\"}}"}]},
              "billing": {"turns": [{"text": "refund issued after reading: {{input}}"}]},
              "ping": {"turns": [{"text": "{\\"handoff\\": {\\"to\\": \\"pong\\", \\"summary\\": \\"yours\\"}}"}]},
              "pong": {"turns": [{"text": "{\\"handoff\\": {\\"to\\": \\"ping\\", \\"summary\\": \\"no, yours\\"}}"}]},
              "scanner": {"variants": [{"when": "host db", "turns": [{"text": "[{\\"severity\\": \\"critical\\", \\"target\\": \\"db\\", \\"description\\": \\"disk full\\"}]"}]},
                                       {"turns": [{"text": "[{\\"severity\\": \\"low\\", \\"target\\": \\"{{input}}\\", \\"description\\": \\"fine\\"}]"}]}]},
              "judge": {"turns": [{"text": "{\\"verdict\\": \\"Hotfix\\", \\"argument\\": \\"smaller blast radius\\"}"}]}}}
            """;

    private final ScriptedModel model = ScriptedModel.fromJson(SCRIPT);
    private final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();

    private WorkflowRunner workflows(AgentRunner runner, ApprovalDecision tieBreak) {
        ApprovalGate gate = request -> {
            asked.add(request);
            return CompletableFuture.completedFuture(tieBreak);
        };
        return new WorkflowRunner(runner, gate);
    }

    private AgentRunner runner() {
        List<AgentSpec> specs = List.of(
                        "triage",
                        "dba",
                        "security",
                        "performance",
                        "sre",
                        "dev",
                        "stubborn",
                        "checker",
                        "frontdesk",
                        "billing",
                        "ping",
                        "pong",
                        "scanner",
                        "judge")
                .stream()
                .map(n -> agent(n).build())
                .toList();
        AgentTree tree = AgentTree.build(specs, ToolRegistry.empty(), ref -> model);
        return AgentRunner.builder(tree).build();
    }

    @Test
    void sequence_handsEachStepThePreviousStepsBaton() throws Exception {
        try (AgentRunner runner = runner()) {
            Workflow flow = new Workflow.Sequence(
                    "incident",
                    List.of(new Workflow.AgentStep("triage", "triage"), new Workflow.AgentStep("dba", "dba")));

            WorkflowOutcome out = workflows(runner, new ApprovalDecision.Approved(null))
                    .run("wf-seq", flow, "api slow", new Recorder());

            assertThat(out.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(out.text())
                    .startsWith("dba read: api slow\n\nBaton from triage (status ok):\nDecisions:\n- db is the suspect")
                    .contains(
                            "Reasons:\n- p99 comes from db",
                            "Constraints/assumptions:\n- no restart before 18:00",
                            "Next focus: slow queries");
            assertThat(out.steps())
                    .extracting(StepOutcome::sessionId)
                    .containsExactly("wf-seq/triage#1", "wf-seq/dba#1");
            // An answer that is only a baton hands on nothing besides it.
            assertThat(out.text()).doesNotContain("Context:");
        }
    }

    @Test
    void sequence_handsOnTheLatestStructuredAnswerAsContext_pastStepsThatAnswerInProse() throws Exception {
        try (AgentRunner runner = runner()) {
            Workflow flow = new Workflow.Sequence(
                    "review-then-fix",
                    List.of(
                            new Workflow.MapReduce("review", List.of("security", "performance")),
                            new Workflow.AgentStep("dba", "dba"),
                            new Workflow.AgentStep("dba", "dba")));

            WorkflowOutcome out = workflows(runner, new ApprovalDecision.Approved(null))
                    .run("wf-ctx", flow, "release 7", new Recorder());

            assertThat(out.status()).isEqualTo(OutcomeStatus.OK);
            // The review answered in prose (its report): its merged findings go on as JSON, whole, so
            // a step that works on them (findings_aggregate, an incident) reads them without parsing
            // the report; the second dba answered in prose too, so it still gets them.
            String findings = "{\"findings\":[{\"id\":\"p1\",\"severity\":\"critical\",\"category\":\"latency\","
                    + "\"target\":\"db\",\"description\":\"missing index\",\"suggestion\":\"\",\"confidence\":0.8},";
            assertThat(out.text()).startsWith("dba read: release 7\n\nBaton from dba (status ok):");
            assertThat(out.text().split("Context:\n", -1)).hasSize(3);
            assertThat(out.text().substring(out.text().lastIndexOf("Context:\n") + 9))
                    .startsWith(findings);
        }
    }

    @Test
    void structuredAnswer_isTheAnswersDataLessItsBaton_orTheFindingsOfProse() {
        Finding f = new Finding("f1", Severity.HIGH, "cpu", "host", "load 9", "", 0.9);
        assertThat(Batons.structuredAnswer("{\"baton\": {\"decisions\": [\"x\"]}}", List.of()))
                .isNull();
        assertThat(Batons.structuredAnswer(
                                "```json\n{\"summary\": \"opened\", \"id\": \"inc-1\", \"remediation\": \"allowed\"}\n```",
                                List.of())
                        .toString())
                .isEqualTo("{\"id\":\"inc-1\",\"remediation\":\"allowed\"}");
        assertThat(Batons.structuredAnswer("all fine", List.of())).isNull();
        assertThat(Batons.structuredAnswer("load is high", List.of(f)).toString())
                .isEqualTo("{\"findings\":[{\"id\":\"f1\",\"severity\":\"high\",\"category\":\"cpu\","
                        + "\"target\":\"host\",\"description\":\"load 9\",\"suggestion\":\"\",\"confidence\":0.9}]}");
    }

    @Test
    void mapReduce_sortsBySeverity_groupsByTarget_andRemovesDuplicates() throws Exception {
        try (AgentRunner runner = runner()) {
            WorkflowOutcome out = workflows(runner, new ApprovalDecision.Approved(null))
                    .run(
                            "wf-mr",
                            new Workflow.MapReduce("review", List.of("security", "performance")),
                            "review release 7",
                            new Recorder());

            assertThat(out.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(out.findings()).extracting(Finding::id).containsExactly("p1", "s1", "s2");
            assertThat(out.findingsByTarget().keySet()).containsExactly("db", "api");
            assertThat(out.findingsByTarget().get("db")).extracting(Finding::id).containsExactly("p1", "s2");
            assertThat(out.text())
                    .startsWith("3 findings (1 duplicates removed)\ndb:\n- [CRITICAL] latency: missing index");
        }
    }

    @Test
    void debate_endsAtConsensus_whenTheThresholdIsReached() throws Exception {
        try (AgentRunner runner = runner()) {
            WorkflowOutcome out = workflows(runner, new ApprovalDecision.Expired())
                    .run(
                            "wf-debate",
                            new Workflow.Debate("fix", List.of("sre", "dev"), 3, 0.8),
                            "rollback or hotfix?",
                            new Recorder());

            assertThat(out.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(out.text()).isEqualTo("rollback");
            assertThat(out.steps()).hasSize(4);
            assertThat(asked).isEmpty();
            assertThat(model.requestsOf("dev").get(1).messages().get(1).toString())
                    .contains("Positions of round 1:", "sre: rollback (confidence 0.7)");
        }
    }

    @Test
    void debate_withoutConsensus_escalatesToAHumanTieBreaker() throws Exception {
        try (AgentRunner runner = runner()) {
            Workflow.Debate debate = new Workflow.Debate("fix", List.of("sre", "stubborn"), 2, 0.8);

            WorkflowOutcome chosen = workflows(
                            runner,
                            new ApprovalDecision.ApprovedWithEdits(
                                    Fixtures.json("{\"verdict\":\"hotfix\"}"), "ops-lead"))
                    .run("wf-tie", debate, "rollback or hotfix?", new Recorder());
            WorkflowOutcome expired = workflows(runner, new ApprovalDecision.Expired())
                    .run("wf-tie2", debate, "rollback or hotfix?", new Recorder());

            assertThat(chosen.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(chosen.text()).isEqualTo("hotfix");
            assertThat(asked.getFirst().kind()).isEqualTo(ApprovalKind.TIE_BREAK);
            assertThat(asked.getFirst().arguments().path("options").toString()).contains("rollback", "hotfix");
            assertThat(asked.getFirst().what())
                    .contains("Approve to take '", "or edit the verdict to one of: ")
                    .contains("rollback", "hotfix")
                    .doesNotContain("{", "}");
            assertThat(expired.status()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(expired.failure().category()).isEqualTo(FailureCategory.HUMAN_INTERVENTION_TIMEOUT);
        }
    }

    @Test
    void split_cutsALongMissionIntoBoundedChunks_andAggregatesInOrder() throws Exception {
        String mission = "1. check Shanghai\n2. check Beijing\n\n3. check London\n4. check New York\n5. check Dubai";
        assertThat(Missions.split(mission, 20))
                .containsExactly(
                        "1. check Shanghai",
                        "2. check Beijing",
                        "3. check London",
                        "4. check New York",
                        "5. check Dubai");
        assertThat(Missions.split(mission, 40))
                .containsExactly(
                        "1. check Shanghai\n2. check Beijing", "3. check London\n4. check New York", "5. check Dubai");

        try (AgentRunner runner = runner()) {
            WorkflowOutcome out = workflows(runner, new ApprovalDecision.Approved(null))
                    .run("wf-split", new Workflow.Split("weather", "checker", 20, 2), mission, new Recorder());

            assertThat(out.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(out.text())
                    .isEqualTo(String.join(
                            "\n",
                            "subagents 5/5 ok",
                            "- [ok] wf-split/checker#1: checked [1. check Shanghai]",
                            "- [ok] wf-split/checker#2: checked [2. check Beijing]",
                            "- [ok] wf-split/checker#3: checked [3. check London]",
                            "- [ok] wf-split/checker#4: checked [4. check New York]",
                            "- [ok] wf-split/checker#5: checked [5. check Dubai]"));
        }
    }

    @Test
    void handoff_passesControlWithABatonSummary_andStopsPingPong() throws Exception {
        try (AgentRunner runner = runner()) {
            WorkflowRunner workflows = workflows(runner, new ApprovalDecision.Approved(null));

            WorkflowOutcome desk = workflows.run(
                    "wf-h1",
                    new Workflow.Handoff("desk", List.of("frontdesk", "billing"), 3),
                    "my invoice is wrong",
                    new Recorder());
            WorkflowOutcome loop = workflows.run(
                    "wf-h2", new Workflow.Handoff("loop", List.of("ping", "pong"), 3), "whose job?", new Recorder());

            assertThat(desk.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(desk.text())
                    .isEqualTo("refund issued after reading: my invoice is wrong\n\nHandoff from frontdesk:\n"
                            + "Decisions:\n- customer disputes invoice 42\nNext focus: refund");
            assertThat(loop.status()).isEqualTo(OutcomeStatus.FAILED);
            assertThat(loop.failure().code()).isEqualTo("handoff_limit");
            assertThat(loop.failure().category()).isEqualTo(FailureCategory.ORCHESTRATION_ERROR);
            assertThat(loop.steps()).hasSize(4);
        }
    }

    @Test
    void workflows_areBuiltFromConfiguration_andValidatedAgainstTheAgents() throws Exception {
        Workflow flow = Workflows.fromMap(Map.of(
                "type", "sequence",
                "name", "incident",
                "steps",
                        List.of(
                                Map.of("type", "agent", "agent", "triage"),
                                Map.of("type", "map_reduce", "agents", List.of("security", "performance")),
                                Map.of("type", "debate", "participants", List.of("sre", "dev")),
                                Map.of("type", "split", "agent", "checker", "maxChunkChars", 100),
                                Map.of("type", "handoff", "agents", List.of("frontdesk", "billing")))));

        assertThat(flow).isInstanceOf(Workflow.Sequence.class);
        Workflow.Sequence seq = (Workflow.Sequence) flow;
        assertThat(seq.steps().get(2)).isEqualTo(new Workflow.Debate("debate", List.of("sre", "dev"), 3, 0.8));
        try (AgentRunner runner = runner()) {
            WorkflowRunner workflows = workflows(runner, new ApprovalDecision.Approved(null));
            workflows.validate(flow);
            assertThatThrownBy(() -> workflows.validate(new Workflow.MapReduce("x", List.of("ghost"))))
                    .hasMessageContaining("workflow 'x': unknown agent 'ghost'");
        }
        assertThatThrownBy(() -> Workflows.fromMap(Map.of("type", "parallel")))
                .hasMessageContaining("workflow.type: expected one of");
    }

    @Test
    void fanOut_runsTheAgentOncePerInputLine_andSortsTheMergedFindingsBySeverity() throws Exception {
        try (AgentRunner runner = runner()) {
            WorkflowOutcome out = workflows(runner, new ApprovalDecision.Approved(null))
                    .run(
                            "wf-fan",
                            new Workflow.FanOut("hosts", "scanner", "input", 2),
                            "host web\n\nhost db\nhost cache\n",
                            new Recorder());

            assertThat(out.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(out.steps())
                    .extracting(StepOutcome::sessionId)
                    .containsExactly("wf-fan/scanner#1", "wf-fan/scanner#2", "wf-fan/scanner#3");
            assertThat(out.findings())
                    .extracting(f -> f.severity().name() + " " + f.target())
                    .containsExactly("CRITICAL db", "LOW host cache", "LOW host web");
        }
    }

    @Test
    void fanOut_readsItsListFromTheItemsPort_whenNotOverTheInput() throws Exception {
        try (AgentRunner runner = runner()) {
            WorkflowRunner.Hooks hooks = new WorkflowRunner.Hooks(
                    io.opentelemetry.context.Context.root(),
                    WorkflowRunner.StepLog.NONE,
                    (runId, source) -> source.equals("memory:hosts/all") ? List.of("host db", "host mail") : List.of());
            WorkflowOutcome out = workflows(runner, new ApprovalDecision.Approved(null))
                    .run(
                            "wf-fan2",
                            new Workflow.FanOut("hosts", "scanner", "memory:hosts/all", 4),
                            "scan",
                            new Recorder(),
                            hooks);

            assertThat(out.findings())
                    .extracting(f -> f.severity().name() + " " + f.target())
                    .containsExactly("CRITICAL db", "LOW host mail");
        }
    }

    @Test
    void debate_withoutConsensus_asksTheJudge_notAHuman() throws Exception {
        try (AgentRunner runner = runner()) {
            WorkflowOutcome out = workflows(runner, new ApprovalDecision.Approved(null))
                    .run(
                            "wf-judge",
                            new Workflow.Debate("fix", List.of("sre", "stubborn"), 2, 0.8, "judge"),
                            "fix or rollback?",
                            new Recorder());

            assertThat(out.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(out.text()).isEqualTo("hotfix");
            assertThat(asked).isEmpty();
            assertThat(out.steps()).extracting(StepOutcome::sessionId).last().isEqualTo("wf-judge/judge#1");
            assertThat(model.requestsOf("judge").getFirst().messages().getLast().toString())
                    .contains("no consensus in 2 rounds", "sre: rollback", "stubborn: hotfix");
        }
    }

    @Test
    void stepLog_replaysFinishedSteps_withoutRunningTheirAgentsAgain() throws Exception {
        try (AgentRunner runner = runner()) {
            Workflow flow = new Workflow.Sequence(
                    "incident",
                    List.of(new Workflow.AgentStep("triage", "triage"), new Workflow.AgentStep("dba", "dba")));
            StepOutcome remembered = new StepOutcome(
                    "triage",
                    "triage",
                    "wf-replay/triage#1",
                    OutcomeStatus.OK,
                    "{\"decisions\": [\"remembered decision\"]}",
                    null,
                    dev.cadre.agent.run.AgentWork.none(java.time.Duration.ZERO));
            List<String> seen = new CopyOnWriteArrayList<>();
            WorkflowRunner.StepLog log = new WorkflowRunner.StepLog() {
                @Override
                public java.util.Optional<StepOutcome> replay(String sessionId) {
                    return sessionId.equals(remembered.sessionId())
                            ? java.util.Optional.of(remembered)
                            : java.util.Optional.empty();
                }

                @Override
                public void started(String sessionId, String agent, String label) {
                    seen.add("started " + sessionId);
                }

                @Override
                public void finished(StepOutcome step, boolean replayed) {
                    seen.add((replayed ? "replayed " : "finished ") + step.sessionId());
                }
            };

            WorkflowOutcome out = workflows(runner, new ApprovalDecision.Approved(null))
                    .run(
                            "wf-replay",
                            flow,
                            "api slow",
                            new Recorder(),
                            new WorkflowRunner.Hooks(
                                    io.opentelemetry.context.Context.root(), log, WorkflowRunner.Items.NONE));

            assertThat(model.requestsOf("triage")).isEmpty();
            assertThat(out.text()).contains("remembered decision");
            assertThat(seen)
                    .containsExactly(
                            "replayed wf-replay/triage#1", "started wf-replay/dba#1", "finished wf-replay/dba#1");
        }
    }

    @Test
    void stepLog_resumesAnInterruptedStepFromItsCheckpoint_withoutRepeatingItsTurnsOrItsAction() throws Exception {
        List<String> effects = new CopyOnWriteArrayList<>();
        ToolRegistry tools = ToolRegistry.of(dev.cadre.agent.tool.Tools.of(
                "record_effect",
                "Records one effect.",
                "{\"type\":\"object\"}",
                dev.cadre.agent.tool.Risk.SUGGEST,
                (args, ctx) -> {
                    effects.add(ctx.sessionId());
                    return "effect " + effects.size();
                }));
        String script = """
                {"agents": {
                  "planner": {"turns": [{"text": "plan ready"}]},
                  "operator": {"turns": [
                    {"toolCalls": [{"name": "record_effect", "arguments": {}}]},
                    {"text": "operated after {{last.record_effect}}"}]}}}
                """;
        Workflow flow = new Workflow.Sequence(
                "change",
                List.of(new Workflow.AgentStep("planner", "planner"), new Workflow.AgentStep("operator", "operator")));
        // The first life of the run: both steps run; the step log keeps every checkpoint of the operator.
        ScriptedModel before = ScriptedModel.fromJson(script);
        List<dev.cadre.agent.run.Checkpoint> checkpoints = new CopyOnWriteArrayList<>();
        List<StepOutcome> finished = new CopyOnWriteArrayList<>();
        try (AgentRunner runner = AgentRunner.builder(Fixtures.tree(
                        tools,
                        before,
                        agent("planner").build(),
                        agent("operator").tools("record_effect").build()))
                .build()) {
            WorkflowRunner.StepLog log = new WorkflowRunner.StepLog() {
                @Override
                public void checkpointed(dev.cadre.agent.run.Checkpoint checkpoint) {
                    checkpoints.add(checkpoint);
                }

                @Override
                public void finished(StepOutcome step, boolean replayed) {
                    finished.add(step);
                }
            };
            workflows(runner, new ApprovalDecision.Approved(null))
                    .run(
                            "wf-crash",
                            flow,
                            "change the config",
                            new Recorder(),
                            new WorkflowRunner.Hooks(
                                    io.opentelemetry.context.Context.root(), log, WorkflowRunner.Items.NONE));
        }
        assertThat(checkpoints)
                .extracting(c -> c.sessionId() + " " + c.iterations() + " "
                        + c.pendingCalls().size())
                .containsExactly("wf-crash/operator#1 1 1", "wf-crash/operator#1 1 0");
        assertThat(effects).containsExactly("wf-crash/operator#1");

        // The "crash" came after the operator's action was recorded (its second checkpoint): the resumed
        // run replays the planner and continues the operator from there, in a new process (a new model).
        dev.cadre.agent.run.Checkpoint afterAction = checkpoints.getLast();
        StepOutcome planner = finished.getFirst();
        ScriptedModel after = ScriptedModel.fromJson(script);
        List<String> seen = new CopyOnWriteArrayList<>();
        try (AgentRunner runner = AgentRunner.builder(Fixtures.tree(
                        tools,
                        after,
                        agent("planner").build(),
                        agent("operator").tools("record_effect").build()))
                .build()) {
            WorkflowRunner.StepLog log = new WorkflowRunner.StepLog() {
                @Override
                public java.util.Optional<StepOutcome> replay(String sessionId) {
                    return sessionId.equals(planner.sessionId())
                            ? java.util.Optional.of(planner)
                            : java.util.Optional.empty();
                }

                @Override
                public java.util.Optional<dev.cadre.agent.run.Checkpoint> checkpoint(String sessionId) {
                    return sessionId.equals(afterAction.sessionId())
                            ? java.util.Optional.of(afterAction)
                            : java.util.Optional.empty();
                }

                @Override
                public void finished(StepOutcome step, boolean replayed) {
                    seen.add((replayed ? "replayed " : "finished ") + step.sessionId());
                }
            };
            WorkflowOutcome out = workflows(runner, new ApprovalDecision.Approved(null))
                    .run(
                            "wf-crash",
                            flow,
                            "change the config",
                            new Recorder(),
                            new WorkflowRunner.Hooks(
                                    io.opentelemetry.context.Context.root(), log, WorkflowRunner.Items.NONE));

            assertThat(out.status()).isEqualTo(OutcomeStatus.OK);
            assertThat(out.text()).isEqualTo("operated after effect 1");
            assertThat(after.requestsOf("planner"))
                    .as("the finished step is replayed")
                    .isEmpty();
            assertThat(after.requestsOf("operator"))
                    .as("only the operator's last turn is asked for; its first is in the checkpoint")
                    .hasSize(1);
            assertThat(after.requestsOf("operator").getFirst().messages())
                    .filteredOn(m -> m instanceof dev.cadre.agent.model.ToolResultMessage)
                    .hasSize(1);
            assertThat(effects).as("the recorded action is not run again").containsExactly("wf-crash/operator#1");
            assertThat(seen).containsExactly("replayed wf-crash/planner#1", "finished wf-crash/operator#1");
        }
    }
}
