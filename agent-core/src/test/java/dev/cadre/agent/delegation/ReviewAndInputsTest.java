package dev.cadre.agent.delegation;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.call;
import static dev.cadre.agent.testing.Fixtures.json;
import static dev.cadre.agent.testing.Fixtures.textOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.ReviewPolicy;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.approval.ApprovalKind;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class ReviewAndInputsTest {

    private final ScriptedModel model = new ScriptedModel(
            Map.of(
                    "orchestrator",
                    AgentScript.of(
                            ScriptedTurn.calls(call(
                                    "analyst",
                                    "{\"task\":\"why did sales drop?\",\"context\":\"region east\","
                                            + "\"memory_keys\":[\"sales/july\",\"sales/missing\"]}")),
                            ScriptedTurn.text("{{result[0]}}")),
                    "analyst",
                    AgentScript.of(
                            ScriptedTurn.text(
                                    "{\"summary\": \"appliances fell 40%\", \"data\": {\"rows\": 128}, \"metrics\": {\"mom\": -0.12}}"))));

    private final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();

    private RunOutcome run(ReviewPolicy review, ApprovalDecision decision, Recorder recorder) throws Exception {
        AgentTree tree = Fixtures.tree(
                ToolRegistry.empty(),
                model,
                Fixtures.root("orchestrator").workers("analyst").build(),
                agent("analyst").review(review).build());
        ApprovalGate gate = request -> {
            asked.add(request);
            return CompletableFuture.completedFuture(decision);
        };
        try (AgentRunner runner = AgentRunner.builder(tree)
                .approvalGate(gate)
                .sharedInputs((runId, sessionId, keys) -> Map.of("sales/july", "{\"total\": 520000}"))
                .build()) {
            return runner.run(RunRequest.of("run-review", "orchestrator", "sales question"), recorder);
        }
    }

    @Test
    void delegation_rendersContextAndReadOnlyInputs_andKeepsDataOutOfTheParentsContext() throws Exception {
        RunOutcome outcome = run(ReviewPolicy.NONE, new ApprovalDecision.Approved(null), new Recorder());

        assertThat(textOf(model.requestsOf("analyst").getFirst()))
                .contains(
                        "why did sales drop?\n\nContext:\nregion east\n\nInputs (read-only):\n- sales/july: {\"total\": 520000}\n"
                                + "- sales/missing: (not available)");
        SubagentOutcome sub = outcome.subagents().getFirst();
        assertThat(sub.summary()).isEqualTo("appliances fell 40%");
        assertThat(sub.data()).isEqualTo(json("{\"rows\": 128}"));
        assertThat(sub.metrics()).isEqualTo(json("{\"mom\": -0.12}"));
        assertThat(outcome.finalText()).isEqualTo("{\"status\":\"ok\",\"summary\":\"appliances fell 40%\"}");
        assertThat(asked).isEmpty();
    }

    @Test
    void workerWithApproveBeforeStart_waitsForAHuman_andARejectionNeverSpawnsIt() throws Exception {
        Recorder recorder = new Recorder();
        RunOutcome outcome =
                run(ReviewPolicy.APPROVE_BEFORE_START, new ApprovalDecision.Rejected("not now", "fay"), recorder);

        assertThat(asked).singleElement().satisfies(r -> assertThat(r.kind()).isEqualTo(ApprovalKind.TOOL_CALL));
        assertThat(model.requestsOf("analyst")).isEmpty();
        assertThat(recorder.ofType(AgentEvent.SubagentStarted.class)).isEmpty();
        assertThat(recorder.ofType(AgentEvent.ToolCallStart.class).getFirst().risk())
                .isEqualTo(Risk.APPROVE);
        assertThat(outcome.finalText()).contains("rejected by fay: not now");
    }

    @Test
    void resultReview_abort_stopsTheWholeRun_denied_andTheParentNeverReadsTheResult() throws Exception {
        RunOutcome aborted = run(
                ReviewPolicy.REVIEW_RESULT, new ApprovalDecision.Aborted("wrong data source", "gil"), new Recorder());

        assertThat(aborted.status()).isEqualTo(OutcomeStatus.DENIED);
        assertThat(aborted.failure().code()).isEqualTo("run_aborted");
        assertThat(aborted.failure().message()).contains("by gil").contains("wrong data source");
        assertThat(aborted.finalText()).isNull();
        // The orchestrator's second turn (which would read the result) never happens.
        assertThat(model.requestsOf("orchestrator")).hasSize(1);
    }

    @Test
    void resultReview_canCorrectTheSummary_orWithdrawIt() throws Exception {
        RunOutcome corrected = run(
                ReviewPolicy.REVIEW_RESULT,
                new ApprovalDecision.ApprovedWithEdits(
                        json("{\"summary\":\"appliances fell 38% (corrected)\"}"), "gil"),
                new Recorder());
        RunOutcome withdrawn = run(
                ReviewPolicy.REVIEW_RESULT, new ApprovalDecision.Rejected("numbers look wrong", "gil"), new Recorder());

        assertThat(asked).extracting(ApprovalRequest::kind).containsOnly(ApprovalKind.RESULT_REVIEW);
        assertThat(corrected.finalText()).contains("appliances fell 38% (corrected)");
        assertThat(corrected.subagents().getFirst().summary()).isEqualTo("appliances fell 38% (corrected)");
        assertThat(withdrawn.subagents().getFirst().status()).isEqualTo(OutcomeStatus.DENIED);
        assertThat(withdrawn.finalText())
                .contains("the reviewer rejected this result by gil: numbers look wrong")
                .doesNotContain("appliances");
    }

    @Test
    void resultReview_thatNobodyDecides_failsTheCall_andTheRecordKeepsTheContractData() throws Exception {
        RunOutcome expired = run(ReviewPolicy.REVIEW_RESULT, new ApprovalDecision.Expired(), new Recorder());

        SubagentOutcome sub = expired.subagents().getFirst();
        assertThat(sub).isInstanceOf(SubagentOutcome.Failed.class);
        assertThat(sub.status()).isEqualTo(OutcomeStatus.FAILED);
        assertThat(sub.summary()).isNull();
        assertThat(sub.error())
                .isEqualTo(new Failure(
                        FailureCategory.HUMAN_INTERVENTION_TIMEOUT,
                        "review_expired",
                        "no reviewer decided on the result of worker analyst in time"));
        assertThat(sub.data()).isEqualTo(json("{\"rows\": 128}"));
        assertThat(expired.finalText()).contains("\"code\":\"review_expired\"").doesNotContain("appliances");
    }

    @Test
    void resultReview_rejected_isARejectedOutcome_withoutSummaryOrError() throws Exception {
        RunOutcome withdrawn = run(
                ReviewPolicy.REVIEW_RESULT, new ApprovalDecision.Rejected("numbers look wrong", null), new Recorder());

        assertThat(withdrawn.subagents().getFirst()).isInstanceOfSatisfying(SubagentOutcome.Rejected.class, r -> {
            assertThat(r.summary()).isNull();
            assertThat(r.error()).isNull();
            assertThat(r.metrics()).isEqualTo(json("{\"mom\": -0.12}"));
        });
        assertThat(withdrawn.finalText()).contains("the reviewer rejected this result: numbers look wrong");
    }
}
