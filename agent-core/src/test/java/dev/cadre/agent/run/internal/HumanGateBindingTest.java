package dev.cadre.agent.run.internal;

import static dev.cadre.agent.testing.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.approval.ActionHash;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalRequest;
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
 * An approval covers exactly the action that was shown: a decision bound to another action's hash
 * (another tool, other arguments) never lets the subject run, and the human reads masked arguments.
 */
class HumanGateBindingTest {

    private static final JsonNode SCHEMA =
            json("{\"type\":\"object\",\"properties\":{\"service\":{\"type\":\"string\"},"
                    + "\"host\":{\"type\":\"string\"}},\"required\":[\"service\"]}");
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
    void approvalBoundToThisAction_proceeds_evenWrittenDifferently() throws Exception {
        HumanGate.Subject subject = HumanGate.Subject.toolCall(CALL, CALL.arguments(), SCHEMA, "restarts");
        String shown = ActionHash.of("restart_service", json("{ \"service\" : \"api\" }"));

        assertThat(decide(subject, new ApprovalDecision.Approved("fay", shown)))
                .isEqualTo(new HumanGate.Verdict.Proceed(json("{\"service\":\"api\"}")));
        assertThat(asked)
                .singleElement()
                .extracting(ApprovalRequest::actionHash)
                .isEqualTo(shown);
    }

    @Test
    void approvalBoundToOtherArgumentsOrAnotherTool_isRefused_andNothingProceeds() throws Exception {
        HumanGate.Subject subject = HumanGate.Subject.toolCall(CALL, CALL.arguments(), SCHEMA, "restarts");

        for (String other : List.of(
                ActionHash.of("restart_service", json("{\"service\":\"db\"}")),
                ActionHash.of("stop_service", json("{\"service\":\"api\"}")))) {
            assertThat(decide(subject, new ApprovalDecision.Approved("fay", other)))
                    .isInstanceOfSatisfying(HumanGate.Verdict.Refused.class, r -> {
                        assertThat(r.failure().code()).isEqualTo("approval_mismatch");
                        assertThat(r.failure().message()).contains("another action");
                    });
            assertThat(decide(
                            subject,
                            new ApprovalDecision.ApprovedWithEdits(json("{\"service\":\"api\"}"), "fay", other)))
                    .isInstanceOf(HumanGate.Verdict.Refused.class);
        }
    }

    @Test
    void editsOfTheShownAction_runTheEditedArguments() throws Exception {
        HumanGate.Subject subject = HumanGate.Subject.toolCall(CALL, CALL.arguments(), SCHEMA, "restarts");
        String shown = ActionHash.of("restart_service", CALL.arguments());

        assertThat(decide(
                        subject,
                        new ApprovalDecision.ApprovedWithEdits(
                                json("{\"service\":\"api\",\"host\":\"web-2\"}"), "fay", shown)))
                .isEqualTo(new HumanGate.Verdict.Proceed(json("{\"service\":\"api\",\"host\":\"web-2\"}")));
    }

    @Test
    void theHumanReadsMaskedArguments_butTheRequestCarriesTheRealOnes() throws Exception {
        ToolCall call = new ToolCall(
                "call_1_1",
                "restart_service",
                json("{\"service\":\"api\",\"host\":\"https://ops:hunter2pass@web-1\"}"));
        decide(HumanGate.Subject.toolCall(call, call.arguments(), SCHEMA, null), new ApprovalDecision.Approved("fay"));
        decide(
                HumanGate.Subject.toolCall(
                        call, call.arguments(), SCHEMA, "Restart api on https://ops:hunter2pass@web-1"),
                new ApprovalDecision.Approved("fay"));

        assertThat(asked).hasSize(2);
        assertThat(asked.getLast().what()).doesNotContain("hunter2pass").startsWith("Restart api on");
        assertThat(asked).first().satisfies(r -> {
            assertThat(r.what()).doesNotContain("hunter2pass").contains("restart_service");
            assertThat(r.arguments().path("host").asString()).contains("hunter2pass");
        });
    }
}
