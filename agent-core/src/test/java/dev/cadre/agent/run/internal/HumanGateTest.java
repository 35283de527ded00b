package dev.cadre.agent.run.internal;

import static dev.cadre.agent.testing.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalKind;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The human gate on its own: what it asks about (tool name and exact arguments), and the one mapping
 * from a human's decision to what the loop does next.
 */
class HumanGateTest {

    private static final JsonNode SCHEMA =
            json("{\"type\":\"object\",\"properties\":{\"service\":{\"type\":\"string\"}},\"required\":[\"service\"]}");
    private static final ToolCall CALL = new ToolCall("call_1_1", "restart_service", json("{\"service\":\"api\"}"));

    private final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
    private final Recorder recorder = new Recorder();

    private HumanGate.Verdict decide(HumanGate.Subject subject, ApprovalDecision decision) throws Exception {
        AgentSpec spec = Fixtures.root("ops").build();
        Runtime rt = new Runtime(
                null,
                null,
                null,
                request -> {
                    asked.add(request);
                    return CompletableFuture.completedFuture(decision);
                },
                null,
                null,
                null,
                null,
                null,
                null,
                Map.of(),
                null);
        RunScope run = new RunScope("run-1", recorder, new Semaphore(1), 1);
        AgentContext ctx = AgentContext.root(rt, run, spec, "run-1", new TokenBudget(1000, 0), new CancelScope(null));
        HumanGate gate = new HumanGate(ctx, new SessionStream("run-1", "run-1", null, "ops", recorder, 1));
        return gate.decide(subject, Turn.of(List.of(CALL), "api is stuck"));
    }

    @Test
    void toolCall_asksAboutExactlyTheToolAndItsArguments_andApprovalProceedsWithThem() throws Exception {
        HumanGate.Verdict verdict = decide(
                HumanGate.Subject.toolCall(CALL, CALL.arguments(), SCHEMA, null), new ApprovalDecision.Approved("fay"));

        assertThat(verdict).isEqualTo(new HumanGate.Verdict.Proceed(json("{\"service\":\"api\"}")));
        assertThat(asked).singleElement().satisfies(r -> {
            assertThat(r.kind()).isEqualTo(ApprovalKind.TOOL_CALL);
            assertThat(r.tool()).isEqualTo("restart_service");
            assertThat(r.arguments()).isEqualTo(json("{\"service\":\"api\"}"));
            assertThat(r.callId()).isEqualTo("call_1_1");
            // No sentence from the tool: its name and arguments, never its description (written for the model).
            assertThat(r.what()).isEqualTo("restart_service {\"service\":\"api\"}");
            assertThat(r.why()).isEqualTo("api is stuck");
        });
        assertThat(recorder.ofType(AgentEvent.ApprovalRequested.class)).hasSize(1);
        assertThat(recorder.ofType(AgentEvent.ApprovalResolved.class)).hasSize(1);
    }

    @Test
    void toolCall_edits_proceedWithTheEditsWhenValid_andAreRefusedWhenNot() throws Exception {
        HumanGate.Subject subject = HumanGate.Subject.toolCall(CALL, CALL.arguments(), SCHEMA, "restarts");

        assertThat(decide(subject, new ApprovalDecision.ApprovedWithEdits(json("{\"service\":\"api-2\"}"), "fay")))
                .isEqualTo(new HumanGate.Verdict.Proceed(json("{\"service\":\"api-2\"}")));
        assertThat(decide(subject, new ApprovalDecision.ApprovedWithEdits(json("{\"service\":2}"), "fay")))
                .isInstanceOfSatisfying(
                        HumanGate.Verdict.Refused.class,
                        r -> assertThat(r.failure().code()).isEqualTo("invalid_edited_arguments"));
    }

    @Test
    void rejectionAndExpiry_readPerKind() throws Exception {
        HumanGate.Subject tool = HumanGate.Subject.toolCall(CALL, CALL.arguments(), SCHEMA, "restarts");
        HumanGate.Subject review = HumanGate.Subject.resultReview(
                new ToolCall("call_1_2", "analyst", json("{\"task\":\"t\"}")), "analyst", "sales fell");

        assertThat(decide(tool, new ApprovalDecision.Rejected("not now", "fay")))
                .isEqualTo(new HumanGate.Verdict.Denied("rejected by fay: not now"));
        assertThat(decide(review, new ApprovalDecision.Rejected("wrong", null)))
                .isEqualTo(new HumanGate.Verdict.Denied("the reviewer rejected this result: wrong"));
        assertThat(decide(tool, new ApprovalDecision.Expired()))
                .isEqualTo(new HumanGate.Verdict.Refused(new Failure(
                        FailureCategory.HUMAN_INTERVENTION_TIMEOUT,
                        "approval_expired",
                        "no human decision arrived before the approval request expired")));
        assertThat(decide(review, new ApprovalDecision.Expired()))
                .isEqualTo(new HumanGate.Verdict.Refused(new Failure(
                        FailureCategory.HUMAN_INTERVENTION_TIMEOUT,
                        "review_expired",
                        "no reviewer decided on the result of worker analyst in time")));
        assertThat(asked).extracting(ApprovalRequest::arguments).last().isEqualTo(json("{\"summary\":\"sales fell\"}"));
    }
}
