package dev.cadre.platform.runs;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.web.ApiProblem;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.http.HttpStatus;

/**
 * Accepts, lists and cancels runs. A run is stored before it is queued, so an accepted run
 * (202) is never lost: a crash before it executes leaves it {@code submitted}, and recovery
 * queues it again.
 */
public final class RunService {

    private static final Logger log = LoggerFactory.getLogger(RunService.class);
    static final int MAX_INPUT_CHARS = 100_000;

    private final RunStore store;
    private final RunQueue queue;
    private final RunExecutor executor;
    private final AgentCatalog catalog;
    private final ApprovalService approvals;
    private final AuditLog audit;
    private final Clock clock;
    private final int maxResumes;

    public RunService(
            RunStore store,
            RunQueue queue,
            RunExecutor executor,
            AgentCatalog catalog,
            ApprovalService approvals,
            AuditLog audit,
            Clock clock,
            int maxResumes) {
        this.store = store;
        this.queue = queue;
        this.executor = executor;
        this.catalog = catalog;
        this.approvals = approvals;
        this.audit = audit;
        this.clock = clock;
        this.maxResumes = maxResumes;
    }

    /** The outcome of a submission: the run, and whether this call created it. */
    public record Submitted(RunRecord run, boolean created) {}

    public Submitted submit(
            String agent, String input, @Nullable String context, String submittedBy, @Nullable String idempotencyKey) {
        return submit(agent, input, context, submittedBy, idempotencyKey, null);
    }

    /**
     * Submits a run; {@code maxCost} is its budget in the price table's currency (null: none), which
     * stops it with {@code BUDGET_EXCEEDED} ({@code cost_budget}) once its model calls cost more.
     */
    public Submitted submit(
            String agent,
            String input,
            @Nullable String context,
            String submittedBy,
            @Nullable String idempotencyKey,
            @Nullable Double maxCost) {
        if (maxCost != null && !(maxCost > 0 && Double.isFinite(maxCost))) {
            throw ApiProblem.badField("budget.maxCost", "must be a number above 0 (in cadre.models.currency)");
        }
        if (agent == null || agent.isBlank()) {
            throw ApiProblem.badField("agent", "required: the name of a configured agent (GET /api/v1/agents)");
        }
        if (catalog.find(agent).isEmpty()) {
            throw ApiProblem.badField(
                            "agent",
                            "unknown agent '" + agent + "' (configured: "
                                    + catalog.specs().stream()
                                            .map(s -> s.name())
                                            .toList() + ")")
                    .with("value", agent);
        }
        if (input == null || input.isBlank()) {
            throw ApiProblem.badField("input", "required: what the agent should do");
        }
        if (input.length() > MAX_INPUT_CHARS) {
            throw ApiProblem.badField("input", "at most " + MAX_INPUT_CHARS + " characters");
        }
        if (context != null && context.length() > MAX_INPUT_CHARS) {
            throw ApiProblem.badField("context", "at most " + MAX_INPUT_CHARS + " characters");
        }
        if (idempotencyKey != null && (idempotencyKey.isBlank() || idempotencyKey.length() > 200)) {
            throw ApiProblem.badHeader("Idempotency-Key", "must be 1 to 200 characters");
        }
        String hash = hash(agent + "\u0000" + input + "\u0000" + (context == null ? "" : context));
        if (idempotencyKey != null) {
            var existing = store.findByIdempotencyKey(submittedBy, idempotencyKey);
            if (existing.isPresent()) {
                return replay(existing.get(), hash, idempotencyKey);
            }
        }
        Instant now = clock.instant();
        RunRecord run = new RunRecord(
                        "run_" + UUID.randomUUID().toString().replace("-", ""),
                        agent,
                        input,
                        context,
                        RunStatus.SUBMITTED,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        0,
                        0,
                        0,
                        submittedBy,
                        idempotencyKey,
                        hash,
                        null,
                        null,
                        0,
                        now,
                        null,
                        null,
                        now)
                .withMaxCost(maxCost);
        try {
            store.insert(run);
            SpanContext caller = Span.current().getSpanContext();
            if (caller.isValid()) {
                store.setTraceParent(
                        run.id(),
                        "00-" + caller.getTraceId() + "-" + caller.getSpanId() + "-"
                                + caller.getTraceFlags().asHex());
            }
        } catch (DuplicateKeyException raced) {
            return replay(
                    store.findByIdempotencyKey(submittedBy, idempotencyKey).orElseThrow(), hash, idempotencyKey);
        }
        queue.enqueue(run.id());
        // Every entry point (REST, A2A, Alertmanager) submits here: one place audits them all.
        audit.record(submittedBy, "run.submit", run.id(), "agent=" + agent);
        return new Submitted(run, true);
    }

    private static Submitted replay(RunRecord existing, String hash, String key) {
        if (!hash.equals(existing.requestHash())) {
            throw new ApiProblem(
                            HttpStatus.UNPROCESSABLE_CONTENT,
                            "idempotency-key-reused",
                            "Idempotency-Key reused",
                            "Idempotency-Key '" + key + "' was already used for a different request (run "
                                    + existing.id() + ")")
                    .with("header", "Idempotency-Key")
                    .with("runId", existing.id());
        }
        return new Submitted(existing, false);
    }

    public RunRecord get(String id) {
        return store.find(id).orElseThrow(() -> ApiProblem.notFound("run", id));
    }

    public List<RunRecord> list(RunStore.Query query) {
        return store.list(query);
    }

    public long count(RunStore.Query query) {
        return store.count(query);
    }

    /** Cancels a run that has not ended; 409 when it already has. */
    public RunRecord cancel(String id, String actor) {
        RunRecord run = get(id);
        if (run.status().terminal()) {
            throw new ApiProblem(
                            HttpStatus.CONFLICT,
                            "run-finished",
                            "Run already finished",
                            "run " + id + " is already " + run.status().wire() + "; nothing to cancel")
                    .with("runStatus", run.status().wire());
        }
        audit.record(
                actor,
                "run.cancel",
                id,
                "agent=" + run.agent() + " status=" + run.status().wire());
        if (!executor.cancelLocal(id)) {
            // Queued, interrupted, or executing on another instance (whose heartbeat sees the run
            // ended and stops it there): end it here.
            store.finish(
                    null,
                    id,
                    RunStatus.CANCELED,
                    null,
                    null,
                    "canceled",
                    "canceled by " + actor,
                    null,
                    null,
                    run.inputTokens(),
                    run.outputTokens(),
                    run.iterations());
            approvals.cancelPendingOfRun(id, "run canceled by " + actor);
        }
        return get(id);
    }

    /**
     * Picks up runs left unfinished: at start-up those a previous process (of this instance) left,
     * later any whose executor stopped renewing its lease. Each resumes from its last checkpoint
     * (or starts again if it never got one), at most {@code maxResumes} times; after that, or when
     * its agent is gone, it fails with a category. No run stays {@code working} forever.
     */
    public int recover(boolean startup, java.time.Duration minAge) {
        int n = 0;
        for (String id : store.orphans(minAge, startup ? executor.instanceId() : null, 500)) {
            if (executor.isActive(id)) {
                continue;
            }
            RunRecord run = store.find(id).orElse(null);
            if (run == null || run.status().terminal()) {
                continue;
            }
            if (catalog.find(run.agent()).isEmpty()) {
                executor.fail(
                        run,
                        new Failure(
                                FailureCategory.ORCHESTRATION_ERROR,
                                "agent_removed",
                                "agent '" + run.agent()
                                        + "' is no longer configured; the interrupted run cannot resume"));
                continue;
            }
            if (run.resumeCount() >= maxResumes) {
                executor.fail(
                        run,
                        new Failure(
                                FailureCategory.EXECUTION_ERROR,
                                "interrupted",
                                "interrupted " + run.resumeCount() + " times; not resumed again"));
                continue;
            }
            if (run.status() != RunStatus.SUBMITTED) {
                store.incrementResumeCount(run.id());
                log.info(
                        "Resuming run {} ({}, {}) from {}",
                        run.id(),
                        run.agent(),
                        run.status().wire(),
                        run.checkpoint() == null ? "the start" : "its last checkpoint");
            }
            queue.enqueue(run.id());
            n++;
        }
        return n;
    }

    static String hash(String s) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
