package dev.cadre.platform.runs;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.AgentWork;
import dev.cadre.agent.run.Checkpoint;
import dev.cadre.agent.run.CheckpointCodec;
import dev.cadre.agent.run.RunHandle;
import dev.cadre.agent.run.RunObserver;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.workflow.Missions;
import dev.cadre.agent.workflow.StepOutcome;
import dev.cadre.agent.workflow.Workflow;
import dev.cadre.agent.workflow.WorkflowOutcome;
import dev.cadre.agent.workflow.WorkflowRunner;
import dev.cadre.memory.SharedMemory;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.agents.DeclaredWorkflow;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs the declared workflows of the catalogue as runs: every step is a session of the run
 * ({@code <runId>/<agent>#n}), the run's checkpoint records the finished steps (so a resumed run
 * replays them instead of running them again) and the last checkpoint of every running step's own
 * loop (so a resumed run continues such a step from there), the main stream carries the workflow's start, its
 * progress ({@code step 2 of 4}) and its end, and an {@code invoke_workflow} span is the parent of
 * every step's {@code invoke_agent} span.
 */
public final class WorkflowRuns {

    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    static final AttributeKey<String> AGENT_NAME = AttributeKey.stringKey("gen_ai.agent.name");
    static final AttributeKey<String> CONVERSATION_ID = AttributeKey.stringKey("gen_ai.conversation.id");
    static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("cadre.run.id");
    static final AttributeKey<String> SESSION_ID = AttributeKey.stringKey("cadre.session.id");
    static final AttributeKey<String> WORKFLOW_TYPE = AttributeKey.stringKey("cadre.workflow.type");
    static final AttributeKey<Long> STEPS = AttributeKey.longKey("cadre.workflow.steps");
    static final AttributeKey<String> STATUS = AttributeKey.stringKey("cadre.status");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<Long> INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
    static final AttributeKey<Long> OUTPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.output_tokens");

    /** The checkpoint format's marker: a workflow run's checkpoint is this JSON, not an agent loop's. */
    static final String CHECKPOINT_KIND = "workflow";

    private final AgentCatalog catalog;
    private final WorkflowRunner runner;
    private final RunEvents events;
    private final SharedMemory memory;
    private final JsonMapper json;
    private final CheckpointCodec codec = new CheckpointCodec();
    private final Tracer tracer;
    private final List<StepListener> listeners;

    /** Told about every step that ends (metrics). */
    public interface StepListener {
        void stepFinished(String workflow, StepOutcome step);
    }

    /** Stores a workflow checkpoint (and stops the run when its lease was lost). */
    interface Checkpointer {
        void store(String checkpoint, int steps, TokenUsage usage);
    }

    public WorkflowRuns(
            AgentCatalog catalog,
            AgentRunner agents,
            ApprovalGate humans,
            RunEvents events,
            SharedMemory memory,
            JsonMapper json,
            OpenTelemetry openTelemetry,
            List<StepListener> listeners) {
        this.catalog = catalog;
        this.runner = new WorkflowRunner(agents, humans);
        this.events = events;
        this.memory = memory;
        this.json = json;
        this.tracer = openTelemetry.getTracer("dev.cadre.platform.workflows");
        this.listeners = List.copyOf(listeners);
    }

    boolean isWorkflow(String name) {
        return catalog.workflow(name).isPresent();
    }

    /**
     * Starts (or, with the run's stored checkpoint, resumes) the workflow the run names, on a
     * virtual thread. Step events go to {@code observer}.
     */
    RunHandle start(RunRecord run, Context caller, RunObserver observer, Checkpointer checkpoints) {
        DeclaredWorkflow declared = catalog.workflow(run.agent())
                .orElseThrow(() -> new IllegalArgumentException("unknown workflow '" + run.agent() + "'"));
        Stored stored = run.checkpoint() == null ? Stored.EMPTY : readCheckpoint(run.checkpoint());
        String input = run.context() == null || run.context().isBlank()
                ? run.input()
                : run.input() + "\n\nContext:\n" + run.context();
        CompletableFuture<RunOutcome> outcome = new CompletableFuture<>();
        Execution execution = new Execution(run, declared, input, stored, checkpoints);
        Thread thread = Thread.ofVirtual()
                .name("cadre-workflow-" + run.id())
                .unstarted(() -> outcome.complete(execution.run(caller, observer, run.checkpoint() != null)));
        thread.start();
        return new RunHandle() {
            @Override
            public String runId() {
                return run.id();
            }

            @Override
            public CompletableFuture<RunOutcome> outcome() {
                return outcome;
            }

            @Override
            public void cancel() {
                thread.interrupt();
            }
        };
    }

    private final class Execution {
        private final RunRecord run;
        private final String runId;
        private final DeclaredWorkflow declared;
        private final String input;
        private final Map<String, StepOutcome> finished;
        /** The last checkpoint of each step still running (or running when the run stopped). */
        private final Map<String, Checkpoint> running;

        private final Checkpointer checkpoints;
        private final @Nullable Integer planned;
        private final AtomicInteger started = new AtomicInteger();
        private final AtomicInteger ended = new AtomicInteger();
        private final AtomicLong sequence = new AtomicLong();

        Execution(RunRecord run, DeclaredWorkflow declared, String input, Stored stored, Checkpointer checkpoints) {
            this.run = run;
            this.runId = run.id();
            this.declared = declared;
            this.input = input;
            this.finished = new ConcurrentHashMap<>(stored.finished());
            this.running = new ConcurrentHashMap<>(stored.running());
            this.checkpoints = checkpoints;
            this.planned = planned(declared.workflow(), input);
        }

        RunOutcome run(Context caller, RunObserver observer, boolean resumed) {
            long t0 = System.nanoTime();
            Span span = tracer.spanBuilder("invoke_workflow " + declared.name())
                    .setParent(caller)
                    .setSpanKind(SpanKind.INTERNAL)
                    .setAttribute(OPERATION, "invoke_workflow")
                    .setAttribute(AGENT_NAME, declared.name())
                    .setAttribute(CONVERSATION_ID, runId)
                    .setAttribute(RUN_ID, runId)
                    .setAttribute(SESSION_ID, runId)
                    .setAttribute(WORKFLOW_TYPE, declared.type())
                    .startSpan();
            if (!resumed) {
                ObjectNode startedEvent = event("run_started");
                startedEvent.put("input", input);
                startedEvent.put("workflow", declared.type());
                append("run_started", startedEvent);
            }
            WorkflowRunner.StepLog log = new WorkflowRunner.StepLog() {
                @Override
                public Optional<StepOutcome> replay(String sessionId) {
                    return Optional.ofNullable(finished.get(sessionId));
                }

                @Override
                public Optional<Checkpoint> checkpoint(String sessionId) {
                    return Optional.ofNullable(running.get(sessionId));
                }

                @Override
                public void started(String sessionId, String agent, String label) {
                    progress(started.incrementAndGet(), agent, sessionId, false);
                }

                @Override
                public void checkpointed(Checkpoint checkpoint) {
                    running.put(checkpoint.sessionId(), checkpoint);
                    store();
                }

                @Override
                public void finished(StepOutcome step, boolean replayed) {
                    if (replayed) {
                        started.incrementAndGet();
                    } else {
                        finished.put(step.sessionId(), step);
                        running.remove(step.sessionId());
                        store();
                        listeners.forEach(l -> l.stepFinished(declared.name(), step));
                    }
                    progress(ended.incrementAndGet(), step.agent(), step.sessionId(), true);
                }
            };
            WorkflowOutcome out;
            Failure failure;
            try {
                out = runner.run(
                        runId,
                        declared.workflow(),
                        input,
                        observer,
                        new WorkflowRunner.Hooks(caller.with(span), log, this::items));
                failure = out.failure();
            } catch (InterruptedException e) {
                out = null;
                // The executor's deadline watchdog stops a run the same way a cancel does; the
                // run's last event must then say why (deadline_exceeded), as a plain run's does.
                failure = run.deadline() != null && !Instant.now().isBefore(run.deadline())
                        ? RunExecutor.deadlineFailure(run)
                        : FailureCode.CANCELLED.failure("run cancelled by request");
            } catch (RuntimeException e) {
                out = null;
                failure = new Failure(
                        FailureCategory.ORCHESTRATION_ERROR, "workflow_error", String.valueOf(e.getMessage()));
            }
            OutcomeStatus status = out == null
                    ? (failure.code().equals("cancelled") ? OutcomeStatus.CANCELLED : OutcomeStatus.FAILED)
                    : out.status();
            if (status != OutcomeStatus.OK && failure == null) {
                failure = status == OutcomeStatus.DENIED
                        ? new Failure(
                                FailureCategory.ORCHESTRATION_ERROR,
                                "rejected",
                                "a human rejected the outcome of workflow '" + declared.name() + "'")
                        : FailureCode.INTERNAL_ERROR.failure(
                                "workflow ended " + status.wireName() + " without a failure");
            }
            List<StepOutcome> steps = out == null ? List.copyOf(finished.values()) : out.steps();
            TokenUsage usage = out == null ? usageOf(steps) : out.usage();
            // The run's tools are its steps' tools in step order: a workflow has no loop of its own.
            List<String> tools =
                    steps.stream().flatMap(s -> s.toolsCalled().stream()).toList();
            AgentWork work = new AgentWork(
                    usage, steps.size(), tools, Duration.ofNanos(System.nanoTime() - t0), subagents(steps));
            span.setAttribute(STEPS, (long) steps.size());
            span.setAttribute(INPUT_TOKENS, usage.inputTokens());
            span.setAttribute(OUTPUT_TOKENS, usage.outputTokens());
            span.setAttribute(STATUS, status.wireName());
            if (failure != null) {
                span.setAttribute(ERROR_TYPE, failure.category().name());
                span.setStatus(StatusCode.ERROR, failure.message());
            }
            span.end();
            if (status == OutcomeStatus.OK) {
                String text = out.text() == null ? "" : out.text();
                ObjectNode done = event("done");
                done.put("text", text);
                EventJson.putUsage(done, usage);
                done.put("iterations", steps.size());
                append("done", done);
                return new RunOutcome.Completed(runId, runId, declared.name(), text, work);
            }
            ObjectNode error = event("error");
            error.put("status", status.wireName());
            EventJson.putFailure(error, failure);
            EventJson.putUsage(error, usage);
            error.put("iterations", steps.size());
            append("error", error);
            return new RunOutcome.Failed(runId, runId, declared.name(), status, failure, work);
        }

        private List<String> items(String runId, String source) {
            // Validated at start-up: memory:<namespace>/<key>.
            String ref = source.substring("memory:".length());
            int slash = ref.indexOf('/');
            String value = memory.get(ref.substring(0, slash), ref.substring(slash + 1))
                    .map(e -> e.value())
                    .orElseThrow(() -> new IllegalArgumentException(
                            "workflow '" + declared.name() + "': memory key " + ref + " is absent"));
            String v = value.strip();
            if (v.startsWith("[")) {
                JsonNode list = json.readTree(v);
                List<String> out = new ArrayList<>();
                list.forEach(n -> out.add(n.isString() ? n.asString() : n.toString()));
                return out;
            }
            return v.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        }

        /** A status event with the progress where the number of steps is known up front. */
        private void progress(int n, String agent, String sessionId, boolean ended) {
            ObjectNode status = event("status");
            String of = planned == null ? "" : " of " + planned;
            status.put("message", "step " + n + of + (ended ? " done" : "") + ": " + agent);
            status.put("iteration", n);
            ObjectNode progress = status.putObject("progress");
            progress.put("step", n);
            if (planned != null) {
                progress.put("of", planned);
                progress.put("fraction", Math.min(1.0, (ended ? n : n - 1) / (double) planned));
            }
            progress.put("stepSessionId", sessionId);
            progress.put("state", ended ? "done" : "started");
            append("status", status);
        }

        private ObjectNode event(String type) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("type", type);
            o.put("runId", runId);
            o.put("sessionId", runId);
            o.putNull("parentSessionId");
            o.put("agent", declared.name());
            o.put("sessionSequence", sequence.incrementAndGet());
            o.put("at", Instant.now().toString());
            return o;
        }

        private void append(String type, ObjectNode data) {
            events.append(runId, type, true, runId, null, data, Instant.now());
        }

        /**
         * Stores the workflow's checkpoint. Synchronized: concurrent steps checkpoint at the same time,
         * and a snapshot taken earlier must never overwrite a later one.
         */
        private synchronized void store() {
            TokenUsage usage = usageOf(finished.values());
            for (Checkpoint c : running.values()) {
                usage = usage.plus(c.usage());
            }
            // A lost lease makes the executor cancel this run; nothing more to do here.
            checkpoints.store(checkpoint(), finished.size(), usage);
        }

        private String checkpoint() {
            ObjectNode root = JsonNodeFactory.instance.objectNode();
            root.put("kind", CHECKPOINT_KIND);
            root.put("version", 1);
            root.put("workflow", declared.name());
            ArrayNode steps = root.putArray("steps");
            for (StepOutcome s : finished.values()) {
                ObjectNode o = steps.addObject();
                o.put("label", s.label());
                o.put("agent", s.agent());
                o.put("sessionId", s.sessionId());
                o.put("status", s.status().name());
                o.put("text", s.text());
                if (s.failure() != null) {
                    o.put("category", s.failure().category().name());
                    o.put("code", s.failure().code());
                    o.put("message", s.failure().message());
                }
                o.put("inputTokens", s.usage().inputTokens());
                o.put("outputTokens", s.usage().outputTokens());
                o.put("iterations", s.iterations());
                ArrayNode tools = o.putArray("toolsCalled");
                s.toolsCalled().forEach(tools::add);
                o.put("durationMs", s.duration().toMillis());
            }
            // Optional (a reader without it starts such a step again): each running step's own loop.
            ArrayNode inFlight = root.putArray("running");
            for (Checkpoint c : running.values()) {
                if (!finished.containsKey(c.sessionId())) {
                    inFlight.add(json.readTree(codec.write(c)));
                }
            }
            return root.toString();
        }
    }

    /** What a workflow checkpoint holds: the finished steps and the running steps' loop checkpoints. */
    private record Stored(Map<String, StepOutcome> finished, Map<String, Checkpoint> running) {
        static final Stored EMPTY = new Stored(Map.of(), Map.of());
    }

    private Stored readCheckpoint(String text) {
        JsonNode root = json.readTree(text);
        if (!CHECKPOINT_KIND.equals(root.path("kind").asString(""))) {
            throw new IllegalArgumentException("the run's checkpoint is not a workflow checkpoint");
        }
        Map<String, StepOutcome> out = new LinkedHashMap<>();
        for (JsonNode o : root.path("steps")) {
            Failure failure = o.has("category")
                    ? new Failure(
                            FailureCategory.valueOf(o.path("category").asString()),
                            o.path("code").asString(),
                            o.path("message").asString())
                    : null;
            StepOutcome s = new StepOutcome(
                    o.path("label").asString(),
                    o.path("agent").asString(),
                    o.path("sessionId").asString(),
                    OutcomeStatus.valueOf(o.path("status").asString()),
                    o.path("text").isNull() ? null : o.path("text").asString(),
                    failure,
                    // Checkpoints written before steps kept their work read as no iterations or tools.
                    new AgentWork(
                            new TokenUsage(
                                    o.path("inputTokens").asLong(),
                                    o.path("outputTokens").asLong()),
                            o.path("iterations").asInt(0),
                            stringsOf(o.path("toolsCalled")),
                            Duration.ofMillis(o.path("durationMs").asLong(0)),
                            List.of()));
            out.put(s.sessionId(), s);
        }
        Map<String, Checkpoint> running = new LinkedHashMap<>();
        for (JsonNode o : root.path("running")) {
            Checkpoint c = codec.read(o.toString());
            running.put(c.sessionId(), c);
        }
        return new Stored(out, running);
    }

    private static List<String> stringsOf(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString()));
        return out;
    }

    private static TokenUsage usageOf(java.util.Collection<StepOutcome> steps) {
        TokenUsage u = TokenUsage.ZERO;
        for (StepOutcome s : steps) {
            u = u.plus(s.usage());
        }
        return u;
    }

    /** The steps as the run record lists worker calls (call id = the step's label). */
    private static List<SubagentOutcome> subagents(List<StepOutcome> steps) {
        List<SubagentOutcome> out = new ArrayList<>();
        for (StepOutcome s : steps) {
            AgentWork work = s.work();
            if (s.status() == OutcomeStatus.OK) {
                out.add(new SubagentOutcome.Ok(
                        s.label(),
                        s.agent(),
                        s.sessionId(),
                        s.text() == null ? "" : s.text(),
                        null,
                        null,
                        false,
                        work));
            } else if (s.status() == OutcomeStatus.DENIED) {
                out.add(new SubagentOutcome.Rejected(s.label(), s.agent(), s.sessionId(), null, null, false, work));
            } else {
                out.add(new SubagentOutcome.Failed(
                        s.label(),
                        s.agent(),
                        s.sessionId(),
                        s.status(),
                        s.failure() == null
                                ? FailureCode.INTERNAL_ERROR.failure("step ended without a failure")
                                : s.failure(),
                        null,
                        null,
                        false,
                        work));
            }
        }
        return out;
    }

    /** How many steps the workflow will run, when that is known before it starts. */
    static @Nullable Integer planned(Workflow w, String input) {
        return switch (w) {
            case Workflow.AgentStep a -> 1;
            case Workflow.Sequence s -> {
                int n = 0;
                for (Workflow step : s.steps()) {
                    // A later step's input holds the baton, so only agent and fixed fan-outs count ahead.
                    Integer k = step instanceof Workflow.Split || step instanceof Workflow.FanOut
                            ? null
                            : planned(step, input);
                    if (k == null) {
                        yield null;
                    }
                    n += k;
                }
                yield n;
            }
            case Workflow.MapReduce m -> m.agents().size();
            case Workflow.FanOut f ->
                f.over().equals("input") && !input.strip().startsWith("[")
                        ? (int) input.strip().lines().filter(l -> !l.isBlank()).count()
                        : null;
            case Workflow.Split s -> Missions.split(input, s.maxChunkChars()).size();
            case Workflow.Debate d -> null;
            case Workflow.Handoff h -> null;
        };
    }
}
