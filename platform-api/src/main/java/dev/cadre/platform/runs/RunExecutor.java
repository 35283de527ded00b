package dev.cadre.platform.runs;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.Checkpoint;
import dev.cadre.agent.run.CheckpointCodec;
import dev.cadre.agent.run.RunHandle;
import dev.cadre.agent.run.RunObserver;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.platform.approvals.ApprovalService;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Executes runs on this instance: starts (or resumes from its checkpoint) the agent loop, persists
 * every event and checkpoint as they happen, keeps the A2A status in step (input-required while a
 * human decision is awaited), and records the outcome. Everything that reaches the database here
 * is what survives a crash.
 */
public final class RunExecutor {

    private static final Logger log = LoggerFactory.getLogger(RunExecutor.class);
    private static final EnumSet<RunStatus> LIVE =
            EnumSet.of(RunStatus.SUBMITTED, RunStatus.WORKING, RunStatus.INPUT_REQUIRED);

    private final AgentRunner runner;
    private final RunStore store;
    private final RunEvents events;
    private final CheckpointCodec codec;
    private final ApprovalService approvals;
    private final JsonMapper json;
    private final List<RunLifecycleListener> listeners;
    private final Map<String, RunHandle> active = new ConcurrentHashMap<>();
    private final Map<String, RunStore.Lease> leases = new ConcurrentHashMap<>();
    private final Map<String, Boolean> claimed = new ConcurrentHashMap<>();
    /** Runs stopped because they passed their deadline: they end failed (TIMEOUT_ERROR), not canceled. */
    private final java.util.Set<String> pastDeadline = ConcurrentHashMap.newKeySet();
    /**
     * Runs told to end because what they wait about is over (their incident resolved), with the
     * reason: they end completed with it, not rejected or canceled.
     */
    private final Map<String, String> endings = new ConcurrentHashMap<>();

    private final String instanceId;
    private final java.time.Duration leaseTtl;
    private final @Nullable WorkflowRuns workflows;
    private final RunPreparer preparer;
    private final StuckRuns stuck;
    /** When a run executing here was told to stop (cancel, deadline): its execution is waited for a grace after. */
    private final Map<String, java.time.Instant> stopRequested = new ConcurrentHashMap<>();

    public RunExecutor(
            AgentRunner runner,
            RunStore store,
            RunEvents events,
            CheckpointCodec codec,
            ApprovalService approvals,
            JsonMapper json,
            List<RunLifecycleListener> listeners,
            String instanceId,
            java.time.Duration leaseTtl) {
        this(runner, store, events, codec, approvals, json, listeners, instanceId, leaseTtl, null);
    }

    /** An executor that also runs the declared workflows ({@code workflows}) as runs. */
    public RunExecutor(
            AgentRunner runner,
            RunStore store,
            RunEvents events,
            CheckpointCodec codec,
            ApprovalService approvals,
            JsonMapper json,
            List<RunLifecycleListener> listeners,
            String instanceId,
            java.time.Duration leaseTtl,
            @Nullable WorkflowRuns workflows) {
        this(
                runner,
                store,
                events,
                codec,
                approvals,
                json,
                listeners,
                instanceId,
                leaseTtl,
                workflows,
                RunPreparer.NONE,
                new StuckRuns(java.time.Duration.ofSeconds(30)));
    }

    /**
     * An executor that asks {@code preparer} before each run executes whether another team's runner
     * executes it, or whether it must not execute at all (a replay: {@link RunPreparer}).
     */
    public RunExecutor(
            AgentRunner runner,
            RunStore store,
            RunEvents events,
            CheckpointCodec codec,
            ApprovalService approvals,
            JsonMapper json,
            List<RunLifecycleListener> listeners,
            String instanceId,
            java.time.Duration leaseTtl,
            @Nullable WorkflowRuns workflows,
            RunPreparer preparer,
            StuckRuns stuck) {
        this.stuck = stuck;
        this.preparer = preparer;
        this.workflows = workflows;
        this.instanceId = instanceId;
        this.leaseTtl = leaseTtl;
        this.runner = runner;
        this.store = store;
        this.events = events;
        this.codec = codec;
        this.approvals = approvals;
        this.json = json;
        this.listeners = listeners;
    }

    /** Told when runs start and end (metrics, tracing). */
    public interface RunLifecycleListener {
        default void started(RunRecord run) {}

        default void finished(RunRecord run, RunOutcome outcome, RunStatus status) {}
    }

    /**
     * Runs {@code runId} to its end on the calling thread, if this instance can take its lease:
     * nobody else holds a live lease, and it is not already executing here.
     */
    public void execute(String runId, ExecutionSlots.Slot slot) {
        if (claimed.putIfAbsent(runId, Boolean.TRUE) != null) {
            return;
        }
        try {
            RunStore.Lease lease =
                    store.acquireLease(runId, instanceId, leaseTtl, false).orElse(null);
            if (lease == null) {
                return;
            }
            leases.put(runId, lease);
            try {
                executeLeased(runId, lease, slot);
            } finally {
                leases.remove(runId);
            }
        } finally {
            claimed.remove(runId);
        }
    }

    private void executeLeased(String runId, RunStore.Lease lease, ExecutionSlots.Slot slot) {
        RunRecord run = store.find(runId).orElse(null);
        if (run == null || run.status().terminal()) {
            return;
        }
        if (run.deadline() != null && !run.deadline().isAfter(java.time.Instant.now())) {
            fail(run, deadlineFailure(run));
            return;
        }
        AgentRunner runner = this.runner;
        switch (preparer.prepare(run)) {
            case RunPreparer.Preparation.Standard s -> {}
            case RunPreparer.Preparation.Runner r -> runner = r.runner();
            case RunPreparer.Preparation.Refused r -> {
                fail(run, r.failure());
                return;
            }
        }
        boolean workflow = runner == this.runner && workflows != null && workflows.isWorkflow(run.agent());
        if (!workflow && finishedBeforeACrash(run, lease)) {
            return;
        }
        if (!store.transition(runId, LIVE, RunStatus.WORKING)) {
            return;
        }
        AtomicInteger waitingForHumans = new AtomicInteger();
        // Set once the execution is abandoned (stuck past its stop): its thread may still report, ignored.
        java.util.concurrent.atomic.AtomicBoolean abandoned = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<String> lastTool =
                new java.util.concurrent.atomic.AtomicReference<>();
        RunEnding ending = new RunEnding(events);
        RunProgress progress = new RunProgress(maxIterations(runner, run.agent()));
        RunObserver observer = new RunObserver() {
            @Override
            public void onEvent(AgentEvent event) {
                if (abandoned.get()) {
                    return;
                }
                if (event instanceof AgentEvent.ToolCallStart call) {
                    lastTool.set(call.tool());
                }
                if (event instanceof AgentEvent.TextDelta d && d.partial()) {
                    // Streamed pieces go to live readers only; the turn's whole text is stored next.
                    events.publishLive(event);
                    return;
                }
                events.endLive(event); // what the session's stream held back goes out first
                if (workflow) {
                    events.appendStep(event, runId);
                } else if (event instanceof AgentEvent.Error err
                        && err.meta().isMainStream()
                        && pastDeadline.contains(runId)) {
                    // Stopped by its deadline watchdog: the run ends failed with deadline_exceeded,
                    // and its last event says so rather than "cancelled".
                    ObjectNode added = JsonNodeFactory.instance.objectNode();
                    added.put("status", "failed");
                    EventJson.putFailure(added, deadlineFailure(run));
                    if (!ending.hold(err, added)) {
                        events.append(err, added);
                    }
                } else if (event instanceof AgentEvent.Error err
                        && err.meta().isMainStream()
                        && endings.containsKey(runId)) {
                    // Told to end (its incident resolved): the run's last event is its answer, stored
                    // with the terminal status like any ending.
                    AgentEvent.Done answer =
                            new AgentEvent.Done(err.meta(), endings.get(runId), err.usage(), err.iterations());
                    if (!ending.hold(answer, null)) {
                        events.append(answer);
                    }
                } else if (ending.hold(event, null)) {
                    // The final text and the done/error: stored with the terminal status (finish).
                } else if (event instanceof AgentEvent.Status st
                        && st.meta().isMainStream()
                        && st.message().startsWith("iteration ")) {
                    appendIterationProgress(st, progress);
                } else {
                    events.append(event);
                    if (event.meta().isMainStream()) {
                        progressOfDelegations(event, progress);
                    }
                }
                switch (event) {
                    case AgentEvent.ApprovalRequested e -> {
                        String reason = endings.get(runId);
                        if (reason != null) {
                            // Told to end: a question asked after that is answered at once, refused.
                            approvals.supersedePendingOfRun(runId, reason, "system");
                        }
                        if (waitingForHumans.incrementAndGet() == 1) {
                            store.transition(runId, EnumSet.of(RunStatus.WORKING), RunStatus.INPUT_REQUIRED);
                            // A human may take hours: the slot goes to the next run meanwhile.
                            slot.yieldWhileWaiting();
                        }
                    }
                    case AgentEvent.ApprovalResolved e -> {
                        if (waitingForHumans.decrementAndGet() == 0) {
                            // Back to work only with a slot (blocks the run while the instance is full).
                            slot.reclaim();
                            store.transition(runId, EnumSet.of(RunStatus.INPUT_REQUIRED), RunStatus.WORKING);
                        }
                    }
                    default -> {
                        // other events change nothing in the run's row
                    }
                }
            }

            @Override
            public void onCheckpoint(Checkpoint checkpoint) {
                if (workflow || abandoned.get()) {
                    // A step's own loop: the workflow checkpoints its finished steps instead.
                    return;
                }
                boolean stored = store.checkpoint(
                        lease,
                        codec.write(checkpoint),
                        checkpoint.iterations(),
                        checkpoint.usage().inputTokens(),
                        checkpoint.usage().outputTokens());
                if (!stored) {
                    // Another instance took the run over (this one was presumed dead): stop at once,
                    // so the two never act side by side.
                    log.warn("Run {} lost its lease to another instance; stopping here", runId);
                    cancelLocal(runId);
                }
            }
        };
        RunHandle handle;
        try {
            Context parent = callerContext(runId);
            if (workflow) {
                handle = workflows.start(run, parent, observer, (checkpoint, steps, usage) -> {
                    if (!store.checkpoint(lease, checkpoint, steps, usage.inputTokens(), usage.outputTokens())) {
                        log.warn("Run {} lost its lease to another instance; stopping here", runId);
                        cancelLocal(runId);
                    }
                });
            } else if (run.checkpoint() != null) {
                // The cost spent before the resume counts against the run's budget in currency.
                handle = runner.resume(codec.read(run.checkpoint()), observer, parent, run.maxCost(), run.cost());
            } else {
                handle = runner.start(
                        new RunRequest(runId, runId, run.agent(), run.input(), run.context(), run.maxCost()),
                        observer,
                        parent);
            }
        } catch (IllegalArgumentException e) {
            fail(run, new Failure(FailureCategory.ORCHESTRATION_ERROR, "cannot_start", e.getMessage()));
            return;
        }
        active.put(runId, handle);
        listeners.forEach(l -> l.started(run));
        Thread watchdog = run.deadline() == null
                ? null
                : Thread.ofVirtual().start(() -> {
                    try {
                        Thread.sleep(java.time.Duration.between(java.time.Instant.now(), run.deadline()));
                        pastDeadline.add(runId);
                        stopRequested.putIfAbsent(runId, java.time.Instant.now());
                        handle.cancel();
                    } catch (InterruptedException e) {
                        // the run ended first
                    }
                });
        try {
            // A cancel that arrived between the transition and registering the handle.
            store.find(runId).filter(r -> r.status() == RunStatus.CANCELED).ifPresent(r -> handle.cancel());
            RunOutcome outcome = awaitOutcome(run, handle, budgetEnd(runner, run));
            if (outcome == null) {
                abandoned.set(true);
                abandon(run, handle, lastTool.get());
                return;
            }
            finish(lease, run, outcome, ending);
        } finally {
            if (watchdog != null) {
                watchdog.interrupt();
            }
            stopRequested.remove(runId);
            pastDeadline.remove(runId);
            endings.remove(runId);
            active.remove(runId);
            events.release(runId);
        }
    }

    /** The root agent's iteration budget, for progress (0 when the agent is not in the tree). */
    private static int maxIterations(AgentRunner runner, String agent) {
        try {
            return runner.tree().contains(agent)
                    ? runner.tree().spec(agent).budget().maxIterations()
                    : 0;
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /** The root loop's "iteration n" status, stored with its progress out of the iteration budget. */
    private void appendIterationProgress(AgentEvent.Status status, RunProgress progress) {
        ObjectNode added = JsonNodeFactory.instance.objectNode();
        ObjectNode p = progress.iteration(status.iteration());
        added.put("message", RunProgress.message(p));
        added.set("progress", p);
        events.append(status, added);
    }

    /**
     * Counts the root agent's delegations; when one ends, a status event says how many of those
     * started are done ({@code 3 of 5 delegations done}) with the fraction.
     */
    private void progressOfDelegations(AgentEvent event, RunProgress progress) {
        switch (event) {
            case AgentEvent.SubagentStarted e -> progress.delegated();
            case AgentEvent.SubagentFinished e -> {
                ObjectNode p = progress.delegationDone();
                ObjectNode data = JsonNodeFactory.instance.objectNode();
                data.put("type", "status");
                data.put("runId", e.meta().runId());
                data.put("sessionId", e.meta().sessionId());
                data.putNull("parentSessionId");
                data.put("agent", e.meta().agent());
                data.put("at", e.meta().at().toString());
                data.put("message", RunProgress.message(p));
                data.set("progress", p);
                events.append(
                        e.meta().runId(),
                        "status",
                        true,
                        e.meta().sessionId(),
                        null,
                        data,
                        e.meta().at());
            }
            default -> {
                // other events do not move the count
            }
        }
    }

    /** The submitter's trace context, so the run's spans continue the caller's trace. */
    private Context callerContext(String runId) {
        return store.traceParent(runId)
                .map(tp -> W3CTraceContextPropagator.getInstance().extract(Context.root(), tp, TRACEPARENT))
                .orElse(Context.root());
    }

    private static final TextMapGetter<String> TRACEPARENT = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return List.of("traceparent");
        }

        @Override
        public @Nullable String get(@Nullable String carrier, String key) {
            return "traceparent".equals(key) ? carrier : null;
        }
    };

    /** Cancels a run executing here; false when it is not executing on this instance. */
    public boolean cancelLocal(String runId) {
        RunHandle handle = active.get(runId);
        if (handle == null) {
            return false;
        }
        stopRequested.putIfAbsent(runId, java.time.Instant.now());
        handle.cancel();
        return true;
    }

    /**
     * When the root agent's own timeout stops the run (its loop is told to stop then, whatever it
     * waits on); null for a workflow or an agent outside the tree. An upper bound for a resumed run,
     * whose timeout also counts the time it ran before.
     */
    private static java.time.@Nullable Instant budgetEnd(AgentRunner runner, RunRecord run) {
        try {
            return runner.tree().contains(run.agent())
                    ? java.time.Instant.now()
                            .plus(runner.tree().spec(run.agent()).budget().timeout())
                    : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The run's outcome, or null when its execution is stuck: still running {@code
     * cadre.runs.stuck-grace} after it was told to stop — a cancel, its deadline, or its root agent's
     * timeout. A stop interrupts the loop's waits; only a tool that ignores interruption outlives it.
     */
    private @Nullable RunOutcome awaitOutcome(RunRecord run, RunHandle handle, java.time.@Nullable Instant budgetEnd) {
        while (true) {
            try {
                return handle.outcome().get(1, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException stillRunning) {
                java.time.Instant stop = stopRequested.get(run.id());
                for (java.time.Instant t : java.util.Arrays.asList(run.deadline(), budgetEnd)) {
                    if (t != null && (stop == null || t.isBefore(stop))) {
                        stop = t;
                    }
                }
                if (stop != null && java.time.Instant.now().isAfter(stop.plus(stuck.grace()))) {
                    return null;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return handle.outcome().join();
            } catch (java.util.concurrent.ExecutionException e) {
                // The outcome never completes exceptionally (RunHandle); a bug there must not hang the run.
                throw new IllegalStateException(e.getCause());
            }
        }
    }

    /**
     * Ends a run whose execution is stuck past its stop, so that nothing — recovery after a restart
     * included — runs it again: canceled when a human cancelled it, failed ({@code TIMEOUT_ERROR},
     * {@code abandoned}) otherwise. Its thread is left to end on its own (a thread cannot be killed
     * safely), listed in {@link StuckRuns} for health until it does.
     */
    private void abandon(RunRecord run, RunHandle handle, @Nullable String tool) {
        handle.cancel();
        boolean cancelled = stopRequested.containsKey(run.id()) && !pastDeadline.contains(run.id());
        String doing = tool == null ? "its loop" : "tool call '" + tool + "'";
        String why = pastDeadline.contains(run.id())
                ? "its deadline " + run.deadline()
                : cancelled ? "a cancel" : "its agent's timeout";
        Failure failure = new Failure(
                FailureCategory.TIMEOUT_ERROR,
                "abandoned",
                doing + " did not stop within " + stuck.grace() + " of " + why
                        + "; the run was abandoned and is not resumed (the call's thread is reported by health"
                        + " until it ends)");
        log.error("Run {} abandoned: {}", run.id(), failure.message());
        stuck.add(new StuckRuns.Stuck(run.id(), run.agent(), tool == null ? "" : tool, java.time.Instant.now(), why));
        handle.outcome().whenComplete((o, e) -> stuck.released(run.id()));
        RunRecord current = store.find(run.id()).orElse(run);
        if (current.status().terminal()) {
            return;
        }
        // Cancelled: its status says so, and the failure why it ended only now.
        RunStatus status = cancelled ? RunStatus.CANCELED : RunStatus.FAILED;
        if (endUnexecuted(current, errorEvent(current, failure, status), status, null, failure)) {
            approvals.cancelPendingOfRun(run.id(), "run " + status.wire() + ": " + failure.message());
            RunOutcome outcome = new RunOutcome.Failed(
                    run.id(),
                    run.id(),
                    run.agent(),
                    cancelled ? dev.cadre.agent.OutcomeStatus.CANCELLED : dev.cadre.agent.OutcomeStatus.TIMEOUT,
                    failure,
                    new dev.cadre.agent.run.AgentWork(
                            new dev.cadre.agent.TokenUsage(current.inputTokens(), current.outputTokens()),
                            current.iterations(),
                            List.of(),
                            java.time.Duration.ZERO,
                            List.of()));
            listeners.forEach(l -> l.finished(current, outcome, status));
        }
    }

    /**
     * Marks a run executing here to end completed with {@code reason} when it stops (its waiting
     * approvals are then closed by the caller); false when it is not executing on this instance.
     */
    boolean endLocal(String runId, String reason) {
        if (!active.containsKey(runId)) {
            return false;
        }
        endings.put(runId, reason);
        return true;
    }

    public boolean isActive(String runId) {
        return claimed.containsKey(runId);
    }

    /**
     * Keeps this instance's leases alive and stops runs it should no longer execute: a lease taken
     * over by another instance (fencing), or a run canceled through another instance.
     */
    public void heartbeat() {
        if (leases.isEmpty()) {
            return;
        }
        for (String lost : store.renewLeases(List.copyOf(leases.values()), leaseTtl)) {
            RunStatus status = store.find(lost).map(RunRecord::status).orElse(RunStatus.CANCELED);
            if (status.terminal()) {
                log.info("Run {} ended elsewhere ({}); stopping its execution here", lost, status.wire());
            } else {
                log.warn("Run {} lost its lease to another instance; stopping its execution here", lost);
            }
            cancelLocal(lost);
        }
    }

    public String instanceId() {
        return instanceId;
    }

    public int activeCount() {
        return active.size();
    }

    /** Ends a run that could not execute at all: its {@code error} event and status as one fact. */
    public void fail(RunRecord run, Failure failure) {
        if (endUnexecuted(run, errorEvent(run, failure), RunStatus.FAILED, null, failure)) {
            failedWithoutExecuting(run, failure);
        }
    }

    /**
     * Stores the ending of a run nobody executes here — its one terminal event and its status, one
     * transaction, no lease guard; true when this call ended it.
     */
    private boolean endUnexecuted(
            RunRecord run, RunEvents.Held event, RunStatus status, @Nullable String result, @Nullable Failure failure) {
        return events.appendEnding(
                run.id(),
                List.of(event),
                storeEvents -> store.finishWithEnding(
                        null,
                        run.id(),
                        event.type(),
                        storeEvents,
                        status,
                        result,
                        failure == null ? null : failure.category().name(),
                        failure == null ? null : failure.code(),
                        failure == null ? null : failure.message(),
                        null,
                        null,
                        run.inputTokens(),
                        run.outputTokens(),
                        run.iterations()));
    }

    /**
     * Fails a run past its deadline that nobody executes (no live lease, or only {@code staleOwner}'s),
     * its {@code error} event and status as one fact; true when this call ended it.
     */
    boolean expire(RunRecord run, @Nullable String staleOwner, Failure failure) {
        boolean ended = events.appendEnding(
                run.id(),
                List.of(errorEvent(run, failure)),
                storeEvents -> store.expireWithEnding(
                        run, staleOwner, failure.category().name(), failure.code(), failure.message(), storeEvents));
        if (ended) {
            failedWithoutExecuting(run, failure);
        }
        return ended;
    }

    private RunEvents.Held errorEvent(RunRecord run, Failure failure) {
        return errorEvent(run, failure, RunStatus.FAILED);
    }

    private RunEvents.Held errorEvent(RunRecord run, Failure failure, RunStatus status) {
        ObjectNode data = JsonNodeFactory.instance.objectNode();
        data.put("type", "error");
        data.put("runId", run.id());
        data.put("status", status.wire());
        EventJson.putFailure(data, failure);
        return new RunEvents.Held("error", true, run.id(), null, data, java.time.Instant.now());
    }

    /**
     * What follows a run ended failed without executing here (it could not start, or its deadline
     * passed while it waited), after its ending was stored: its pending approvals dropped, and the
     * listeners told, so it counts in {@code cadre_runs_total} like any failed run.
     */
    private void failedWithoutExecuting(RunRecord run, Failure failure) {
        approvals.cancelPendingOfRun(run.id(), "run failed: " + failure.message());
        log.warn("Run {} failed before executing: {}", run.id(), failure.message());
        var status = failure.category() == FailureCategory.TIMEOUT_ERROR
                ? dev.cadre.agent.OutcomeStatus.TIMEOUT
                : dev.cadre.agent.OutcomeStatus.FAILED;
        RunOutcome outcome = new RunOutcome.Failed(
                run.id(),
                run.id(),
                run.agent(),
                status,
                failure,
                new dev.cadre.agent.run.AgentWork(
                        new dev.cadre.agent.TokenUsage(run.inputTokens(), run.outputTokens()),
                        run.iterations(),
                        List.of(),
                        java.time.Duration.ZERO,
                        List.of()));
        listeners.forEach(l -> l.finished(run, outcome, RunStatus.FAILED));
    }

    private static String endedResult(String reason, RunOutcome outcome) {
        String text = outcome.status() == dev.cadre.agent.OutcomeStatus.OK ? outcome.finalText() : null;
        return text == null || text.isBlank() ? reason : reason + "\n\n" + text;
    }

    /**
     * Ends {@code completed} with {@code reason} a waiting run nobody executes here (interrupted, or
     * waiting on another instance): its {@code done} event and status as one fact; true when this
     * call ended it.
     */
    boolean endWithoutExecuting(RunRecord run, String reason) {
        ObjectNode data = JsonNodeFactory.instance.objectNode();
        data.put("type", "done");
        data.put("runId", run.id());
        data.put("sessionId", run.id());
        data.putNull("parentSessionId");
        data.put("agent", run.agent());
        data.put("text", reason);
        data.put("iterations", run.iterations());
        return endUnexecuted(
                run,
                new RunEvents.Held("done", true, run.id(), null, data, java.time.Instant.now()),
                RunStatus.COMPLETED,
                reason,
                null);
    }

    /** Why a run past its deadline failed. */
    static Failure deadlineFailure(RunRecord run) {
        return new Failure(
                FailureCategory.TIMEOUT_ERROR,
                "deadline_exceeded",
                "the run did not finish before its deadline " + run.deadline());
    }

    private void finish(RunStore.Lease lease, RunRecord run, RunOutcome outcome, RunEnding ending) {
        boolean late = outcome.status() == dev.cadre.agent.OutcomeStatus.CANCELLED && pastDeadline.contains(run.id());
        String reason = endings.get(run.id());
        // Told to end (its waits were answered with the reason): it ends completed and its answer
        // starts with the reason; a run that failed meanwhile stays failed.
        boolean ended = reason != null
                && (outcome.status() == dev.cadre.agent.OutcomeStatus.OK
                        || outcome.status() == dev.cadre.agent.OutcomeStatus.CANCELLED
                        || outcome.status() == dev.cadre.agent.OutcomeStatus.DENIED);
        RunStatus status = late
                ? RunStatus.FAILED
                : ended
                        ? RunStatus.COMPLETED
                        : switch (outcome.status()) {
                            case OK -> RunStatus.COMPLETED;
                            case CANCELLED -> RunStatus.CANCELED;
                            case DENIED -> RunStatus.REJECTED;
                            case FAILED, TIMEOUT, BUDGET_EXCEEDED -> RunStatus.FAILED;
                        };
        Failure f = late ? deadlineFailure(run) : ended ? null : outcome.failure();
        ArrayNode tools = JsonNodeFactory.instance.arrayNode();
        outcome.toolsCalled().forEach(tools::add);
        List<RunEvents.Held> held = ending.events();
        String subagents = subagentsJson(outcome.subagents()).toString();
        String result = ended ? endedResult(reason, outcome) : outcome.finalText();
        boolean recorded;
        try {
            // Through appendEnding even without held events: its retries ride out an outage or a
            // lock timeout, so a run whose outcome is known is not left working for recovery to
            // run its last model turn again.
            recorded = events.appendEnding(
                    run.id(),
                    held,
                    storeEvents -> held.isEmpty()
                            ? store.finish(
                                    lease,
                                    run.id(),
                                    status,
                                    result,
                                    f == null ? null : f.category().name(),
                                    f == null ? null : f.code(),
                                    f == null ? null : f.message(),
                                    subagents,
                                    tools.toString(),
                                    outcome.usage().inputTokens(),
                                    outcome.usage().outputTokens(),
                                    outcome.iterations())
                            : store.finishWithEnding(
                                    lease,
                                    run.id(),
                                    ending.type(),
                                    storeEvents,
                                    status,
                                    result,
                                    f == null ? null : f.category().name(),
                                    f == null ? null : f.code(),
                                    f == null ? null : f.message(),
                                    subagents,
                                    tools.toString(),
                                    outcome.usage().inputTokens(),
                                    outcome.usage().outputTokens(),
                                    outcome.iterations()));
        } catch (org.springframework.dao.DuplicateKeyException e) {
            // Another executor numbered events of this run meanwhile: it took the run over (this one's
            // lease was lost), so the run's ending is that executor's to store, not this one's.
            log.warn(
                    "Run {} ended {} here, but another executor has written to it meanwhile; its ending is left to"
                            + " that executor ({})",
                    run.id(),
                    status.wire(),
                    e.getMostSpecificCause().getMessage());
            return;
        } catch (RuntimeException e) {
            log.error(
                    "Run {} ended {} but its ending could not be stored; it stays live and is resumed from its"
                            + " last checkpoint once its lease expires (its last model turn runs again)",
                    run.id(),
                    status.wire(),
                    e);
            return;
        }
        if (!recorded && !held.isEmpty()) {
            ending.refused();
        }
        if (status != RunStatus.COMPLETED) {
            approvals.cancelPendingOfRun(run.id(), "run ended: " + status.wire());
        } else {
            approvals.forgetEditsOfRun(run.id());
        }
        events.signal();
        if (recorded) {
            listeners.forEach(l -> l.finished(run, outcome, status));
        }
    }

    /**
     * A run whose {@code done} or {@code error} was stored while its status stayed live — the state a
     * crash between the two separate writes of earlier versions left behind — is finished from that
     * event, without calling the model again (its final turn's result is recorded). Stores the ending
     * and the status in one transaction, as every ending now is; true when the run was finished here.
     */
    private boolean finishedBeforeACrash(RunRecord run, RunStore.Lease lease) {
        if (store.ending(run.id()).isPresent()) {
            return false;
        }
        RunEvents.StoredEvent last = events.storedEnding(run.id()).orElse(null);
        if (last == null) {
            return false;
        }
        tools.jackson.databind.JsonNode data = last.data();
        boolean done = last.type().equals("done");
        tools.jackson.databind.JsonNode error = data.path("error");
        RunStatus status = done
                ? RunStatus.COMPLETED
                : switch (data.path("status").asString("failed")) {
                    case "cancelled" -> RunStatus.CANCELED;
                    case "denied" -> RunStatus.REJECTED;
                    default -> RunStatus.FAILED;
                };
        boolean finished = store.finishWithEnding(
                lease,
                run.id(),
                last.type(),
                () -> {},
                status,
                done ? data.path("text").asString("") : null,
                done ? null : error.path("category").asString(null),
                done ? null : error.path("code").asString(null),
                done ? null : error.path("message").asString(null),
                null,
                null,
                data.path("usage").path("inputTokens").asLong(run.inputTokens()),
                data.path("usage").path("outputTokens").asLong(run.outputTokens()),
                data.path("iterations").asInt(run.iterations()));
        if (finished) {
            log.info(
                    "Run {} had stored its {} before a crash; finished it without running again",
                    run.id(),
                    last.type());
            if (status != RunStatus.COMPLETED) {
                approvals.cancelPendingOfRun(run.id(), "run ended: " + status.wire());
            }
            events.signal();
        }
        return true;
    }

    ArrayNode subagentsJson(List<SubagentOutcome> subagents) {
        ArrayNode array = JsonNodeFactory.instance.arrayNode();
        for (SubagentOutcome s : subagents) {
            ObjectNode o = array.addObject();
            o.put("callId", s.callId());
            o.put("worker", s.worker());
            o.put("sessionId", s.sessionId());
            o.put("status", s.status().wireName());
            o.put("summary", s.summary());
            o.set("data", s.data());
            o.set("metrics", s.metrics());
            EventJson.putFailure(o, s.error());
            EventJson.putUsage(o, s.usage());
            o.put("iterations", s.iterations());
            ArrayNode t = o.putArray("toolsCalled");
            s.toolsCalled().forEach(t::add);
            o.put("durationMs", s.duration().toMillis());
            o.put("degraded", s.degraded());
            if (!s.subagents().isEmpty()) {
                o.set("subagents", subagentsJson(s.subagents()));
            }
        }
        return array;
    }

    @Nullable
    RunHandle handle(String runId) {
        return active.get(runId);
    }
}
