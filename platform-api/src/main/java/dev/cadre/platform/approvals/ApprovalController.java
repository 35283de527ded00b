package dev.cadre.platform.approvals;

import dev.cadre.agent.tool.ProposingTool;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.security.Actor;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.web.ApiProblem;
import dev.cadre.platform.web.PageCursor;
import dev.cadre.platform.web.SecretRedactor;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The approval queue: what waits for a human, and the decisions (operators only). */
@RestController
@RequestMapping("/api/v1/approvals")
class ApprovalController {

    private static final List<String> STATUSES =
            List.of("pending", "approved", "rejected", "expired", "canceled", "aborted", "superseded");

    private final ApprovalService approvals;
    private final RunSubmitters submitters;
    private final JsonMapper json;
    private final SecretRedactor redactor;
    private final Clock clock;
    private final boolean separationOfDuties;
    private final AuditLog audit;
    private final Proposals proposals;

    ApprovalController(
            ApprovalService approvals,
            Proposals proposals,
            AuditLog audit,
            RunSubmitters submitters,
            JsonMapper json,
            SecretRedactor redactor,
            Clock clock,
            @Value("${cadre.approvals.separation-of-duties:true}") boolean separationOfDuties) {
        this.approvals = approvals;
        this.proposals = proposals;
        this.audit = audit;
        this.submitters = submitters;
        this.json = json;
        this.redactor = redactor;
        this.clock = clock;
        this.separationOfDuties = separationOfDuties;
    }

    /**
     * An approval as the API shows it. {@code headline} is the action that runs if approved now, in one
     * sentence, with {@code details} below it (the tool's words; the structured form stays in the
     * arguments). {@code arguments} are what runs if approved as proposed, and {@code editedArguments}
     * what runs instead, both redacted; {@code argumentsHash} identifies the arguments shown and
     * {@code editedArgumentsHash} the edits shown: an approval must send both back as read (409 when
     * either changed since). {@code executedHash} is the action the decision lets run;
     * {@code supersededBy} the request that replaced this one when the run asked for another action at
     * the same position; {@code proposedBy} who edited a request that is still pending: the edits are
     * their proposal, and the action that runs once someone else approves it. The words a person reads
     * sit beside the structured form: {@code argumentsText} and {@code editedArgumentsText} are the
     * arguments one line each ("host: web-7"), {@code planText} each call of the plan as a sentence.
     */
    record ApprovalView(
            String id,
            String runId,
            String sessionId,
            String callId,
            String agent,
            String tool,
            String headline,
            List<String> details,
            JsonNode arguments,
            @Nullable String what,
            @Nullable String why,
            @Nullable Double confidence,
            @Nullable JsonNode plan,
            String status,
            @Nullable JsonNode editedArguments,
            @Nullable String comment,
            @Nullable String decidedBy,
            @Nullable Instant decidedAt,
            Instant createdAt,
            Instant expiresAt,
            long expiresInSeconds,
            int attempt,
            @Nullable String argumentsHash,
            @Nullable String editedArgumentsHash,
            @Nullable String executedHash,
            @Nullable String supersededBy,
            @Nullable String proposedBy,
            List<String> argumentsText,
            @Nullable List<String> editedArgumentsText,
            @Nullable List<String> planText) {}

    /** Newest first; {@code nextCursor} (as {@code cursor}) continues with older requests, null on the last page. */
    record ApprovalPage(List<ApprovalView> items, @Nullable String nextCursor, boolean hasMore, int limit) {}

    /**
     * An approval: the hashes of what the approver was shown ({@code argumentsHash} always,
     * {@code editedArgumentsHash} when edits are proposed), optionally {@code editedArguments} to run
     * instead (a proposal, with separation of duties) and a comment. Any other field is a 400 naming it
     * (the server's JSON reader is strict): {@code arguments}, the edits' old name, included.
     */
    record ApproveRequest(
            @Nullable @Size(max = 64) String argumentsHash,
            @Nullable @Size(max = 64) String editedArgumentsHash,
            @Nullable JsonNode editedArguments,
            @Nullable @Size(max = 2000) String comment) {}

    /** A rejection (or abort): a comment, and optionally the hashes read (then checked as for an approval). */
    record RejectRequest(
            @Nullable @Size(max = 64) String argumentsHash,
            @Nullable @Size(max = 64) String editedArgumentsHash,
            @Nullable @Size(max = 2000) String comment) {}

    @Operation(summary = "List approvals")
    @GetMapping
    ApprovalPage list(
            @RequestParam(required = false) @Nullable String status,
            @RequestParam(required = false) @Nullable String runId,
            @RequestParam(required = false) @Nullable String cursor,
            @RequestParam(defaultValue = "0") @Min(0) int offset,
            @RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit,
            @AuthenticationPrincipal CadrePrincipal caller) {
        if (status != null && !STATUSES.contains(status)) {
            throw ApiProblem.badField("status", "must be one of " + STATUSES);
        }
        PageCursor.refuseOffset(offset);
        PageCursor after = PageCursor.param(cursor);
        List<ApprovalRecord> rows = approvals.list(caller.scope(), status, runId, after, limit + 1);
        boolean more = rows.size() > limit;
        List<ApprovalRecord> page = more ? rows.subList(0, limit) : rows;
        return new ApprovalPage(
                page.stream().map(this::view).toList(),
                more ? new PageCursor(page.getLast().createdAt(), page.getLast().id()).encode() : null,
                more,
                limit);
    }

    @Operation(summary = "Get one approval")
    @GetMapping("/{id}")
    ApprovalView get(@PathVariable String id, @AuthenticationPrincipal CadrePrincipal caller) {
        return view(approvals.get(caller.scope(), id));
    }

    @Operation(
            summary = "Approve a pending tool call, or propose edited arguments",
            description = "The body names what the approver was shown: argumentsHash (required) and"
                    + " editedArgumentsHash (required when edits are proposed), as GET returned them; if either"
                    + " changed since, nothing is decided (409 approval-changed) and the approver reads it again."
                    + " With separation of duties (the default) editedArguments are a proposal: the tool proposes"
                    + " them again (fresh state and description), the request stays pending with the editor as"
                    + " proposedBy, and another operator approves it (without editedArguments) for the edits to"
                    + " run. An edit never changes the tool, runbook, agent or the object acted on.")
    @ApiResponse(responseCode = "200", description = "Approved, or the edits recorded as a proposal (still pending)")
    @ApiResponse(
            responseCode = "400",
            description = "argumentsHash missing, an unknown field, or the edit changes the target (field named)")
    @ApiResponse(responseCode = "403", description = "Separation of duties: the submitter or the proposer")
    @ApiResponse(
            responseCode = "409",
            description = "The approval is already decided, or changed since it was read (approval-changed)")
    @PostMapping(value = "/{id}/approve", produces = MediaType.APPLICATION_JSON_VALUE)
    ApprovalView approve(
            @PathVariable String id,
            @Valid @RequestBody(required = false) @Nullable ApproveRequest body,
            @AuthenticationPrincipal CadrePrincipal actor) {
        ApproveRequest b = body == null ? new ApproveRequest(null, null, null, null) : body;
        ApprovalRecord approval = requireSeparateDecider(id, actor, "approve");
        var seen = new ApprovalService.Seen(b.argumentsHash(), b.editedArgumentsHash());
        JsonNode edited = b.editedArguments() == null || b.editedArguments().isNull() ? null : b.editedArguments();
        if (separationOfDuties && edited != null) {
            // Editing proposes a new action: the editor becomes its proposer and may not approve it.
            return view(approvals.decide(
                    actor.scope(),
                    id,
                    new ApprovalService.Decision.ProposeEdit(edited, b.comment()),
                    seen,
                    actor.actor()));
        }
        // The proposing key, by id: its console sessions are that key, and another key that happens
        // to carry the same name is someone else.
        if (separationOfDuties && actor.actor().isKey(approval.proposedByKey())) {
            throw refused(
                    approval,
                    actor,
                    "approve",
                    "'" + actor.name() + "' proposed the edited arguments of this " + approval.tool()
                            + " call and so may not approve them; another operator must"
                            + " (cadre.approvals.separation-of-duties)",
                    "proposedBy",
                    approval.proposedBy());
        }
        return view(approvals.decide(
                actor.scope(), id, new ApprovalService.Decision.Approve(edited, b.comment()), seen, actor.actor()));
    }

    @Operation(summary = "Reject a pending tool call")
    @ApiResponse(responseCode = "200", description = "Rejected")
    @ApiResponse(responseCode = "400", description = "An unknown field (named)")
    @ApiResponse(
            responseCode = "409",
            description = "The approval is already decided, or changed since the hashes sent were read")
    @PostMapping(value = "/{id}/reject", produces = MediaType.APPLICATION_JSON_VALUE)
    ApprovalView reject(
            @PathVariable String id,
            @Valid @RequestBody(required = false) @Nullable RejectRequest body,
            @AuthenticationPrincipal CadrePrincipal actor) {
        RejectRequest b = body == null ? new RejectRequest(null, null, null) : body;
        requireSeparateDecider(id, actor, "reject");
        return view(approvals.decide(
                actor.scope(),
                id,
                new ApprovalService.Decision.Reject(b.comment()),
                new ApprovalService.Seen(b.argumentsHash(), b.editedArgumentsHash()),
                actor.actor()));
    }

    /**
     * The third answer (seed 003 level 2): stop the whole run, which ends {@code rejected}. For a
     * result review this is what "reject" is not: rejecting withdraws one result, abort ends the run.
     */
    @Operation(summary = "Abort the run a pending approval belongs to (it ends rejected)")
    @ApiResponse(responseCode = "200", description = "Aborted")
    @ApiResponse(responseCode = "400", description = "An unknown field (named)")
    @ApiResponse(
            responseCode = "409",
            description = "The approval is already decided, or changed since the hashes sent were read")
    @PostMapping(value = "/{id}/abort", produces = MediaType.APPLICATION_JSON_VALUE)
    ApprovalView abort(
            @PathVariable String id,
            @Valid @RequestBody(required = false) @Nullable RejectRequest body,
            @AuthenticationPrincipal CadrePrincipal actor) {
        RejectRequest b = body == null ? new RejectRequest(null, null, null) : body;
        requireSeparateDecider(id, actor, "abort");
        return view(approvals.decide(
                actor.scope(),
                id,
                new ApprovalService.Decision.Abort(b.comment()),
                new ApprovalService.Seen(b.argumentsHash(), b.editedArgumentsHash()),
                actor.actor()));
    }

    /**
     * Separation of duties: every approval guards an APPROVE-risk tool call (runbook execution and
     * the like), and the key that asked for the run may not also wave its action through — compared
     * by key id (a console session is the key it logged in with; a name is only a label).
     */
    private ApprovalRecord requireSeparateDecider(String approvalId, CadrePrincipal actor, String decision) {
        ApprovalRecord approval = approvals.get(actor.scope(), approvalId);
        if (!separationOfDuties) {
            return approval;
        }
        Actor submitter = submitters.submitterOf(approval.runId());
        if (actor.actor().sameKey(submitter)) {
            throw refused(
                    approval,
                    actor,
                    decision,
                    "'" + actor.name() + "' submitted run " + approval.runId()
                            + " and so may not decide its approval of " + approval.tool()
                            + "; another operator must (cadre.approvals.separation-of-duties)",
                    "submittedBy",
                    submitter.name());
        }
        return approval;
    }

    /**
     * A refused decision: audited every time (the event an auditor most wants; never throttled —
     * only operators reach here, under their rate limit) and answered 403 {@code separation-of-duties}.
     */
    private ApiProblem refused(
            ApprovalRecord approval,
            CadrePrincipal actor,
            String decision,
            String detail,
            String whoField,
            @Nullable String who) {
        audit.record(
                actor.name(),
                "approval.refused",
                approval.id(),
                decision + " refused (separation of duties): " + whoField + "=" + who + " run=" + approval.runId()
                        + " tool=" + approval.tool() + " key=" + actor.keyId());
        return new ApiProblem(HttpStatus.FORBIDDEN, "separation-of-duties", "Separation of duties", detail)
                .with("runId", approval.runId())
                .with(whoField, String.valueOf(who));
    }

    private ApprovalView view(ApprovalRecord r) {
        long left = Math.max(0, Duration.between(clock.instant(), r.expiresAt()).toSeconds());
        JsonNode arguments = json.readTree(r.argumentsJson());
        JsonNode edited = r.editedArgumentsJson() == null ? null : json.readTree(r.editedArgumentsJson());
        // The words of the action that runs if approved now: the proposed edits, else what was asked.
        ProposingTool.Words words = proposals.words(r.tool(), edited != null ? edited : arguments);
        // Without the tool's own words, a sentence built from the action; a request that is not a
        // tool's call (a tie-break, a result review) says what it asks in its own words.
        String headline = words != null
                ? words.headline()
                : proposals.isTool(r.tool()) || r.what() == null || r.what().isBlank()
                        ? ActionWords.sentence(r.tool(), redactor.redact(edited != null ? edited : arguments))
                        : r.what();
        JsonNode plan = r.planJson() == null ? null : json.readTree(r.planJson());
        List<String> planText = null;
        if (plan != null && plan.isArray()) {
            planText = new ArrayList<>();
            for (JsonNode item : plan) {
                planText.add(
                        item.isString()
                                ? ActionWords.planItem(item.asString(), redactor::redact, (tool, args) -> {
                                    ProposingTool.Words w = proposals.words(tool, args);
                                    return w == null ? null : w.headline();
                                })
                                : ActionWords.sentence("step", redactor.redact(item)));
            }
        }
        // Whatever an approval shows goes out redacted as a whole (issue 23: why and plan were not).
        return redactor.redacted(
                new ApprovalView(
                        r.id(),
                        r.runId(),
                        r.sessionId(),
                        r.callId(),
                        r.agent(),
                        r.tool(),
                        headline,
                        words == null ? List.of() : words.details(),
                        arguments,
                        r.what(),
                        r.why(),
                        r.confidence(),
                        plan,
                        r.status(),
                        edited,
                        r.comment(),
                        r.decidedBy(),
                        r.decidedAt(),
                        r.createdAt(),
                        r.expiresAt(),
                        r.pending() ? left : 0,
                        r.attempt(),
                        r.argumentsHash(),
                        r.editedArgumentsJson() == null ? null : r.executedHash(),
                        r.executedHash(),
                        r.supersededBy(),
                        r.proposedBy(),
                        // Lines of text escape the redaction by key name the JSON gets: made from it.
                        ActionWords.argumentLines(redactor.redact(arguments)),
                        edited == null ? null : ActionWords.argumentLines(redactor.redact(edited)),
                        planText),
                ApprovalView.class);
    }
}
