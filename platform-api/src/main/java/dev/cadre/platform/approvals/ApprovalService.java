package dev.cadre.platform.approvals;

import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.web.ApiProblem;
import dev.cadre.platform.web.PageCursor;
import dev.cadre.platform.web.SecretRedactor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
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
 * The durable approval gate. A request is a row keyed by (run, session, call), so a run resumed
 * after a restart asks again and finds the same request — pending, or already decided. Waiting runs
 * are woken in-process at once, and by a sweep that also notices decisions taken by another
 * instance and expires requests nobody answered ({@code HUMAN_INTERVENTION_TIMEOUT}).
 */
@Service
public class ApprovalService implements ApprovalGate {

    private static final Logger log = LoggerFactory.getLogger(ApprovalService.class);

    private final ApprovalStore store;
    private final AuditLog audit;
    private final JsonMapper json;
    private final SecretRedactor redactor;
    private final Clock clock;
    private final Duration timeout;
    private final Map<String, CompletableFuture<ApprovalDecision>> waiting = new ConcurrentHashMap<>();
    private final List<ApprovalListener> listeners;

    ApprovalService(
            ApprovalStore store,
            AuditLog audit,
            JsonMapper json,
            SecretRedactor redactor,
            Clock clock,
            @Value("${cadre.approvals.timeout:PT30M}") Duration timeout,
            List<ApprovalListener> listeners) {
        this.store = store;
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

        record Reject(@Nullable String comment) implements Decision {}
    }

    @Override
    public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
        Instant now = clock.instant();
        ApprovalRecord stored = store.insertIfAbsent(new ApprovalRecord(
                UUID.randomUUID().toString(),
                request.runId(),
                request.sessionId(),
                request.callId(),
                request.agent(),
                request.tool(),
                redactor.redact(request.arguments()).toString(),
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
                now.plus(timeout)));
        if (!stored.pending()) {
            return CompletableFuture.completedFuture(toDecision(stored));
        }
        listeners.forEach(l -> l.requested(stored));
        CompletableFuture<ApprovalDecision> future =
                waiting.computeIfAbsent(stored.id(), id -> new CompletableFuture<>());
        // The decision may have landed between the insert and the registration.
        store.find(stored.id()).filter(r -> !r.pending()).ifPresent(this::wake);
        return future;
    }

    public ApprovalRecord get(String id) {
        return store.find(id).orElseThrow(() -> ApiProblem.notFound("approval", id));
    }

    /** Newest first, continuing after {@code after} (keyset paging). */
    public List<ApprovalRecord> list(
            @Nullable String status, @Nullable String runId, @Nullable PageCursor after, int limit) {
        return store.list(status, runId, after, limit);
    }

    public long pendingCount() {
        return store.countPending();
    }

    /** Applies an operator's decision; 409 when the request is no longer pending. */
    public ApprovalRecord decide(String id, Decision decision, String actor) {
        ApprovalRecord current = get(id);
        if (!current.pending()) {
            throw alreadyDecided(current);
        }
        Instant now = clock.instant();
        boolean applied = switch (decision) {
            case Decision.Approve a -> {
                if (a.editedArguments() != null && !a.editedArguments().isObject()) {
                    throw ApiProblem.badField("arguments", "edited arguments must be a JSON object");
                }
                yield store.decide(
                        id,
                        ApprovalRecord.APPROVED,
                        a.editedArguments() == null ? null : a.editedArguments().toString(),
                        a.comment(),
                        actor,
                        now);
            }
            case Decision.Reject r ->
                store.decide(
                        id,
                        ApprovalRecord.REJECTED,
                        null,
                        r.comment() == null || r.comment().isBlank() ? "rejected by " + actor : r.comment(),
                        actor,
                        now);
        };
        ApprovalRecord after = get(id);
        if (!applied) {
            throw alreadyDecided(after);
        }
        String action = switch (decision) {
            case Decision.Approve a -> a.editedArguments() == null ? "approval.approve" : "approval.approve_with_edits";
            case Decision.Reject r -> "approval.reject";
        };
        audit.record(
                actor,
                action,
                id,
                "run=" + after.runId() + " tool=" + after.tool() + " call=" + after.callId()
                        + (after.comment() == null ? "" : " comment=" + after.comment())
                        + (after.editedArgumentsJson() == null
                                ? ""
                                : " arguments=" + redactor.redactText(after.editedArgumentsJson())));
        wake(after);
        return after;
    }

    /** Marks a run's pending requests as canceled (the run ended without them). */
    public void cancelPendingOfRun(String runId, String reason) {
        for (ApprovalRecord r : store.pendingOfRun(runId)) {
            if (store.decide(r.id(), ApprovalRecord.CANCELED, null, reason, "system", clock.instant())) {
                CompletableFuture<ApprovalDecision> f = waiting.remove(r.id());
                if (f != null) {
                    f.complete(new ApprovalDecision.Rejected(reason, "system"));
                }
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
            if (store.decide(r.id(), ApprovalRecord.EXPIRED, null, "no decision within " + timeout, null, now)) {
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
                r.editedArgumentsJson() == null
                        ? new ApprovalDecision.Approved(r.decidedBy())
                        : new ApprovalDecision.ApprovedWithEdits(json.readTree(r.editedArgumentsJson()), r.decidedBy());
            case ApprovalRecord.REJECTED, ApprovalRecord.CANCELED ->
                new ApprovalDecision.Rejected(r.comment() == null ? "rejected" : r.comment(), r.decidedBy());
            case ApprovalRecord.EXPIRED -> new ApprovalDecision.Expired();
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
