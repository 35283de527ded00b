package dev.cadre.platform.runs;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.security.Actor;
import dev.cadre.platform.tenancy.TeamId;
import dev.cadre.platform.tenancy.TeamScope;
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
    static final int MAX_IDEMPOTENCY_KEY_CHARS = 200;

    private final RunStore store;
    private final RunQueue queue;
    private final RunExecutor executor;
    private final AgentCatalog catalog;
    private final ApprovalService approvals;
    private final AuditLog audit;
    private final Clock clock;
    private final TimeOrderedIds ids;
    private final int maxResumes;
    private final RunDeadlines deadlines;
    private final RunPreparer preparer;

    public RunService(
            RunStore store,
            RunQueue queue,
            RunExecutor executor,
            AgentCatalog catalog,
            ApprovalService approvals,
            AuditLog audit,
            Clock clock,
            int maxResumes,
            RunDeadlines deadlines) {
        this(store, queue, executor, catalog, approvals, audit, clock, maxResumes, deadlines, RunPreparer.NONE);
    }

    /** A service whose recovery sweep asks {@code preparer} about each run it would resume (replays). */
    public RunService(
            RunStore store,
            RunQueue queue,
            RunExecutor executor,
            AgentCatalog catalog,
            ApprovalService approvals,
            AuditLog audit,
            Clock clock,
            int maxResumes,
            RunDeadlines deadlines,
            RunPreparer preparer) {
        this.preparer = preparer;
        this.deadlines = deadlines;
        this.store = store;
        this.queue = queue;
        this.executor = executor;
        this.catalog = catalog;
        this.approvals = approvals;
        this.audit = audit;
        this.clock = clock;
        this.ids = new TimeOrderedIds(clock);
        this.maxResumes = maxResumes;
    }

    /** The outcome of a submission: the run, and whether this call created it. */
    public record Submitted(RunRecord run, boolean created) {}

    /**
     * The task envelope of a submission (seed 003): the run it retries, its priority (higher runs
     * are taken from the queue first) and a deadline past which it fails with {@code TIMEOUT_ERROR}.
     */
    public record Envelope(
            @Nullable String retryOf,
            int priority,
            @Nullable Instant deadline,
            @Nullable Double maxCost) {
        /** No retry link, normal priority, no deadline, no budget in currency. */
        public static final Envelope NONE = new Envelope(null, 0, null, null);

        /** An envelope without a budget in currency. */
        public Envelope(@Nullable String retryOf, int priority, @Nullable Instant deadline) {
            this(retryOf, priority, deadline, null);
        }

        /** The priority names callers use, lowest first; {@code normal} is 0. */
        public static final List<String> PRIORITIES = List.of("low", "normal", "high", "urgent");

        /** The stored number of a priority name: low -1, normal 0, high 1, urgent 2. */
        public static int priority(@Nullable String name, String field) {
            if (name == null || name.isBlank()) {
                return 0;
            }
            int i = PRIORITIES.indexOf(name.trim().toLowerCase(java.util.Locale.ROOT));
            if (i < 0) {
                throw ApiProblem.badField(field, "'" + name + "' is not one of " + PRIORITIES)
                        .with("value", name);
            }
            return i - 1;
        }

        /** The name of a stored priority. */
        public static String priorityName(int priority) {
            return PRIORITIES.get(Math.max(0, Math.min(PRIORITIES.size() - 1, priority + 1)));
        }
    }

    public Submitted submit(
            String agent, String input, @Nullable String context, Actor submitter, @Nullable String idempotencyKey) {
        return submit(agent, input, context, submitter, idempotencyKey, Envelope.NONE);
    }

    /**
     * Accepts a run with its task envelope: priority, deadline, the run it retries, and its budget
     * in the price table's currency ({@code maxCost}, null: none), which stops it with {@code
     * BUDGET_EXCEEDED} ({@code cost_budget}) once its model calls cost more.
     */
    public Submitted submit(
            String agent,
            String input,
            @Nullable String context,
            Actor submitter,
            @Nullable String idempotencyKey,
            Envelope envelope) {
        return submit(TeamId.DEFAULT, agent, input, context, submitter, idempotencyKey, envelope);
    }

    /** Accepts a run of team {@code owner}, whose callers alone will see it. */
    public Submitted submit(
            TeamId owner,
            String agent,
            String input,
            @Nullable String context,
            Actor submitter,
            @Nullable String idempotencyKey,
            Envelope envelope) {
        return submit(owner, agent, input, context, submitter, idempotencyKey, envelope, null, run -> {});
    }

    /**
     * Accepts a run of another team than the running one (a replay against a candidate): {@code
     * runnable} says which agents that team can start, and {@code beforeStore} is called with the run
     * (its id assigned) before it is stored and queued, so what marks it (a replay's recording) is
     * durable before the run can ever execute or be recovered.
     */
    public Submitted submitPrepared(
            String agent,
            String input,
            @Nullable String context,
            Actor submitter,
            Envelope envelope,
            java.util.function.Predicate<String> runnable,
            java.util.function.Consumer<RunRecord> beforeStore) {
        return submit(TeamId.DEFAULT, agent, input, context, submitter, null, envelope, runnable, beforeStore);
    }

    private Submitted submit(
            TeamId owner,
            String agent,
            String input,
            @Nullable String context,
            Actor submitter,
            @Nullable String idempotencyKey,
            Envelope envelope,
            java.util.function.@Nullable Predicate<String> team,
            java.util.function.Consumer<RunRecord> beforeStore) {
        Double maxCost = envelope.maxCost();
        if (maxCost != null && !(maxCost > 0 && Double.isFinite(maxCost))) {
            throw ApiProblem.badField("budget.maxCost", "must be a number above 0 (in cadre.models.currency)");
        }
        if (agent == null || agent.isBlank()) {
            throw ApiProblem.badField("agent", "required: the name of a configured agent (GET /api/v1/agents)");
        }
        if (team == null && catalog.runnable(agent) && catalog.isInternal(agent)) {
            // Entry-only gateway (seed 004): an internal agent or workflow is a worker or step, and to
            // a caller it does not exist.
            throw ApiProblem.notFound("agent", agent);
        }
        if (team == null ? !catalog.runnable(agent) : !team.test(agent)) {
            throw ApiProblem.badField(
                            "agent",
                            "unknown agent or workflow '" + agent + "' (configured: "
                                    + (team == null ? catalog.entryPoints() : "in the team replayed") + ")")
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
        if (idempotencyKey != null
                && (idempotencyKey.isBlank() || idempotencyKey.length() > MAX_IDEMPOTENCY_KEY_CHARS)) {
            throw ApiProblem.badHeader("Idempotency-Key", "must be 1 to 200 characters");
        }
        if (envelope.deadline() != null && !envelope.deadline().isAfter(clock.instant())) {
            throw ApiProblem.badField("deadline", "'" + envelope.deadline() + "' has already passed")
                    .with("value", envelope.deadline().toString());
        }
        String hash = hash(agent + "\u0000" + input + "\u0000" + (context == null ? "" : context));
        if (idempotencyKey != null) {
            // Scoped by the submitting key's id: another key never gets this key's run, whatever its name.
            var existing = store.findByIdempotencyKey(submitter, idempotencyKey);
            if (existing.isPresent()) {
                return replay(existing.get(), hash, idempotencyKey);
            }
        }
        Instant now = clock.instant();
        RunRecord run = new RunRecord(
                "run_" + ids.nextHex(),
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
                submitter.name(),
                idempotencyKey,
                hash,
                null,
                null,
                0,
                now,
                null,
                null,
                now,
                envelope.retryOf(),
                envelope.priority(),
                envelope.deadline(),
                0,
                maxCost,
                submitter.keyId(),
                owner.name());
        beforeStore.accept(run);
        try {
            SpanContext caller = Span.current().getSpanContext();
            run = store.insert(
                    run,
                    caller.isValid()
                            ? "00-" + caller.getTraceId() + "-" + caller.getSpanId() + "-"
                                    + caller.getTraceFlags().asHex()
                            : null);
        } catch (DuplicateKeyException raced) {
            return replay(store.findByIdempotencyKey(submitter, idempotencyKey).orElseThrow(), hash, idempotencyKey);
        }
        queue.enqueue(run.id(), run.priority());
        deadlines.watch(run);
        // Every entry point (REST, A2A, Alertmanager) submits here: one place audits them all.
        audit.record(submitter.name(), "run.submit", run.id(), "agent=" + agent);
        return new Submitted(run, true);
    }

    /**
     * Starts a new run of an ended run's agent (or workflow) with the same input, context and
     * priority, linked to it ({@code retryOf}); 409 while the original has not ended.
     */
    public Submitted retry(TeamScope scope, String id, Actor actor) {
        RunRecord original = get(scope, id);
        if (!original.status().terminal()) {
            throw new ApiProblem(
                            HttpStatus.CONFLICT,
                            "run-not-finished",
                            "Run not finished",
                            "run " + id + " is still " + original.status().wire() + "; retry it once it has ended")
                    .with("runStatus", original.status().wire());
        }
        Submitted retried = submit(
                original.teamId(),
                original.agent(),
                original.input(),
                original.context(),
                actor,
                null,
                new Envelope(original.id(), original.priority(), null, original.maxCost()));
        audit.record(actor.name(), "run.retry", retried.run().id(), "retryOf=" + id + " agent=" + original.agent());
        return retried;
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

    /** Whether {@code name} is a declared workflow callers may start (internal ones are not). */
    public boolean isWorkflow(String name) {
        return catalog.workflow(name).filter(w -> !w.internal()).isPresent();
    }

    /** The run {@code id} if {@code scope} sees it; 404 otherwise, exactly as for a run that never was. */
    public RunRecord get(TeamScope scope, String id) {
        return store.find(scope, id).orElseThrow(() -> ApiProblem.notFound("run", id));
    }

    public List<RunRecord> list(TeamScope scope, RunStore.Query query) {
        return store.list(scope, query);
    }

    public long count(TeamScope scope, RunStore.Query query) {
        return store.count(scope, query);
    }

    /** Runs matching {@code query} from its {@code after} on, counted up to {@code cap}. */
    public long countUpTo(TeamScope scope, RunStore.Query query, int cap) {
        return store.countUpTo(scope, query, cap);
    }

    /** Cancels a run {@code scope} sees that has not ended; 409 when it already has. */
    public RunRecord cancel(TeamScope scope, String id, String actor) {
        RunRecord run = get(scope, id);
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
        return get(scope, id);
    }

    /**
     * Ends a run that waits for a human about something that is over (its incident resolved): its
     * pending approvals are closed as superseded with {@code reason} and it ends {@code completed}
     * with that reason as its answer, audited. A run that is not waiting for a human is left alone
     * (a working run finds its incident resolved at its next step). True when the run was ended.
     */
    public boolean endWaiting(String id, String reason, String actor) {
        RunRecord run = store.find(id).orElse(null);
        if (run == null || run.status() != RunStatus.INPUT_REQUIRED) {
            return false;
        }
        audit.record(actor, "run.end", id, "agent=" + run.agent() + " status=completed reason=" + reason);
        if (!executor.endLocal(id, reason)) {
            // Interrupted, or waiting on another instance (whose heartbeat sees the run ended and
            // stops it there): end it here.
            executor.endWithoutExecuting(run, reason);
        }
        approvals.supersedePendingOfRun(id, reason, actor);
        log.info("Run {} ({}) ended: {}", id, run.agent(), reason);
        return true;
    }

    /**
     * Picks up runs left unfinished: at start-up those a previous process (of this instance) left,
     * later any whose executor stopped renewing its lease. Each resumes from its last checkpoint
     * (or starts again if it never got one), at most {@code maxResumes} times; after that, or when
     * its agent is gone, it fails with a category. No run stays {@code working} forever.
     */
    public int recover(boolean startup, java.time.Duration minAge) {
        int n = 0;
        int scanned = 0;
        RunStore.Orphan after = null;
        // Walks past the runs this instance holds (a deep queue in a burst) instead of stopping at
        // the first page of them, so a run whose executor truly went silent is found behind them.
        while (n < RECOVER_BATCH && scanned < RECOVER_SCAN_LIMIT) {
            List<RunStore.Orphan> page =
                    store.orphans(minAge, startup ? executor.instanceId() : null, after, RECOVER_BATCH);
            for (RunStore.Orphan orphan : page) {
                scanned++;
                after = orphan;
                // Waiting in this instance's queue or executing here: its executor (this one) is
                // alive. Re-enqueuing it re-read its whole row every sweep for nothing (issue 27 item 2).
                if (!queue.holds(orphan.id()) && !executor.isActive(orphan.id()) && recoverOne(orphan.id(), startup)) {
                    n++;
                }
            }
            if (page.size() < RECOVER_BATCH) {
                break;
            }
        }
        return n;
    }

    private static final int RECOVER_BATCH = 500;
    private static final int RECOVER_SCAN_LIMIT = 200_000;

    /** Re-enqueues (or ends) one run nobody executes; true when it was handed to the queue again. */
    private boolean recoverOne(String id, boolean startup) {
        RunRecord run = store.find(id).orElse(null);
        if (run == null || run.status().terminal()) {
            return false;
        }
        if (run.deadline() != null && !run.deadline().isAfter(clock.instant())) {
            // Past its deadline while nobody executed it (down, or queued): failed, not executed.
            deadlines.expire(run.id(), startup ? executor.instanceId() : null);
            return false;
        }
        RunPreparer.Preparation prepared = preparer.prepare(run);
        if (prepared instanceof RunPreparer.Preparation.Refused refused) {
            // e.g. a replay whose recording cannot be read again: never resumed as an ordinary run.
            executor.fail(run, refused.failure());
            return false;
        }
        if (!(prepared instanceof RunPreparer.Preparation.Runner) && !catalog.runnable(run.agent())) {
            executor.fail(
                    run,
                    new Failure(
                            FailureCategory.ORCHESTRATION_ERROR,
                            "agent_removed",
                            "agent '" + run.agent() + "' is no longer configured; the interrupted run cannot resume"));
            return false;
        }
        if (run.resumeCount() >= maxResumes) {
            executor.fail(
                    run,
                    new Failure(
                            FailureCategory.EXECUTION_ERROR,
                            "interrupted",
                            "interrupted " + run.resumeCount() + " times; not resumed again"));
            return false;
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
        queue.enqueue(run.id(), run.priority());
        deadlines.watch(run);
        return true;
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
