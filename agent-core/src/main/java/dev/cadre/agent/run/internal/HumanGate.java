package dev.cadre.agent.run.internal;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.approval.ActionHash;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalKind;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.telemetry.SecretMasker;
import dev.cadre.agent.tool.JsonSchemas;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Where the loop waits for a human: before an {@code APPROVE} call runs and after a worker with a
 * result review finished. Both ask the approval gate about a {@link Subject} (a tool call's name and
 * the arguments it would run with) and turn the human's decision into a {@link Verdict} in one place.
 */
final class HumanGate {

    /** Masks the arguments in the one-line description a human reads (the arguments themselves run unmasked). */
    private static final SecretMasker MASKER = SecretMasker.standard();

    private final AgentContext ctx;
    private final SessionStream stream;

    HumanGate(AgentContext ctx, SessionStream stream) {
        this.ctx = ctx;
        this.stream = stream;
    }

    /**
     * What a human is asked to decide on: the call {@code callId} of {@code toolName} with exactly these
     * {@code arguments} (for a result review, the worker's result as {@code {"summary": ...}}).
     *
     * @param editSchema what edited arguments must satisfy to be used; null when edits are not checked
     * @param description the action in one line, for the human (the approval's headline)
     */
    record Subject(
            ApprovalKind kind,
            String callId,
            String toolName,
            JsonNode arguments,
            @Nullable JsonNode editSchema,
            String description) {

        /**
         * Whether the call may run, with these arguments or the approver's edits of them. The human reads
         * {@code headline} (the tool's sentence for the action, masked), else the tool and its masked
         * arguments — never the tool's whole description, which is written for the model.
         */
        static Subject toolCall(ToolCall call, JsonNode arguments, JsonNode schema, @Nullable String headline) {
            return new Subject(
                    ApprovalKind.TOOL_CALL,
                    call.id(),
                    call.name(),
                    arguments,
                    schema,
                    headline == null || headline.isBlank()
                            ? call.name() + " " + MASKER.redact(arguments)
                            : MASKER.redact(call.name(), headline));
        }

        /** Whether a worker's result may go to its parent, as it is or with an edited summary. */
        static Subject resultReview(ToolCall call, String worker, String summary) {
            return new Subject(
                    ApprovalKind.RESULT_REVIEW,
                    call.id(),
                    call.name(),
                    JsonNodeFactory.instance.objectNode().put("summary", summary),
                    null,
                    "review the result of worker " + worker + ": " + summary);
        }
    }

    /** What the loop does with the subject after the human (or the gate's expiry) decided. */
    sealed interface Verdict {
        /** Go on with these arguments: the subject's own, or the approver's valid edits of them. */
        record Proceed(JsonNode arguments) implements Verdict {}

        /** A human said no; the comment is what the model reads. */
        record Denied(String comment) implements Verdict {}

        /** A human stopped the whole run (the loop stops its root scope: the run ends rejected). */
        record Abort(Failure failure) implements Verdict {}

        /** No usable decision: it expired, or the edits were invalid. */
        record Refused(Failure failure) implements Verdict {}
    }

    /**
     * Asks the gate about {@code subject} and waits for the decision; the one place decisions are read.
     * An approval bound to another action than the subject's ({@link ActionHash}) is refused: after a
     * resume the model may have chosen another tool or other arguments at the same position, and a
     * decision on the earlier action never lets this one run.
     */
    Verdict decide(Subject subject, Turn turn) throws InterruptedException {
        ApprovalDecision decision = ask(subject, turn);
        String approved = switch (decision) {
            case ApprovalDecision.Approved a -> a.actionHash();
            case ApprovalDecision.ApprovedWithEdits e -> e.actionHash();
            default -> null;
        };
        if (approved != null && !approved.equals(ActionHash.of(subject.toolName(), subject.arguments()))) {
            return new Verdict.Refused(FailureCode.APPROVAL_MISMATCH.failure("the approval by "
                    + (decision.decidedBy() == null ? "someone" : decision.decidedBy())
                    + " was given for another action than " + subject.toolName()
                    + " with these arguments; not running it"));
        }
        return switch (decision) {
            case ApprovalDecision.Approved a -> new Verdict.Proceed(subject.arguments());
            case ApprovalDecision.ApprovedWithEdits edits -> {
                List<String> errors = subject.editSchema() == null
                        ? List.of()
                        : JsonSchemas.validate(subject.editSchema(), edits.arguments());
                yield errors.isEmpty()
                        ? new Verdict.Proceed(edits.arguments())
                        : new Verdict.Refused(FailureCode.INVALID_EDITED_ARGUMENTS.failure(
                                "the approver's edited arguments are invalid: " + String.join("; ", errors)));
            }
            case ApprovalDecision.Rejected r ->
                new Verdict.Denied(rejected(subject.kind()) + by(r.decidedBy()) + ": " + r.comment());
            case ApprovalDecision.Aborted a ->
                new Verdict.Abort(FailureCode.RUN_ABORTED.failure(
                        "run aborted" + by(a.decidedBy()) + " at " + subject.toolName() + ": " + a.comment()));
            case ApprovalDecision.Expired x -> new Verdict.Refused(expired(subject));
        };
    }

    private static String rejected(ApprovalKind kind) {
        return switch (kind) {
            case TOOL_CALL -> "rejected";
            case RESULT_REVIEW -> "the reviewer rejected this result";
            case TIE_BREAK -> "the tie-break was rejected";
        };
    }

    private static Failure expired(Subject subject) {
        return switch (subject.kind()) {
            case TOOL_CALL ->
                FailureCode.APPROVAL_EXPIRED.failure("no human decision arrived before the approval request expired");
            case RESULT_REVIEW ->
                FailureCode.REVIEW_EXPIRED.failure(
                        "no reviewer decided on the result of worker " + subject.toolName() + " in time");
            case TIE_BREAK ->
                FailureCode.TIE_BREAK_EXPIRED.failure("no human broke the tie of " + subject.toolName() + " in time");
        };
    }

    private static String by(@Nullable String who) {
        return who == null ? "" : " by " + who;
    }

    private ApprovalDecision ask(Subject subject, Turn turn) throws InterruptedException {
        JsonNode arguments = subject.arguments();
        JsonNode confidence = arguments.get("confidence");
        ApprovalRequest request = new ApprovalRequest(
                subject.kind(),
                ctx.runId(),
                ctx.sessionId(),
                ctx.agent(),
                subject.callId(),
                subject.toolName(),
                arguments,
                subject.description(),
                turn.why(),
                confidence != null && confidence.isNumber() ? confidence.doubleValue() : null,
                turn.plan());
        // The gate records the request before anyone hears of it: a reader who sees the run wait
        // for a human (the event) then always finds the pending approval.
        CompletableFuture<ApprovalDecision> pending;
        try {
            pending = ctx.rt().approvals().request(request).toCompletableFuture();
        } catch (RuntimeException e) {
            pending = CompletableFuture.failedFuture(e);
        }
        stream.emit(m -> new AgentEvent.ApprovalRequested(m, request));
        ApprovalDecision decision;
        try {
            CompletableFuture<ApprovalDecision> awaited = pending;
            decision = ctx.scope().await(awaited::get);
        } catch (ExecutionException e) {
            // A gate that cannot answer leaves the action undecided; undecided never means approved.
            decision = new ApprovalDecision.Expired();
        }
        ApprovalDecision resolved = decision;
        stream.emit(m -> new AgentEvent.ApprovalResolved(m, subject.callId(), resolved));
        return decision;
    }
}
