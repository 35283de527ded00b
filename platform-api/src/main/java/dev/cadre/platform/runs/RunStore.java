package dev.cadre.platform.runs;

import dev.cadre.platform.agents.AgentRunHistory;
import dev.cadre.platform.security.Actor;
import dev.cadre.platform.tenancy.AcrossTeams;
import dev.cadre.platform.tenancy.TeamOwned;
import dev.cadre.platform.tenancy.TeamScope;
import dev.cadre.platform.web.PageCursor;
import dev.cadre.platform.web.SecretRedactor;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Persistence of runs. Every state change is one guarded UPDATE ("… WHERE status IN (…)"), so the
 * run's own thread, an API cancel and the recovery sweep can race without overwriting each other:
 * the loser's update matches no row and it learns that the run moved on.
 *
 * <p>The only class that reads or writes {@code cadre_run}: other packages ask through the query
 * methods here (the statistics ones are each one seam, to be rewritten for scale on their own).
 */
@Repository
@TeamOwned
public class RunStore implements AgentRunHistory {

    private static final String COLUMNS = "id, agent, input, context, status, result, failure_category, failure_code,"
            + " failure_message, subagents, tools_called, input_tokens, output_tokens, iterations, submitted_by,"
            + " idempotency_key, request_hash, trace_id, checkpoint, resume_count, created_at, started_at, finished_at,"
            + " updated_at, retry_of, priority, deadline, cost, max_cost, redacted, submitted_by_key, team";

    /** What {@code submitted_by_key} holds for a submitter that is no key (V40: the index needs a value). */
    private static final String NO_KEY = "";

    /** The list's columns: not {@code checkpoint}, which can be large and a list never shows. */
    private static final String LIST_COLUMNS = COLUMNS.replace(" checkpoint,", " NULL AS checkpoint,");

    private final JdbcClient jdbc;
    private final Clock clock;
    private final JsonMapper json;
    private final RunRollups rollups;
    private final TransactionTemplate transactions;
    private final SecretRedactor redactor;

    private final EndingFaults faults;

    /** Which runs are replays: they are not counted in the statistics (the console's overview). */
    private final java.util.function.Supplier<RunMarks> marks;

    @org.springframework.beans.factory.annotation.Autowired
    RunStore(
            JdbcClient jdbc,
            Clock clock,
            JsonMapper json,
            PlatformTransactionManager transactionManager,
            SecretRedactor redactor,
            org.springframework.beans.factory.ObjectProvider<EndingFaults> faults,
            org.springframework.beans.factory.ObjectProvider<RunMarks> marks) {
        this(
                jdbc,
                clock,
                json,
                transactionManager,
                redactor,
                faults.getIfAvailable(() -> EndingFaults.NONE),
                () -> marks.getIfAvailable(() -> RunMarks.NONE));
    }

    /** A store without fault points (tests that build one themselves). */
    RunStore(
            JdbcClient jdbc,
            Clock clock,
            JsonMapper json,
            PlatformTransactionManager transactionManager,
            SecretRedactor redactor) {
        this(jdbc, clock, json, transactionManager, redactor, RunMarks.NONE);
    }

    /** A store without fault points whose replay runs are {@code marks}'s (tests that build one themselves). */
    RunStore(
            JdbcClient jdbc,
            Clock clock,
            JsonMapper json,
            PlatformTransactionManager transactionManager,
            SecretRedactor redactor,
            RunMarks marks) {
        this(jdbc, clock, json, transactionManager, redactor, EndingFaults.NONE, () -> marks);
    }

    private RunStore(
            JdbcClient jdbc,
            Clock clock,
            JsonMapper json,
            PlatformTransactionManager transactionManager,
            SecretRedactor redactor,
            EndingFaults faults,
            java.util.function.Supplier<RunMarks> marks) {
        this.redactor = redactor;
        this.faults = faults;
        this.marks = marks;
        this.jdbc = jdbc;
        this.clock = clock;
        this.json = json;
        this.rollups = new RunRollups(jdbc, json);
        this.transactions = new TransactionTemplate(transactionManager);
    }

    /**
     * Filters of the run list; null fields do not filter. {@code after}: the last run of the
     * previous page (keyset paging, newest first); {@code offset}: rows to skip, which no
     * caller pages with any more (its cost grows with the depth).
     */
    public record Query(
            @Nullable RunStatus status,
            @Nullable String agent,
            @Nullable Instant from,
            @Nullable Instant to,
            @Nullable String text,
            @Nullable PageCursor after,
            int offset,
            int limit) {

        public Query(
                @Nullable RunStatus status,
                @Nullable String agent,
                @Nullable Instant from,
                @Nullable Instant to,
                @Nullable String text,
                int offset,
                int limit) {
            this(status, agent, from, to, text, null, offset, limit);
        }
    }

    /** Inserts a run; returns it as stored (its input and context redacted). */
    @AcrossTeams("the run record names its own team")
    public RunRecord insert(RunRecord run) {
        return insert(run, null);
    }

    /**
     * Inserts a run with its submitter's W3C traceparent (see {@link RunExecutor}), in the insert
     * rather than an UPDATE after it: one row version fewer per run (issue #18). The input and
     * context are stored redacted (issue 23): the run works on what is stored, and a read shows it
     * as it is, with no pattern matching per read ({@code redacted} marks such rows; older ones are
     * redacted when read, see {@link #map}). Returns the run as stored.
     */
    @AcrossTeams("the run record names its own team")
    public RunRecord insert(RunRecord run, @Nullable String traceParent) {
        RunRecord stored = run.withTexts(
                redactor.redactInput(run.input()),
                redactor.redactText(run.context()),
                redactor.redactText(run.result()),
                redactor.redactText(run.failureMessage()),
                redactor.redactText(run.subagentsJson()));
        jdbc.sql("INSERT INTO cadre_run (id, agent, input, context, status, submitted_by, submitted_by_key,"
                        + " idempotency_key, request_hash, trace_id, created_at, updated_at, retry_of, priority,"
                        + " deadline, max_cost, trace_parent, redacted, team)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, TRUE, ?)")
                .params(
                        stored.id(),
                        stored.agent(),
                        stored.input(),
                        stored.context(),
                        stored.status().wire(),
                        stored.submittedBy(),
                        stored.submittedByKey() == null ? NO_KEY : stored.submittedByKey(),
                        stored.idempotencyKey(),
                        stored.requestHash(),
                        stored.traceId(),
                        ts(stored.createdAt()),
                        ts(stored.updatedAt()),
                        stored.retryOf(),
                        stored.priority(),
                        ts(stored.deadline()),
                        stored.maxCost(),
                        traceParent,
                        stored.team())
                .update();
        return stored;
    }

    /** Adds what a model call of the run cost (one guarded increment: concurrent subagents add up). */
    @AcrossTeams("the executor, on a run it holds")
    public void addCost(String id, double cost) {
        jdbc.sql("UPDATE cadre_run SET cost = cost + ? WHERE id = ?")
                .params(cost, id)
                .update();
    }

    /** The run {@code id} when {@code scope} sees it: another team's run is as absent as one that never was. */
    public Optional<RunRecord> find(TeamScope scope, String id) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM cadre_run WHERE id = ?");
        List<Object> params = new ArrayList<>(List.of(id));
        team(scope, sql, params);
        return jdbc.sql(sql.toString()).params(params).query(this::map).optional();
    }

    private static void team(TeamScope scope, StringBuilder sql, List<Object> params) {
        scope.team().ifPresent(t -> {
            sql.append(" AND team = ?");
            params.add(t.name());
        });
    }

    /** The run {@code id} whatever its team: for the executor and recovery, which hold the id of a run admitted. */
    @AcrossTeams("the executor, recovery and bookkeeping work on a run by the id they were handed")
    public Optional<RunRecord> find(String id) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM cadre_run WHERE id = ?")
                .param(id)
                .query(this::map)
                .optional();
    }

    /**
     * The run {@code submitter} submitted under idempotency key {@code key}: a key's keys are its
     * own whatever its name (another key of the same name never finds them); a submitter without a
     * key (the platform itself) is scoped by its name.
     */
    @AcrossTeams("idempotency keys are scoped by the submitting key, which acts in one team")
    public Optional<RunRecord> findByIdempotencyKey(Actor submitter, String key) {
        var query = submitter.keyId() == null
                ? jdbc.sql("SELECT " + COLUMNS + " FROM cadre_run WHERE submitted_by_key = '' AND idempotency_key = ?"
                                + " AND submitted_by = ?")
                        .params(key, submitter.name())
                : jdbc.sql("SELECT " + COLUMNS + " FROM cadre_run WHERE submitted_by_key = ? AND idempotency_key = ?"
                                + " ORDER BY created_at, id LIMIT 1")
                        .params(submitter.keyId(), key);
        return query.query(this::map).optional();
    }

    /**
     * A page of runs, newest first ({@code created_at DESC, id DESC}). With {@code after}, the
     * page continues after that run: the index on (…, created_at, id) is read from there, so a
     * page costs the same however deep it is, and runs arriving meanwhile cannot shift it.
     */
    public List<RunRecord> list(TeamScope scope, Query q) {
        StringBuilder sql = new StringBuilder("SELECT " + LIST_COLUMNS + " FROM cadre_run WHERE 1 = 1");
        List<Object> params = new ArrayList<>();
        team(scope, sql, params);
        where(q, sql, params);
        after(q, sql, params);
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT ?");
        params.add(q.limit());
        if (q.offset() > 0) {
            sql.append(" OFFSET ?");
            params.add(q.offset());
        }
        return planned(
                q,
                () -> jdbc.sql(sql.toString()).params(params).query(this::map).list());
    }

    /**
     * Runs a list query; a text search on PostgreSQL is planned for its own pattern. The driver
     * prepares a statement on the server after a few executions, and PostgreSQL then may switch to a
     * generic plan that cannot see the pattern: it assumes some rows match and walks (created_at, id)
     * backwards filtering every run, so a term that matches nothing read the whole table (p90 5 → 37 ms
     * from 1k to 21k runs). With the pattern in view the planner picks the trigram indexes for a rare
     * term and the backward walk, which stops after a page, for a common one.
     */
    private <T> T planned(Query q, java.util.function.Supplier<T> query) {
        if (q.text() == null || q.text().isBlank() || !postgres()) {
            return query.get();
        }
        return transactions.execute(status -> {
            jdbc.sql("SET LOCAL plan_cache_mode = force_custom_plan").update();
            return query.get();
        });
    }

    private volatile @Nullable Boolean postgres;

    private boolean postgres() {
        Boolean p = postgres;
        if (p == null) {
            // Standard SQL both databases answer. Not pg_catalog: H2 in PostgreSQL mode has one too;
            // the TOAST schema is PostgreSQL's own storage and no emulation lists it.
            p = jdbc.sql("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'pg_toast'")
                            .query(Long.class)
                            .single()
                    > 0;
            postgres = p;
        }
        return p;
    }

    /**
     * How many runs match {@code q} from {@code q.after()} on, counting at most {@code cap}: the
     * cost is bounded by the cap, not by the history (A2A's {@code totalSize}).
     */
    public long countUpTo(TeamScope scope, Query q, int cap) {
        StringBuilder sql = new StringBuilder("SELECT COUNT(*) FROM (SELECT id FROM cadre_run WHERE 1 = 1");
        List<Object> params = new ArrayList<>();
        team(scope, sql, params);
        where(q, sql, params);
        after(q, sql, params);
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT ?) capped");
        params.add(cap);
        return planned(
                q,
                () -> jdbc.sql(sql.toString()).params(params).query(Long.class).single());
    }

    private static void after(Query q, StringBuilder sql, List<Object> params) {
        if (q.after() != null) {
            // Spelled so both databases use the (…, created_at, id) index for the range.
            sql.append(" AND created_at <= ? AND (created_at < ? OR id < ?)");
            params.add(ts(q.after().createdAt()));
            params.add(ts(q.after().createdAt()));
            params.add(q.after().id());
        }
    }

    public long count(TeamScope scope, Query q) {
        StringBuilder sql = new StringBuilder("SELECT COUNT(*) FROM cadre_run WHERE 1 = 1");
        List<Object> params = new ArrayList<>();
        team(scope, sql, params);
        where(q, sql, params);
        return jdbc.sql(sql.toString()).params(params).query(Long.class).single();
    }

    private static void where(Query q, StringBuilder sql, List<Object> params) {
        if (q.status() != null) {
            sql.append(" AND status = ?");
            params.add(q.status().wire());
        }
        if (q.agent() != null) {
            sql.append(" AND agent = ?");
            params.add(q.agent());
        }
        if (q.from() != null) {
            sql.append(" AND created_at >= ?");
            params.add(ts(q.from()));
        }
        if (q.to() != null) {
            sql.append(" AND created_at < ?");
            params.add(ts(q.to()));
        }
        if (q.text() != null && !q.text().isBlank()) {
            sql.append(" AND (LOWER(input) LIKE ? OR LOWER(COALESCE(result, '')) LIKE ? OR id = ?)");
            String like = "%" + q.text().toLowerCase(java.util.Locale.ROOT).replace("%", "\\%") + "%";
            params.add(like);
            params.add(like);
            params.add(q.text());
        }
    }

    /** Runs not yet in a terminal state, oldest first. */
    @AcrossTeams("recovery after a restart resumes every team's runs")
    public List<RunRecord> unfinished() {
        return jdbc.sql("SELECT " + COLUMNS
                        + " FROM cadre_run WHERE status IN ('submitted', 'working', 'input-required')"
                        + " ORDER BY created_at")
                .query(this::map)
                .list();
    }

    /** Moves a run between states; false when it was not in one of {@code from}. */
    @AcrossTeams("the executor, on a run it holds")
    public boolean transition(String id, Collection<RunStatus> from, RunStatus to) {
        StringBuilder sql = new StringBuilder("UPDATE cadre_run SET status = ?, updated_at = ?");
        List<Object> params = new ArrayList<>(List.of(to.wire(), ts(clock.instant())));
        if (to == RunStatus.WORKING) {
            sql.append(", started_at = COALESCE(started_at, ?)");
            params.add(ts(clock.instant()));
        }
        if (to.terminal()) {
            // An ended run never resumes: its checkpoint (the largest column) goes in the same update.
            sql.append(", checkpoint = NULL");
        }
        sql.append(" WHERE id = ? AND status IN (");
        params.add(id);
        sql.append(String.join(", ", from.stream().map(s -> "?").toList())).append(")");
        from.forEach(s -> params.add(s.wire()));
        return jdbc.sql(sql.toString()).params(params).update() == 1;
    }

    /** Stores the root loop's checkpoint and progress; false when the lease was lost (fenced out). */
    @AcrossTeams("the executor, on a run it holds")
    public boolean checkpoint(Lease lease, String checkpoint, int iterations, long inputTokens, long outputTokens) {
        Instant now = clock.instant();
        return jdbc.sql("UPDATE cadre_run SET checkpoint = ?, checkpoint_at = ?, iterations = ?, input_tokens = ?,"
                                + " output_tokens = ?, updated_at = ? WHERE id = ? AND owner = ? AND lease_version = ?")
                        .params(
                                checkpoint,
                                ts(now),
                                iterations,
                                inputTokens,
                                outputTokens,
                                ts(now),
                                lease.runId(),
                                lease.owner(),
                                lease.version())
                        .update()
                == 1;
    }

    /** Records how a run ended, unless it already ended (first outcome wins) or {@code lease} was lost. */
    @AcrossTeams("the executor and cancellation, on a run already found in its scope")
    public boolean finish(
            @Nullable Lease lease,
            String id,
            RunStatus status,
            @Nullable String result,
            @Nullable String failureCategory,
            @Nullable String failureCode,
            @Nullable String failureMessage,
            @Nullable String subagentsJson,
            @Nullable String toolsCalledJson,
            long inputTokens,
            long outputTokens,
            int iterations) {
        return finishGuarded(
                lease == null ? "" : " AND owner = ? AND lease_version = ?",
                lease == null ? List.of() : List.<Object>of(lease.owner(), lease.version()),
                id,
                status,
                result,
                failureCategory,
                failureCode,
                failureMessage,
                subagentsJson,
                toolsCalledJson,
                inputTokens,
                outputTokens,
                iterations);
    }

    /**
     * A fault point between storing a run's last events and its terminal status, for tests that
     * crash a run there. Production has none.
     */
    @FunctionalInterface
    public interface EndingFaults {
        EndingFaults NONE = runId -> {};

        /** Called inside the ending's transaction, after its events, before its status. */
        void betweenEventsAndStatus(String runId);
    }

    /**
     * Records how a run ended and its last events ({@code storeEvents}, the {@code done} or {@code
     * error} among them) as one fact: one transaction that stores the run's one ending (its primary
     * key refuses a second, ever), the events, and the terminal status — all of it or none. False,
     * with nothing stored, when the run already ended or {@code lease} was lost.
     */
    @AcrossTeams("the executor, on a run it holds")
    public boolean finishWithEnding(
            @Nullable Lease lease,
            String id,
            String endingType,
            Runnable storeEvents,
            RunStatus status,
            @Nullable String result,
            @Nullable String failureCategory,
            @Nullable String failureCode,
            @Nullable String failureMessage,
            @Nullable String subagentsJson,
            @Nullable String toolsCalledJson,
            long inputTokens,
            long outputTokens,
            int iterations) {
        return withEnding(
                id,
                endingType,
                storeEvents,
                () -> finish(
                        lease,
                        id,
                        status,
                        result,
                        failureCategory,
                        failureCode,
                        failureMessage,
                        subagentsJson,
                        toolsCalledJson,
                        inputTokens,
                        outputTokens,
                        iterations));
    }

    /**
     * {@link #expire} with the run's {@code error} event ({@code storeEvents}) in the same
     * transaction, as {@link #finishWithEnding} stores any ending: a crash leaves both or neither.
     */
    @AcrossTeams("the deadline sweep ends every team's runs past their deadline")
    public boolean expireWithEnding(
            RunRecord run,
            @Nullable String staleOwner,
            String failureCategory,
            String failureCode,
            String failureMessage,
            Runnable storeEvents) {
        return withEnding(
                run.id(),
                "error",
                storeEvents,
                () -> expire(run, staleOwner, failureCategory, failureCode, failureMessage));
    }

    /**
     * One transaction: the run's one ending row (its primary key refuses a second, ever), its events,
     * then {@code finish} (the guarded terminal update, true when it matched); rolled back whole when
     * the run already ended or the guard did not match.
     */
    private boolean withEnding(
            String id, String endingType, Runnable storeEvents, java.util.function.BooleanSupplier finish) {
        return Boolean.TRUE.equals(transactions.execute(tx -> {
            try {
                jdbc.sql("INSERT INTO cadre_run_ending (run_id, type, at) VALUES (?, ?, ?)")
                        .params(id, endingType, ts(clock.instant()))
                        .update();
            } catch (org.springframework.dao.DuplicateKeyException already) {
                tx.setRollbackOnly();
                return false;
            }
            storeEvents.run();
            faults.betweenEventsAndStatus(id);
            boolean ended = finish.getAsBoolean();
            if (!ended) {
                tx.setRollbackOnly();
            }
            return ended;
        }));
    }

    /** The type of the run's recorded ending ({@code done} or {@code error}), if it has one. */
    @AcrossTeams("the executor, on a run it holds")
    public java.util.Optional<String> ending(String id) {
        return jdbc.sql("SELECT type FROM cadre_run_ending WHERE run_id = ?")
                .param(id)
                .query(String.class)
                .optional();
    }

    /**
     * Ends a live run past its deadline that nobody executes — no live lease, or only {@code
     * staleOwner}'s (this instance's previous process, at start-up) — as failed with this failure.
     * One guarded UPDATE: of several instances trying, one succeeds; a run whose executor took its
     * lease first is left to that executor (which fails it on the deadline itself).
     */
    @AcrossTeams("the deadline sweep ends every team's runs past their deadline")
    public boolean expire(
            RunRecord run,
            @Nullable String staleOwner,
            String failureCategory,
            String failureCode,
            String failureMessage) {
        Instant now = clock.instant();
        return finishGuarded(
                " AND deadline IS NOT NULL AND deadline <= ?"
                        + " AND (lease_until IS NULL OR lease_until < ? OR owner = ?)",
                List.<Object>of(ts(now), ts(now), staleOwner == null ? "" : staleOwner),
                run.id(),
                RunStatus.FAILED,
                null,
                failureCategory,
                failureCode,
                failureMessage,
                null,
                null,
                run.inputTokens(),
                run.outputTokens(),
                run.iterations());
    }

    /** Live runs past their deadline that nobody holds a live lease on (queued, or their executor died). */
    @AcrossTeams("the deadline sweep ends every team's runs past their deadline")
    public List<String> pastDeadline(int limit) {
        Instant now = clock.instant();
        return jdbc.sql("SELECT id FROM cadre_run WHERE status IN ('submitted', 'working', 'input-required')"
                        + " AND deadline IS NOT NULL AND deadline <= ? AND (lease_until IS NULL OR lease_until < ?)"
                        + " ORDER BY deadline LIMIT ?")
                .params(ts(now), ts(now), limit)
                .query(String.class)
                .list();
    }

    private boolean finishGuarded(
            String guard,
            List<Object> guardParams,
            String id,
            RunStatus status,
            @Nullable String result,
            @Nullable String failureCategory,
            @Nullable String failureCode,
            @Nullable String failureMessage,
            @Nullable String subagentsJson,
            @Nullable String toolsCalledJson,
            long inputTokens,
            long outputTokens,
            int iterations) {
        // The terminal update matches a run once; its rollup increment commits or fails with it.
        return Boolean.TRUE.equals(transactions.execute(tx -> {
            boolean ended = finishRow(
                    guard,
                    guardParams,
                    id,
                    status,
                    result,
                    failureCategory,
                    failureCode,
                    failureMessage,
                    subagentsJson,
                    toolsCalledJson,
                    inputTokens,
                    outputTokens,
                    iterations);
            // A replay's run re-enacts a recorded incident: counting it would show the overview runs
            // that never happened.
            if (ended && marks.get().replays(List.of(id)).isEmpty()) {
                RunRollups.Batch batch = rollups.batch();
                jdbc.sql("SELECT agent, status, failure_category, input_tokens, output_tokens, created_at, started_at,"
                                + " finished_at, subagents FROM cadre_run WHERE id = ?")
                        .param(id)
                        .query(rs -> {
                            batch.add(ended(rs));
                        });
                batch.flush();
            }
            return ended;
        }));
    }

    private boolean finishRow(
            String guard,
            List<Object> guardParams,
            String id,
            RunStatus status,
            @Nullable String result,
            @Nullable String failureCategory,
            @Nullable String failureCode,
            @Nullable String failureMessage,
            @Nullable String subagentsJson,
            @Nullable String toolsCalledJson,
            long inputTokens,
            long outputTokens,
            int iterations) {
        Instant now = clock.instant();
        return jdbc.sql("UPDATE cadre_run SET status = ?, result = ?, failure_category = ?, failure_code = ?,"
                                + " failure_message = ?, subagents = ?, tools_called = ?, input_tokens = ?, output_tokens = ?,"
                                + " iterations = ?, finished_at = ?, updated_at = ?"
                                + (status.terminal() ? ", checkpoint = NULL" : "")
                                + " WHERE id = ? AND status IN ('submitted', 'working', 'input-required')"
                                + guard)
                        .params(
                                status.wire(),
                                // How a run ended is stored redacted like its input (see insert).
                                redactor.redactText(result),
                                failureCategory,
                                failureCode,
                                redactor.redactText(failureMessage),
                                redactor.redactText(subagentsJson),
                                toolsCalledJson,
                                inputTokens,
                                outputTokens,
                                iterations,
                                ts(now),
                                ts(now),
                                id)
                        .params(guardParams)
                        .update()
                == 1;
    }

    /** The right to execute a run, fenced by its version: a newer lease makes the older one's writes fail. */
    public record Lease(String runId, String owner, long version) {}

    /**
     * Takes the lease of a live run if nobody holds it, it expired, or this owner holds it already
     * ({@code force}: regardless — only for a single instance recovering its own runs).
     */
    @AcrossTeams("the executor, on a run it holds")
    public Optional<Lease> acquireLease(String id, String owner, java.time.Duration ttl, boolean force) {
        Instant now = clock.instant();
        int n = jdbc.sql(
                        "UPDATE cadre_run SET owner = ?, lease_until = ?, lease_version = lease_version + 1, updated_at = ?"
                                + " WHERE id = ? AND status IN ('submitted', 'working', 'input-required')"
                                + (force
                                        ? ""
                                        : " AND (owner IS NULL OR owner = ? OR lease_until IS NULL OR lease_until < ?)"))
                .params(
                        force
                                ? List.of(owner, ts(now.plus(ttl)), ts(now), id)
                                : List.of(owner, ts(now.plus(ttl)), ts(now), id, owner, ts(now)))
                .update();
        if (n == 0) {
            return Optional.empty();
        }
        return jdbc.sql("SELECT lease_version FROM cadre_run WHERE id = ? AND owner = ?")
                .params(id, owner)
                .query(Long.class)
                .optional()
                .map(v -> new Lease(id, owner, v));
    }

    /** Extends the leases this owner still holds; returns the run ids whose lease it lost. */
    @AcrossTeams("the executor, on runs it holds")
    public List<String> renewLeases(Collection<Lease> leases, java.time.Duration ttl) {
        List<String> lost = new ArrayList<>();
        Instant now = clock.instant();
        for (Lease l : leases) {
            int n = jdbc.sql("UPDATE cadre_run SET lease_until = ? WHERE id = ? AND owner = ? AND lease_version = ?"
                            + " AND status IN ('submitted', 'working', 'input-required')")
                    .params(ts(now.plus(ttl)), l.runId(), l.owner(), l.version())
                    .update();
            if (n == 0) {
                lost.add(l.runId());
            }
        }
        return lost;
    }

    /**
     * Live runs nobody holds a valid lease on (never started, or their executor died), untouched
     * for {@code minAge}; with {@code alsoOwnedBy}, also those that owner held (its previous process).
     */
    @AcrossTeams("recovery resumes every team's orphaned runs")
    public List<String> orphans(java.time.Duration minAge, @Nullable String alsoOwnedBy, int limit) {
        Instant now = clock.instant();
        return jdbc.sql("SELECT id FROM cadre_run WHERE status IN ('submitted', 'working', 'input-required')"
                        + " AND (lease_until IS NULL OR lease_until < ? OR owner = ?) AND updated_at <= ?"
                        + " ORDER BY created_at LIMIT ?")
                .params(ts(now), alsoOwnedBy == null ? "" : alsoOwnedBy, ts(now.minus(minAge)), limit)
                .query(String.class)
                .list();
    }

    /** A live run nobody holds a lease on, and its place in the order the recovery sweep walks them. */
    public record Orphan(String id, Instant createdAt) {}

    /**
     * As {@link #orphans(java.time.Duration, String, int)}, a page at a time: those after {@code after}
     * (null: from the oldest), so the sweep can walk past runs it finds still held by this instance.
     */
    @AcrossTeams("recovery resumes every team's orphaned runs")
    public List<Orphan> orphans(
            java.time.Duration minAge, @Nullable String alsoOwnedBy, @Nullable Orphan after, int limit) {
        Instant now = clock.instant();
        List<Object> params = new java.util.ArrayList<>(
                List.of(ts(now), alsoOwnedBy == null ? "" : alsoOwnedBy, ts(now.minus(minAge))));
        String page = "";
        if (after != null) {
            page = " AND (created_at > ? OR (created_at = ? AND id > ?))";
            params.addAll(List.of(ts(after.createdAt()), ts(after.createdAt()), after.id()));
        }
        params.add(limit);
        return jdbc.sql(
                        "SELECT id, created_at FROM cadre_run WHERE status IN ('submitted', 'working', 'input-required')"
                                + " AND (lease_until IS NULL OR lease_until < ? OR owner = ?) AND updated_at <= ?"
                                + page
                                + " ORDER BY created_at, id LIMIT ?")
                .params(params)
                .query((rs, i) -> new Orphan(
                        rs.getString("id"), rs.getTimestamp("created_at").toInstant()))
                .list();
    }

    /** Whether {@code lease} is still the current one (no newer executor took the run). */
    @AcrossTeams("the executor, on a run it holds")
    public boolean holds(Lease lease) {
        return jdbc.sql("SELECT COUNT(*) FROM cadre_run WHERE id = ? AND owner = ? AND lease_version = ?")
                        .params(lease.runId(), lease.owner(), lease.version())
                        .query(Long.class)
                        .single()
                == 1;
    }

    @AcrossTeams("recovery, on a run it resumes")
    public void incrementResumeCount(String id) {
        jdbc.sql("UPDATE cadre_run SET resume_count = resume_count + 1, updated_at = ? WHERE id = ?")
                .params(ts(clock.instant()), id)
                .update();
    }

    @AcrossTeams("the executor, on a run it holds")
    public Optional<String> traceParent(String id) {
        return jdbc.sql("SELECT trace_parent FROM cadre_run WHERE id = ? AND trace_parent IS NOT NULL")
                .param(id)
                .query(String.class)
                .optional();
    }

    @AcrossTeams("the executor, on a run it holds")
    public void setTraceId(String id, String traceId) {
        jdbc.sql("UPDATE cadre_run SET trace_id = ? WHERE id = ?")
                .params(traceId, id)
                .update();
    }

    /** Sets the run's trace id from its root span unless it has one (the trace store's first word wins). */
    @AcrossTeams("the executor, on a run it holds")
    public void setTraceIdIfAbsent(String id, String traceId) {
        jdbc.sql("UPDATE cadre_run SET trace_id = ? WHERE id = ? AND trace_id IS NULL")
                .params(traceId, id)
                .update();
    }

    /**
     * Figures over the runs submitted in {@code [from, to]} (the console's overview), {@code from}
     * on an hour: the ended runs from their hourly rollups, the live ones (few, on the status
     * index) from their rows, streamed.
     */
    @AcrossTeams("platform-wide statistics, like the Prometheus metrics")
    public RunStatistics.Window windowStatistics(Instant from, Instant to) {
        RunStatistics.WindowTally tally = new RunStatistics.WindowTally(from, to);
        rollups.addWindow(from, to, tally);
        record Live(String id, String agent, String status, long in, long out, Instant created) {}
        List<Live> live = new java.util.ArrayList<>();
        jdbc.sql("SELECT id, agent, status, input_tokens, output_tokens, created_at FROM cadre_run"
                        + " WHERE status IN ('submitted', 'working', 'input-required') AND created_at >= ?"
                        + " AND created_at <= ?")
                .params(Timestamp.from(from), Timestamp.from(to))
                .withFetchSize(1000)
                .query(rs -> {
                    live.add(new Live(
                            rs.getString("id"),
                            rs.getString("agent"),
                            rs.getString("status"),
                            rs.getLong("input_tokens"),
                            rs.getLong("output_tokens"),
                            rs.getTimestamp("created_at").toInstant()));
                });
        // Live runs are few; replays among them are left out like ended ones (see finish).
        java.util.Set<String> replays = live.isEmpty()
                ? java.util.Set.of()
                : marks.get().replays(live.stream().map(Live::id).toList()).keySet();
        for (Live r : live) {
            if (!replays.contains(r.id())) {
                tally.addLive(r.agent(), r.status(), r.in(), r.out(), r.created());
            }
        }
        return tally.window();
    }

    /**
     * Builds the rollups from the ended runs stored before they existed, once (whoever claims V8's
     * marker row does it, in the caller's transaction: {@link AfterMigration}, right after Flyway
     * migrated); aggregated in memory per hour and key, so memory follows the number of rollup
     * rows, not of runs.
     */
    public static void backfillRollups(JdbcClient jdbc, JsonMapper json) {
        RunRollups rollups = new RunRollups(jdbc, json);
        if (!rollups.claimBackfill()) {
            return;
        }
        RunRollups.Batch batch = rollups.batch();
        jdbc.sql("SELECT agent, status, failure_category, input_tokens, output_tokens, created_at, started_at,"
                        + " finished_at, subagents FROM cadre_run"
                        + " WHERE status IN ('completed', 'failed', 'canceled', 'rejected')")
                .withFetchSize(1000)
                .query(rs -> {
                    batch.add(ended(rs));
                });
        batch.flush();
    }

    /**
     * On PostgreSQL, trigram (pg_trgm) GIN indexes on the lower-cased input and result, so the
     * run search ({@code LOWER(input) LIKE '%…%'}) is an index lookup instead of a scan of every
     * run; created once ({@code IF NOT EXISTS}). Where the extension cannot be created (not
     * installed, no privilege) the search stays a newest-first scan that stops at the page size, and
     * the platform says so in its log. H2 has no trigram index: the same scan.
     */
    public static void ensureSearchIndexes(JdbcClient jdbc, String databaseProduct) {
        if (!databaseProduct.toLowerCase(java.util.Locale.ROOT).contains("postgresql")) {
            return;
        }
        boolean trigrams = jdbc.sql("SELECT COUNT(*) FROM pg_extension WHERE extname = 'pg_trgm'")
                        .query(Long.class)
                        .single()
                > 0;
        if (!trigrams) {
            boolean available = jdbc.sql("SELECT COUNT(*) FROM pg_available_extensions WHERE name = 'pg_trgm'")
                            .query(Long.class)
                            .single()
                    > 0;
            if (!available) {
                org.slf4j.LoggerFactory.getLogger(RunStore.class)
                        .warn("pg_trgm is not available: run search (q) scans runs newest first instead of an index");
                return;
            }
            // CREATE EXTENSION fails without the privilege; a savepoint keeps the transaction usable.
            jdbc.sql("SAVEPOINT cadre_trgm").update();
            try {
                jdbc.sql("CREATE EXTENSION IF NOT EXISTS pg_trgm").update();
                jdbc.sql("RELEASE SAVEPOINT cadre_trgm").update();
            } catch (org.springframework.dao.DataAccessException e) {
                jdbc.sql("ROLLBACK TO SAVEPOINT cadre_trgm").update();
                org.slf4j.LoggerFactory.getLogger(RunStore.class)
                        .warn(
                                "Could not create pg_trgm ({}): run search (q) scans runs newest first instead of an"
                                        + " index",
                                e.getMostSpecificCause().getMessage());
                return;
            }
        }
        // The operator class lives in the extension's schema, which need not be on the search path.
        String schema = jdbc.sql("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace"
                        + " WHERE e.extname = 'pg_trgm'")
                .query(String.class)
                .single();
        String ops = "\"" + schema.replace("\"", "\"\"") + "\".gin_trgm_ops";
        jdbc.sql("CREATE INDEX IF NOT EXISTS cadre_run_input_trgm ON cadre_run USING gin (LOWER(input) " + ops + ")")
                .update();
        jdbc.sql("CREATE INDEX IF NOT EXISTS cadre_run_result_trgm ON cadre_run"
                        + " USING gin (LOWER(COALESCE(result, '')) " + ops + ")")
                .update();
    }

    private static RunRollups.Ended ended(ResultSet rs) throws SQLException {
        return new RunRollups.Ended(
                rs.getString("agent"),
                rs.getString("status"),
                rs.getString("failure_category"),
                rs.getLong("input_tokens"),
                rs.getLong("output_tokens"),
                rs.getTimestamp("created_at").toInstant(),
                instant(rs, "started_at"),
                instant(rs, "finished_at"),
                rs.getString("subagents"));
    }

    /** How many runs are waiting, working or waiting for input, over all time. */
    @AcrossTeams("platform-wide statistics, like the Prometheus metrics")
    public RunStatistics.Live liveCounts() {
        Map<String, Long> live = new java.util.LinkedHashMap<>();
        jdbc.sql(
                        "SELECT status, COUNT(*) AS n FROM cadre_run WHERE status IN ('submitted', 'working', 'input-required')"
                                + " GROUP BY status")
                .query(rs -> {
                    live.put(rs.getString("status"), rs.getLong("n"));
                });
        return new RunStatistics.Live(
                live.getOrDefault("submitted", 0L),
                live.getOrDefault("working", 0L),
                live.getOrDefault("input-required", 0L));
    }

    /** Delegations made and received per agent by the runs submitted in {@code [from, to]}, by agent name. */
    @AcrossTeams("platform-wide statistics, like the Prometheus metrics")
    public List<RunStatistics.AgentDelegations> delegationStatistics(Instant from, Instant to) {
        return rollups.delegations(from, to);
    }

    /** From the per-agent rollup row: one primary-key lookup however many runs the agent had. */
    @Override
    @AcrossTeams("an agent definition's history across the teams that run it")
    public AgentRunHistory.Outcomes outcomesOf(String agent) {
        return rollups.outcomesOf(agent);
    }

    private static @Nullable Timestamp ts(@Nullable Instant i) {
        return i == null ? null : Timestamp.from(i);
    }

    private static @Nullable Instant instant(ResultSet rs, String col) throws SQLException {
        Timestamp t = rs.getTimestamp(col);
        return t == null ? null : t.toInstant();
    }

    /**
     * A row as a record. Rows stored before V20 ({@code redacted} false) hold their texts as given:
     * they are redacted here, on each read, so nothing reads them in clear; every row stored since
     * is redacted already and read as it is.
     */
    private RunRecord map(ResultSet rs, int row) throws SQLException {
        RunRecord r = mapRow(rs);
        return rs.getBoolean("redacted")
                ? r
                : r.withTexts(
                        redactor.redactInput(r.input()),
                        redactor.redactText(r.context()),
                        redactor.redactText(r.result()),
                        redactor.redactText(r.failureMessage()),
                        redactor.redactText(r.subagentsJson()));
    }

    private static RunRecord mapRow(ResultSet rs) throws SQLException {
        return new RunRecord(
                rs.getString("id"),
                rs.getString("agent"),
                rs.getString("input"),
                rs.getString("context"),
                RunStatus.fromWire(rs.getString("status")),
                rs.getString("result"),
                rs.getString("failure_category"),
                rs.getString("failure_code"),
                rs.getString("failure_message"),
                rs.getString("subagents"),
                rs.getString("tools_called"),
                rs.getLong("input_tokens"),
                rs.getLong("output_tokens"),
                rs.getInt("iterations"),
                rs.getString("submitted_by"),
                rs.getString("idempotency_key"),
                rs.getString("request_hash"),
                rs.getString("trace_id"),
                rs.getString("checkpoint"),
                rs.getInt("resume_count"),
                instant(rs, "created_at"),
                instant(rs, "started_at"),
                instant(rs, "finished_at"),
                instant(rs, "updated_at"),
                rs.getString("retry_of"),
                rs.getInt("priority"),
                instant(rs, "deadline"),
                // Stored sums of doubles drift (0.001 + 0.000048): the record shows micro-units.
                dev.cadre.agent.model.Costs.round(rs.getDouble("cost")),
                rs.getObject("max_cost") == null ? null : rs.getDouble("max_cost"),
                NO_KEY.equals(rs.getString("submitted_by_key")) ? null : rs.getString("submitted_by_key"),
                rs.getString("team"));
    }

    /**
     * When the oldest cadre_run row in {@code status} was created, for the age gauges the shipped
     * alerts read; one lookup on the {@code (status, created_at)} index.
     */
    @AcrossTeams("platform-wide gauges for the shipped alerts")
    public Optional<Instant> oldestCreatedAt(String status) {
        return jdbc.sql("SELECT MIN(created_at) FROM cadre_run WHERE status = ?")
                .param(status)
                .query(java.time.OffsetDateTime.class)
                .optional()
                .map(java.time.OffsetDateTime::toInstant);
    }

    // ---- retention (RetentionService) ----

    static final String TABLE = "cadre_run";

    /** A run retention may remove: ended, with the bytes of its text columns. */
    public record Expired(String id, Instant createdAt, long bytes) {}

    /**
     * Ended runs submitted (and ended) before {@code before}, in submission order after the run
     * {@code after} (null: from the oldest), at most {@code limit}; on the {@code created_at} index.
     */
    @AcrossTeams("retention removes every team's expired runs")
    public List<Expired> expired(Instant before, @Nullable Expired after, int limit) {
        List<Object> params = new ArrayList<>(List.of(ts(before), ts(before)));
        if (after != null) {
            params.addAll(List.of(ts(after.createdAt()), after.id()));
        }
        params.add(limit);
        return jdbc.sql("SELECT id, created_at, LENGTH(input) + COALESCE(LENGTH(context), 0)"
                        + " + COALESCE(LENGTH(result), 0) + COALESCE(LENGTH(subagents), 0)"
                        + " + COALESCE(LENGTH(tools_called), 0) + COALESCE(LENGTH(checkpoint), 0) AS bytes"
                        + " FROM cadre_run WHERE created_at < ? AND status IN ('completed', 'failed', 'canceled', 'rejected')"
                        + " AND (finished_at IS NULL OR finished_at < ?)"
                        + (after == null ? "" : " AND (created_at, id) > (?, ?)")
                        + " ORDER BY created_at, id FETCH FIRST ? ROWS ONLY")
                .params(params)
                .query((rs, i) ->
                        new Expired(rs.getString(1), rs.getTimestamp(2).toInstant(), rs.getLong(3)))
                .list();
    }

    /** Removes these runs if they are still ended (a run never leaves a terminal state; the guard is cheap). */
    @AcrossTeams("retention removes every team's expired runs")
    public int deleteEnded(Collection<String> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        return jdbc.sql("DELETE FROM cadre_run WHERE status IN ('completed', 'failed', 'canceled', 'rejected')"
                        + " AND id IN (" + dev.cadre.platform.storage.KeyLists.placeholders(1, ids.size()) + ")")
                .params(List.copyOf(ids))
                .update();
    }

    /** Ids of the runs not yet ended: retention keeps them and everything of theirs. */
    @AcrossTeams("retention keeps every team's live runs")
    public java.util.Set<String> liveRunIds() {
        return new java.util.HashSet<>(
                jdbc.sql("SELECT id FROM cadre_run WHERE status IN ('submitted', 'working', 'input-required')")
                        .query(String.class)
                        .list());
    }

    /** When the oldest stored run was submitted. */
    @AcrossTeams("retention and storage figures are platform-wide")
    public Optional<Instant> oldestRunAt() {
        return jdbc.sql("SELECT MIN(created_at) FROM cadre_run")
                .query(java.time.OffsetDateTime.class)
                .optional()
                .map(java.time.OffsetDateTime::toInstant);
    }

    private final dev.cadre.platform.storage.TableSize size =
            new dev.cadre.platform.storage.TableSize(this::totalBytes);

    private long totalBytes() {
        return jdbc.sql(dev.cadre.platform.storage.PostgresSizes.TOTAL_BYTES)
                .params(TABLE, TABLE)
                .query(Long.class)
                .single();
    }

    /** Bytes on disk of the table (with indexes, TOAST and partitions); empty where the database cannot tell (H2). */
    @AcrossTeams("retention and storage figures are platform-wide")
    public java.util.OptionalLong sizeBytes() {
        return size.bytes();
    }

    /** PostgreSQL: makes the space of removed rows reusable now ({@link dev.cadre.platform.storage.PostgresSizes#vacuum}). */
    @AcrossTeams("retention and storage figures are platform-wide")
    public void reclaimSpace() {
        size.whereMeasurable(() ->
                jdbc.sql(dev.cadre.platform.storage.PostgresSizes.vacuum(TABLE)).update());
    }

    /**
     * Retention: removes the run statistics' hourly rollup rows of hours before {@code before}
     * (the all-time per-agent outcomes stay); returns how many rows went.
     */
    @AcrossTeams("retention and storage figures are platform-wide")
    public long trimRollups(Instant before) {
        return rollups.trimBefore(before);
    }

    /** How many runs are stored (any status): one count of the primary key, for the storage budget. */
    @AcrossTeams("retention and storage figures are platform-wide")
    public long storedRuns() {
        return jdbc.sql("SELECT COUNT(*) FROM cadre_run").query(Long.class).single();
    }

    /**
     * Work the owner of a table does right after Flyway migrated (here, and for the model rollup in
     * {@code TraceStore}; nested in a table owner because it hands out Flyway's connection), on Flyway's connection and in one
     * transaction, before this instance executes or stores anything: the one-time rollup builds (which
     * claim a marker row, so they happen once per database however many instances start; later starts
     * cost one primary-key delete, whatever the history size) and PostgreSQL-only indexes that plain
     * migration SQL, which must also run on H2, cannot express.
     */
    public static final class AfterMigration implements org.flywaydb.core.api.callback.Callback {

        private final String name;
        private final java.util.function.BiConsumer<JdbcClient, String> build;

        /** {@code build} gets a client on Flyway's connection and the database product name. */
        public AfterMigration(String name, java.util.function.BiConsumer<JdbcClient, String> build) {
            this.name = name;
            this.build = build;
        }

        @Override
        public boolean supports(
                org.flywaydb.core.api.callback.Event event, org.flywaydb.core.api.callback.Context context) {
            return event == org.flywaydb.core.api.callback.Event.AFTER_MIGRATE;
        }

        @Override
        public boolean canHandleInTransaction(
                org.flywaydb.core.api.callback.Event event, org.flywaydb.core.api.callback.Context context) {
            return true;
        }

        @Override
        public void handle(org.flywaydb.core.api.callback.Event event, org.flywaydb.core.api.callback.Context context) {
            java.sql.Connection c = context.getConnection();
            try {
                boolean auto = c.getAutoCommit();
                c.setAutoCommit(false);
                try {
                    String product = c.getMetaData().getDatabaseProductName();
                    if (product.toLowerCase(java.util.Locale.ROOT).contains("postgresql")) {
                        // Instances starting together each run these steps after Flyway released its lock;
                        // CREATE INDEX IF NOT EXISTS is not safe against a concurrent twin (a duplicate
                        // pg_class row ends the second instance's start), so one runs them at a time.
                        try (var st = c.createStatement()) {
                            st.execute("SELECT pg_advisory_xact_lock(hashtext('cadre-after-migrate'))");
                        }
                    }
                    build.accept(
                            JdbcClient.create(
                                    new org.springframework.jdbc.datasource.SingleConnectionDataSource(c, true)),
                            c.getMetaData().getDatabaseProductName());
                    c.commit();
                } catch (RuntimeException e) {
                    c.rollback();
                    throw e;
                } finally {
                    c.setAutoCommit(auto);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("after-migration step '" + name + "' failed: " + e.getMessage(), e);
            }
        }

        @Override
        public String getCallbackName() {
            return name;
        }
    }
}
