package dev.cadre.platform.approvals;

import dev.cadre.agent.approval.ActionHash;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.security.Actor;
import dev.cadre.platform.tenancy.TeamScope;
import dev.cadre.platform.web.ApiProblem;
import dev.cadre.platform.web.PageCursor;
import dev.cadre.platform.web.SecretRedactor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The durable approval gate. A request is a row keyed by (run, session, call) and bound to the hash
 * of the action it shows, so a run resumed after a restart asks again and finds the same request —
 * pending, or already decided — as long as it asks for the same action; for another one the row is
 * superseded and a new request asks the human again. Waiting runs
 * are woken in-process at once, and by a sweep that also notices decisions taken by another
 * instance and expires requests nobody answered ({@code HUMAN_INTERVENTION_TIMEOUT}).
 */
@Service
public class ApprovalService implements ApprovalGate {

    private static final Logger log = LoggerFactory.getLogger(ApprovalService.class);
    /** The platform's own decisions (a run that ended cancels its requests): no key, so no one's. */
    private static final Actor SYSTEM = Actor.platform("system");

    private final ApprovalStore store;
    private final AuditLog audit;
    private final JsonMapper json;
    private final SecretRedactor redactor;
    private final Clock clock;
    private final Duration timeout;
    private final Map<String, CompletableFuture<ApprovalDecision>> waiting = new ConcurrentHashMap<>();
    private final List<ApprovalListener> listeners;
    private final Proposals proposals;
    private final RunTeams runTeams;

    ApprovalService(
            ApprovalStore store,
            Proposals proposals,
            AuditLog audit,
            JsonMapper json,
            SecretRedactor redactor,
            Clock clock,
            @Value("${cadre.approvals.timeout:PT30M}") Duration timeout,
            List<ApprovalListener> listeners,
            RunTeams runTeams) {
        this.runTeams = runTeams;
        this.store = store;
        this.proposals = proposals;
        this.audit = audit;
        this.json = json;
        this.redactor = redactor;
        this.clock = clock;
        this.timeout = timeout;
        this.listeners = listeners;
    }

    /** Told about requests and decisions (metrics, run status). */
    public interface ApprovalListener {
        default void requested(ApprovalRecord record) {}

        default void decided(ApprovalRecord record, Duration waited) {}
    }

    /** A decision an operator takes. */
    public sealed interface Decision {
        record Approve(
                @Nullable JsonNode editedArguments,
                @Nullable String comment) implements Decision {}

        /**
         * Edits as a proposal (separation of duties on): the request stays pending with the editor as
         * proposer of the edited action, and someone else must approve it.
         */
        record ProposeEdit(
                JsonNode editedArguments, @Nullable String comment) implements Decision {}

        record Reject(@Nullable String comment) implements Decision {}

        /** Stop the whole run (it ends rejected). */
        record Abort(@Nullable String comment) implements Decision {}
    }

    /**
     * Records the request, or finds it recorded: a repeated request for the same action at the same
     * position (a resumed run asking again) gets the decision already taken, or waits for it. A request
     * for another action there (another tool or other arguments, by {@link ActionHash}) supersedes
     * the recorded one — pending or decided — and asks the human again: a decision covers exactly the
     * action it showed.
     */
    @Override
    public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
        String hash = request.actionHash();
        ApprovalRecord stored = null;
        // Bounded: each pass either finds the request, inserts it, or loses a race another writer won.
        for (int pass = 0; pass < 5 && stored == null; pass++) {
            Optional<ApprovalRecord> latest =
                    store.latestByCall(request.runId(), request.sessionId(), request.callId());
            if (latest.isPresent()
                    && hash.equals(latest.get().argumentsHash())
                    && !latest.get().status().equals(ApprovalRecord.SUPERSEDED)) {
                stored = latest.get();
                break;
            }
            String id = UUID.randomUUID().toString();
            int attempt = 0;
            if (latest.isPresent()) {
                ApprovalRecord earlier = latest.get();
                attempt = earlier.attempt() + 1;
                if (!earlier.status().equals(ApprovalRecord.SUPERSEDED) && !supersede(earlier, id, request)) {
                    continue; // decided or superseded meanwhile: look again
                }
            }
            ApprovalRecord inserted =
                    store.insertAttempt(newRecord(id, attempt, hash, request), runTeams.teamOf(request.runId()));
            stored = hash.equals(inserted.argumentsHash()) && !inserted.status().equals(ApprovalRecord.SUPERSEDED)
                    ? inserted
                    : null;
        }
        if (stored == null) {
            throw new IllegalStateException("approval of call " + request.callId() + " in run " + request.runId()
                    + " kept changing while it was recorded");
        }
        if (!stored.pending()) {
            return CompletableFuture.completedFuture(toDecision(stored));
        }
        ApprovalRecord asked = stored;
        listeners.forEach(l -> l.requested(asked));
        CompletableFuture<ApprovalDecision> future =
                waiting.computeIfAbsent(asked.id(), id -> new CompletableFuture<>());
        // The decision may have landed between the insert and the registration.
        store.find(asked.id()).filter(r -> !r.pending()).ifPresent(this::wake);
        return future;
    }

    private ApprovalRecord newRecord(String id, int attempt, String hash, ApprovalRequest asked) {
        // Stored as shown: the request redacted as a whole (arguments, what, why, plan), before any cut.
        ApprovalRequest request = redactor.redacted(asked, ApprovalRequest.class);
        Instant now = clock.instant();
        return new ApprovalRecord(
                id,
                request.runId(),
                request.sessionId(),
                request.callId(),
                request.agent(),
                request.tool(),
                request.arguments().toString(),
                truncate(request.what(), 1000),
                truncate(request.why(), 2000),
                request.confidence(),
                json.writeValueAsString(request.plan()),
                ApprovalRecord.PENDING,
                null,
                null,
                null,
                null,
                now,
                now.plus(timeout),
                attempt,
                hash,
                null,
                null);
    }

    /** Sets {@code earlier} aside for the request {@code replacementId}; false when it changed meanwhile. */
    private boolean supersede(ApprovalRecord earlier, String replacementId, ApprovalRequest request) {
        String comment = truncate(
                "superseded by " + replacementId + ": after a resume the run asks for " + request.tool()
                        + (request.tool().equals(earlier.tool())
                                ? " with other arguments"
                                : " instead of " + earlier.tool())
                        + (earlier.pending() ? "" : "; the earlier " + earlier.status() + " decision does not cover it")
                        + (earlier.comment() == null ? "" : " (earlier comment: " + earlier.comment() + ")"),
                2000);
        if (!store.supersede(earlier.id(), earlier.status(), replacementId, comment, clock.instant())) {
            return false;
        }
        audit.record(
                "system",
                "approval.supersede",
                earlier.id(),
                "run=" + earlier.runId() + " call=" + earlier.callId() + " was " + earlier.status() + " for "
                        + earlier.tool() + " " + shortHash(earlier.argumentsHash()) + "; now " + request.tool() + " "
                        + shortHash(request.actionHash()) + " asks again as " + replacementId);
        log.info(
                "Approval {} in run {} superseded by {}: the run now asks for another action",
                earlier.id(),
                earlier.runId(),
                replacementId);
        CompletableFuture<ApprovalDecision> stale = waiting.remove(earlier.id());
        if (stale != null) {
            stale.complete(new ApprovalDecision.Rejected("superseded by a request for another action", "system"));
        }
        return true;
    }

    private static String shortHash(@Nullable String hash) {
        return hash == null ? "(no hash)" : hash.substring(0, Math.min(12, hash.length()));
    }

    /** The request at a call position (the newest attempt), decided or not: who approved what ran there. */
    public Optional<ApprovalRecord> decisionOf(String runId, String sessionId, String callId) {
        return store.latestByCall(runId, sessionId, callId);
    }

    /** The request {@code id} if {@code scope} sees it; 404 otherwise, exactly as for one that never was. */
    public ApprovalRecord get(TeamScope scope, String id) {
        return store.find(scope, id).orElseThrow(() -> ApiProblem.notFound("approval", id));
    }

    /** Newest first, continuing after {@code after} (keyset paging). */
    public List<ApprovalRecord> list(
            TeamScope scope, @Nullable String status, @Nullable String runId, @Nullable PageCursor after, int limit) {
        return store.list(scope, status, runId, after, limit);
    }

    public long pendingCount() {
        return store.countPending();
    }

    /**
     * What the decider was shown, by hash: {@code argumentsHash} of the request's arguments, and
     * {@code editedArgumentsHash} of the edits proposed on it (null: none were shown). An approval
     * must carry both as they are now; a rejection or abort may carry them (then they are checked too).
     */
    public record Seen(
            @Nullable String argumentsHash, @Nullable String editedArgumentsHash) {
        /** Nothing claimed: only for rejections and aborts, which never let anything run. */
        public static final Seen UNCHECKED = new Seen(null, null);
    }

    /**
     * Applies an operator's decision, recorded with the deciding (or proposing) key's id and name.
     * An approval (and an edit proposal) must name, by hash, exactly what the request shows now — its
     * arguments and any proposed edits — or it is refused with 409 {@code approval-changed}: a decision
     * covers what its decider saw, never edits someone made after they read it. Edits are proposed
     * again by the tool (fresh state, fresh description) and may not change the action's target.
     * 409 {@code approval-already-decided} when the request is no longer pending.
     */
    public ApprovalRecord decide(TeamScope scope, String id, Decision decision, Seen seen, Actor actor) {
        ApprovalRecord current = get(scope, id);
        if (!current.pending()) {
            throw alreadyDecided(current);
        }
        boolean approving = decision instanceof Decision.Approve || decision instanceof Decision.ProposeEdit;
        checkSeen(current, seen, approving);
        Instant now = clock.instant();
        // Edits are the tool's proposal again, from the edited arguments: what the next approver reads.
        JsonNode edits = switch (decision) {
            case Decision.Approve a
            when a.editedArguments() != null -> proposals.repropose(current, a.editedArguments());
            case Decision.ProposeEdit e -> proposals.repropose(current, e.editedArguments());
            default -> null;
        };
        boolean applied = switch (decision) {
            case Decision.Approve a
            when edits == null && current.proposedBy() != null ->
                // Approving a proposal runs the edits it shows, and only while they are still those seen.
                store.approveProposal(id, seen.editedArgumentsHash(), a.comment(), actor, now);
            case Decision.Approve a ->
                // What will run: the shown action, or the edits (the record keeps both hashes).
                store.approveUnproposed(
                        id,
                        edits == null ? null : edits.toString(),
                        edits == null ? current.argumentsHash() : ActionHash.of(current.tool(), edits),
                        a.comment(),
                        actor,
                        now);
            case Decision.ProposeEdit e ->
                store.proposeEdit(
                        id,
                        edits.toString(),
                        ActionHash.of(current.tool(), edits),
                        actor,
                        e.comment(),
                        seen.editedArgumentsHash());
            case Decision.Reject r ->
                store.decide(
                        id,
                        ApprovalRecord.REJECTED,
                        null,
                        null,
                        r.comment() == null || r.comment().isBlank() ? "rejected by " + actor.name() : r.comment(),
                        actor,
                        now);
            case Decision.Abort r ->
                store.decide(
                        id,
                        ApprovalRecord.ABORTED,
                        null,
                        null,
                        r.comment() == null || r.comment().isBlank() ? "aborted by " + actor.name() : r.comment(),
                        actor,
                        now);
        };
        ApprovalRecord after = get(scope, id);
        if (!applied) {
            // Still pending: someone proposed (other) edits between our read and our write.
            throw after.pending() ? changed(after, "edits were proposed on it meanwhile") : alreadyDecided(after);
        }
        String action = switch (decision) {
            case Decision.Approve a when edits == null && current.proposedBy() != null -> "approval.approve_proposal";
            case Decision.Approve a -> edits == null ? "approval.approve" : "approval.approve_with_edits";
            case Decision.ProposeEdit e -> "approval.propose_edit";
            case Decision.Reject r -> "approval.reject";
            case Decision.Abort r -> "approval.abort";
        };
        audit.record(
                actor.name(),
                action,
                id,
                "run=" + after.runId() + " tool=" + after.tool() + " call=" + after.callId()
                        + (after.comment() == null ? "" : " comment=" + after.comment())
                        + (after.proposedBy() == null ? "" : " proposedBy=" + after.proposedBy())
                        + (after.executedHash() == null ? "" : " executedHash=" + shortHash(after.executedHash()))
                        + (after.editedArgumentsJson() == null
                                ? ""
                                : " arguments=" + redactor.redactText(after.editedArgumentsJson())));
        if (!after.pending()) {
            wake(after);
        }
        return after;
    }

    /**
     * The decider's view against the request now: an approval must name the arguments' hash and the
     * proposed edits' hash (none when none are proposed) exactly; a rejection only what it names.
     */
    private void checkSeen(ApprovalRecord current, Seen seen, boolean approving) {
        String proposal = current.proposedBy() == null ? null : current.executedHash();
        if (approving && seen.argumentsHash() == null) {
            throw ApiProblem.badField(
                            "argumentsHash",
                            "required to approve: the argumentsHash of the approval as you read it (GET"
                                    + " /api/v1/approvals/" + current.id() + "), with its editedArgumentsHash when"
                                    + " edits are proposed; the approval then covers exactly what you were shown")
                    .with("approvalId", current.id());
        }
        if (seen.argumentsHash() != null && !seen.argumentsHash().equals(current.argumentsHash())) {
            throw changed(current, "its arguments are not the ones you were shown");
        }
        boolean checkEdits = approving || seen.editedArgumentsHash() != null;
        if (checkEdits && !Objects.equals(seen.editedArgumentsHash(), proposal)) {
            throw changed(
                    current,
                    proposal == null
                            ? "no edits are proposed on it (you were shown some)"
                            : seen.editedArgumentsHash() == null
                                    ? current.proposedBy() + " proposed edits you were not shown"
                                    : current.proposedBy() + " changed the proposed edits since you read them");
        }
    }

    /** 409: the request shows something else than the decider saw; they must read it again. */
    private static ApiProblem changed(ApprovalRecord now, String why) {
        String proposal = now.proposedBy() == null ? null : now.executedHash();
        ApiProblem p = new ApiProblem(
                        HttpStatus.CONFLICT,
                        "approval-changed",
                        "Approval changed since you read it",
                        "approval " + now.id() + " of " + now.tool() + " changed since you read it: " + why
                                + ". Nothing was decided or run; read it again (GET /api/v1/approvals/" + now.id()
                                + ") and decide on what it shows now.")
                .with("approvalId", now.id())
                .with("approvalStatus", now.status())
                .with("argumentsHash", String.valueOf(now.argumentsHash()));
        if (proposal != null) {
            p.with("editedArgumentsHash", proposal).with("proposedBy", String.valueOf(now.proposedBy()));
        }
        return p;
    }

    /**
     * The run ended: marks its pending requests as canceled, and forgets its approvers' edits in the
     * clear ({@link #forgetEditsOfRun}).
     */
    public void cancelPendingOfRun(String runId, String reason) {
        forgetEditsOfRun(runId);
        for (ApprovalRecord r : store.pendingOfRun(runId)) {
            if (store.decide(r.id(), ApprovalRecord.CANCELED, null, null, reason, SYSTEM, clock.instant())) {
                CompletableFuture<ApprovalDecision> f = waiting.remove(r.id());
                if (f != null) {
                    f.complete(new ApprovalDecision.Rejected(reason, "system"));
                }
            }
        }
    }

    /**
     * What the run waits for is over (its incident resolved): its pending requests are closed as
     * superseded with {@code reason}, audited, and the run's waits answered as refused with the
     * reason. Not "aborted": an abort stops the run's scope by interrupting its threads, and an
     * interrupt that lands in a file write closes the embedded database (issue 23, finding 1).
     * Returns how many were pending.
     */
    public int supersedePendingOfRun(String runId, String reason, String actor) {
        int n = 0;
        for (ApprovalRecord r : store.pendingOfRun(runId)) {
            if (!store.supersede(r.id(), ApprovalRecord.PENDING, null, reason, clock.instant())) {
                continue; // decided meanwhile: that decision stands
            }
            n++;
            audit.record(actor, "approval.supersede", r.id(), "run=" + runId + " tool=" + r.tool() + " " + reason);
            log.info("Approval {} for {} in run {}: {}", r.id(), r.tool(), runId, reason);
            CompletableFuture<ApprovalDecision> f = waiting.remove(r.id());
            if (f != null) {
                f.complete(new ApprovalDecision.Rejected(reason, "system"));
            }
        }
        return n;
    }

    /**
     * Keeps a finished run's approver edits only redacted: they were stored as given only so that a
     * resumed run could still execute them; {@code executed_hash} keeps what ran.
     */
    public void forgetEditsOfRun(String runId) {
        for (ApprovalRecord r : store.withEditsOfRun(runId)) {
            String redacted =
                    redactor.redact(json.readTree(r.editedArgumentsJson())).toString();
            if (!redacted.equals(r.editedArgumentsJson())) {
                store.replaceEdits(r.id(), redacted);
            }
        }
    }

    /**
     * Expires requests past their deadline and wakes runs whose request was decided elsewhere
     * (another instance, or just before this one registered).
     */
    @Scheduled(fixedDelayString = "${cadre.approvals.sweep-interval:PT1S}")
    public void sweep() {
        Instant now = clock.instant();
        for (ApprovalRecord r : store.expiredPending(now)) {
            if (store.decide(r.id(), ApprovalRecord.EXPIRED, null, null, "no decision within " + timeout, null, now)) {
                audit.record("system", "approval.expire", r.id(), "run=" + r.runId() + " tool=" + r.tool());
                log.info("Approval {} for {} in run {} expired", r.id(), r.tool(), r.runId());
                store.find(r.id()).ifPresent(this::wake);
            }
        }
        for (String id : List.copyOf(waiting.keySet())) {
            store.find(id).filter(r -> !r.pending()).ifPresent(this::wake);
        }
    }

    private void wake(ApprovalRecord decided) {
        CompletableFuture<ApprovalDecision> f = waiting.remove(decided.id());
        Duration waited = Duration.between(
                decided.createdAt(), decided.decidedAt() == null ? clock.instant() : decided.decidedAt());
        if (f != null && f.complete(toDecision(decided))) {
            listeners.forEach(l -> l.decided(decided, waited));
        }
    }

    private ApprovalDecision toDecision(ApprovalRecord r) {
        return switch (r.status()) {
            case ApprovalRecord.APPROVED ->
                // Bound to the action shown: the loop refuses it for any other.
                r.editedArgumentsJson() == null
                        ? new ApprovalDecision.Approved(r.decidedBy(), r.argumentsHash())
                        : new ApprovalDecision.ApprovedWithEdits(
                                json.readTree(r.editedArgumentsJson()), r.decidedBy(), r.argumentsHash());
            case ApprovalRecord.REJECTED, ApprovalRecord.CANCELED, ApprovalRecord.SUPERSEDED ->
                new ApprovalDecision.Rejected(r.comment() == null ? "rejected" : r.comment(), r.decidedBy());
            case ApprovalRecord.EXPIRED -> new ApprovalDecision.Expired();
            case ApprovalRecord.ABORTED ->
                new ApprovalDecision.Aborted(r.comment() == null ? "aborted" : r.comment(), r.decidedBy());
            default -> throw new IllegalStateException("approval " + r.id() + " is still " + r.status());
        };
    }

    private static ApiProblem alreadyDecided(ApprovalRecord r) {
        return new ApiProblem(
                        HttpStatus.CONFLICT,
                        "approval-already-decided",
                        "Approval already decided",
                        "approval " + r.id() + " is " + r.status()
                                + (r.decidedBy() == null ? "" : " (by " + r.decidedBy() + " at " + r.decidedAt() + ")"))
                .with("approvalStatus", r.status());
    }

    private static @Nullable String truncate(@Nullable String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
