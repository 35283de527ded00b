package dev.cadre.agent.workflow;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.approval.ApprovalKind;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.Checkpoint;
import dev.cadre.agent.run.RunHandle;
import dev.cadre.agent.run.RunObserver;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import io.opentelemetry.context.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/**
 * Runs {@link Workflow}s with an {@link AgentRunner}: every agent step is an ordinary run of that
 * agent (its own loop, budget, spans and events) with session id {@code <runId>/<agent>#n}; a human
 * tie-break goes through the approval gate ({@link ApprovalKind#TIE_BREAK}).
 */
public final class WorkflowRunner {

    private final AgentRunner runner;
    private final ApprovalGate humans;

    /** A runner using {@code runner} for agent steps and {@code humans} for tie-breaks. */
    public WorkflowRunner(AgentRunner runner, ApprovalGate humans) {
        this.runner = Objects.requireNonNull(runner);
        this.humans = Objects.requireNonNull(humans);
    }

    /**
     * Resolves the list a {@link Workflow.FanOut} runs over when it is not {@code "input"} (e.g. a
     * shared-memory key); the platform supplies it.
     */
    public interface Items {
        /** No sources besides the input. */
        Items NONE = (runId, source) -> {
            throw new IllegalArgumentException("no list source '" + source + "' (only 'input' is available)");
        };

        /** The items of {@code source} for run {@code runId}. */
        List<String> items(String runId, String source);
    }

    /**
     * Where a workflow's steps are remembered, so a resumed run does not redo finished ones: before a
     * step runs, {@link #replay} is asked for its session id (session ids are deterministic: the same
     * workflow on the same input numbers its steps the same way); a finished step is told to
     * {@link #finished}. A step's own loop checkpoints like a plain run's ({@link #checkpointed}), so
     * a step that was running when the run stopped continues from its {@link #checkpoint} instead of
     * starting again.
     */
    public interface StepLog {
        /** Remembers nothing. */
        StepLog NONE = new StepLog() {};

        /** The outcome of a step finished before (a resumed run), or empty to run it. */
        default Optional<StepOutcome> replay(String sessionId) {
            return Optional.empty();
        }

        /**
         * The last checkpoint of a step that was running when the run stopped (asked when it has no
         * outcome to {@link #replay}), or empty to start the step afresh.
         */
        default Optional<Checkpoint> checkpoint(String sessionId) {
            return Optional.empty();
        }

        /**
         * A running step's loop checkpointed (after a model turn, with the calls still to execute, and
         * after the turn's observations). Keep it to resume the step where it was.
         */
        default void checkpointed(Checkpoint checkpoint) {}

        /** A step is about to start. */
        default void started(String sessionId, String agent, String label) {}

        /** A step ended; {@code replayed} when its outcome came from {@link #replay}. */
        default void finished(StepOutcome step, boolean replayed) {}
    }

    /**
     * How one workflow run is embedded: the trace context its steps' {@code invoke_agent} spans are
     * children of (the caller's {@code invoke_workflow} span), its step log and its list sources.
     */
    public record Hooks(Context parent, StepLog steps, Items items) {
        /** Root context, no step log, only the input as a list. */
        public static final Hooks NONE = new Hooks(Context.root(), StepLog.NONE, Items.NONE);

        public Hooks {
            Objects.requireNonNull(parent, "parent");
            Objects.requireNonNull(steps, "steps");
            Objects.requireNonNull(items, "items");
        }
    }

    /** Checks that every agent a workflow names exists; call it at start-up on configured workflows. */
    public void validate(Workflow workflow) {
        switch (workflow) {
            case Workflow.AgentStep s -> requireAgent(s.name(), s.agent());
            case Workflow.Sequence s -> s.steps().forEach(this::validate);
            case Workflow.MapReduce m -> m.agents().forEach(a -> requireAgent(m.name(), a));
            case Workflow.Debate d -> {
                d.participants().forEach(a -> requireAgent(d.name(), a));
                if (d.judge() != null) {
                    requireAgent(d.name(), d.judge());
                }
            }
            case Workflow.FanOut f -> requireAgent(f.name(), f.agent());
            case Workflow.Split s -> requireAgent(s.name(), s.agent());
            case Workflow.Handoff h -> h.agents().forEach(a -> requireAgent(h.name(), a));
        }
    }

    private void requireAgent(String workflow, String agent) {
        if (!runner.tree().contains(agent)) {
            throw new IllegalArgumentException("workflow '" + workflow + "': unknown agent '" + agent + "'");
        }
    }

    /** Runs the workflow on {@code input}; agent events go to {@code observer}. */
    public WorkflowOutcome run(String runId, Workflow workflow, String input, RunObserver observer)
            throws InterruptedException {
        return run(runId, workflow, input, observer, Hooks.NONE);
    }

    /**
     * Runs the workflow on {@code input} embedded as {@code hooks} say. Interrupting the calling
     * thread cancels the steps that are running and throws {@link InterruptedException}.
     */
    public WorkflowOutcome run(String runId, Workflow workflow, String input, RunObserver observer, Hooks hooks)
            throws InterruptedException {
        validate(workflow);
        return new Execution(runId, observer, hooks).exec(workflow, input);
    }

    private final class Execution {
        private final String runId;
        private final RunObserver observer;
        private final Hooks hooks;
        private final Map<String, AtomicInteger> counters = new ConcurrentHashMap<>();

        Execution(String runId, RunObserver observer, Hooks hooks) {
            this.runId = runId;
            this.observer = observer;
            this.hooks = hooks;
        }

        WorkflowOutcome exec(Workflow workflow, String input) throws InterruptedException {
            return switch (workflow) {
                case Workflow.AgentStep s -> agent(s.name(), s.agent(), input);
                case Workflow.Sequence s -> sequence(s, input);
                case Workflow.MapReduce m -> mapReduce(m, input);
                case Workflow.Debate d ->
                    new Debates(
                                    runId,
                                    humans,
                                    (agents, label, roundInput) ->
                                            concurrentSteps(agents, agents.size(), label, a -> a, a -> roundInput))
                            .run(d, input);
                case Workflow.FanOut f -> fanOut(f, input);
                case Workflow.Split s -> split(s, input);
                case Workflow.Handoff h -> handoff(h, input);
            };
        }

        private String nextSession(String agent) {
            return runId + "/" + agent + "#"
                    + counters.computeIfAbsent(agent, a -> new AtomicInteger()).incrementAndGet();
        }

        private StepOutcome step(String label, String agent, String input) throws InterruptedException {
            return step(label, agent, input, nextSession(agent));
        }

        /** Runs steps concurrently; session numbers are taken first, so they follow item order. */
        private <T> List<StepOutcome> concurrentSteps(
                List<T> items,
                int parallelism,
                String label,
                java.util.function.Function<T, String> agentOf,
                java.util.function.Function<T, String> inputOf)
                throws InterruptedException {
            List<String> sessions = new ArrayList<>();
            for (T item : items) {
                sessions.add(nextSession(agentOf.apply(item)));
            }
            List<Integer> indices =
                    java.util.stream.IntStream.range(0, items.size()).boxed().toList();
            return StepPool.concurrently(
                    indices,
                    parallelism,
                    i -> step(label, agentOf.apply(items.get(i)), inputOf.apply(items.get(i)), sessions.get(i)));
        }

        private StepOutcome step(String label, String agent, String input, String sessionId)
                throws InterruptedException {
            Optional<StepOutcome> done = hooks.steps().replay(sessionId);
            if (done.isPresent()) {
                hooks.steps().finished(done.get(), true);
                return done.get();
            }
            // Only a checkpoint of this very step: a changed workflow may have put another agent here.
            Optional<Checkpoint> from = hooks.steps()
                    .checkpoint(sessionId)
                    .filter(cp -> cp.runId().equals(runId)
                            && cp.sessionId().equals(sessionId)
                            && cp.agent().equals(agent));
            hooks.steps().started(sessionId, agent, label);
            RunObserver stepObserver = new RunObserver() {
                @Override
                public void onEvent(AgentEvent event) {
                    observer.onEvent(event);
                }

                @Override
                public void onCheckpoint(Checkpoint checkpoint) {
                    hooks.steps().checkpointed(checkpoint);
                    observer.onCheckpoint(checkpoint);
                }
            };
            // A resumed step goes on from its last turn: its earlier model calls and recorded tool
            // results are not repeated, calls still pending run again (side-effecting ones journalled).
            RunHandle handle = from.isPresent()
                    ? runner.resume(from.get(), stepObserver, hooks.parent())
                    : runner.start(new RunRequest(runId, sessionId, agent, input, null), stepObserver, hooks.parent());
            RunOutcome o;
            try {
                o = handle.outcome().get();
            } catch (InterruptedException e) {
                handle.cancel();
                throw e;
            } catch (ExecutionException e) {
                throw new IllegalStateException("a run outcome never completes exceptionally", e);
            }
            StepOutcome step =
                    new StepOutcome(label, agent, sessionId, o.status(), o.finalText(), o.failure(), o.work());
            hooks.steps().finished(step, false);
            return step;
        }

        private WorkflowOutcome agent(String label, String agent, String input) throws InterruptedException {
            StepOutcome s = step(label, agent, input);
            return new WorkflowOutcome(
                    label, s.status(), s.text(), s.failure(), List.of(s), List.of(), Map.of(), null, s.usage());
        }

        private WorkflowOutcome sequence(Workflow.Sequence sequence, String mission) throws InterruptedException {
            List<StepOutcome> steps = new ArrayList<>();
            List<Finding> findings = new ArrayList<>();
            TokenUsage usage = TokenUsage.ZERO;
            Baton baton = null;
            String previous = null;
            String text = null;
            List<Finding> previousFindings = List.of();
            JsonNode context = null;
            for (Workflow step : sequence.steps()) {
                String input = baton == null
                        ? mission
                        : mission + "\n\nBaton from " + previous + " (status ok):\n" + baton.render()
                                + (previousFindings.isEmpty()
                                        ? ""
                                        : "\nFindings, most severe first:\n"
                                                + Findings.render(Findings.aggregate(previousFindings)))
                                + (context == null ? "" : "\n\nContext:\n" + context);
                WorkflowOutcome out = exec(step, input);
                steps.addAll(out.steps());
                usage = usage.plus(out.usage());
                if (out.status() != OutcomeStatus.OK) {
                    // Later steps build on this one's baton: going on would build on nothing.
                    return new WorkflowOutcome(
                            sequence.name(),
                            out.status(),
                            null,
                            out.failure(),
                            steps,
                            List.of(),
                            Map.of(),
                            baton,
                            usage);
                }
                text = out.text();
                baton = out.baton() != null && !(step instanceof Workflow.AgentStep)
                        ? out.baton()
                        : Batons.batonOf(text);
                previous = step.name();
                previousFindings = out.findings().isEmpty() ? Findings.parse(step.name(), text) : out.findings();
                findings.addAll(previousFindings);
                JsonNode produced = Batons.structuredAnswer(text, previousFindings);
                context = produced != null ? produced : context;
                if (produced != null && step instanceof Workflow.AgentStep && Batons.batonless(text)) {
                    // The answer is data, handed on whole after "Context:": not a second, truncated copy.
                    baton = new Baton(
                            List.of(previous + " answered with data (below, after Context:)"),
                            List.of(),
                            List.of(),
                            "");
                }
            }
            Findings.Aggregated aggregated = Findings.aggregate(findings);
            return new WorkflowOutcome(
                    sequence.name(),
                    OutcomeStatus.OK,
                    text,
                    null,
                    steps,
                    aggregated.sorted(),
                    aggregated.byTarget(),
                    baton,
                    usage);
        }

        private WorkflowOutcome mapReduce(Workflow.MapReduce m, String input) throws InterruptedException {
            List<StepOutcome> steps = concurrentSteps(m.agents(), m.agents().size(), m.name(), a -> a, a -> input);
            return Reductions.reduce(m.name(), steps);
        }

        private WorkflowOutcome fanOut(Workflow.FanOut f, String input) throws InterruptedException {
            List<String> items = f.over().equals("input")
                    ? Batons.itemsOf(input)
                    : hooks.items().items(runId, f.over());
            if (items.isEmpty()) {
                return new WorkflowOutcome(
                        f.name(),
                        OutcomeStatus.OK,
                        "0 findings (no items in " + f.over() + ")",
                        null,
                        List.of(),
                        List.of(),
                        Map.of(),
                        null,
                        TokenUsage.ZERO);
            }
            List<StepOutcome> steps =
                    concurrentSteps(items, f.parallelism(), f.name(), item -> f.agent(), item -> item);
            return Reductions.reduce(f.name(), steps);
        }

        private WorkflowOutcome split(Workflow.Split s, String mission) throws InterruptedException {
            List<String> chunks = Missions.split(mission, s.maxChunkChars());
            List<StepOutcome> steps =
                    concurrentSteps(chunks, s.parallelism(), s.name(), chunk -> s.agent(), chunk -> chunk);
            return Reductions.chunks(s.name(), steps);
        }

        private WorkflowOutcome handoff(Workflow.Handoff h, String request) throws InterruptedException {
            List<StepOutcome> steps = new ArrayList<>();
            TokenUsage usage = TokenUsage.ZERO;
            String agent = h.agents().getFirst();
            String input = request;
            Baton baton = null;
            for (int handoffs = 0; ; handoffs++) {
                StepOutcome s = step(h.name(), agent, input);
                steps.add(s);
                usage = usage.plus(s.usage());
                if (s.status() != OutcomeStatus.OK) {
                    return new WorkflowOutcome(
                            h.name(), s.status(), null, s.failure(), steps, List.of(), Map.of(), baton, usage);
                }
                JsonNode directive = Batons.handoffDirective(s.text());
                if (directive == null) {
                    return new WorkflowOutcome(
                            h.name(), OutcomeStatus.OK, s.text(), null, steps, List.of(), Map.of(), baton, usage);
                }
                String to = directive.path("to").asString("");
                Failure refused = null;
                if (!h.agents().contains(to)) {
                    refused = FailureCode.UNKNOWN_HANDOFF_TARGET.failure(
                            agent + " handed off to '" + to + "', which is not part of handoff '" + h.name() + "'");
                } else if (handoffs >= h.maxHandoffs()) {
                    refused = FailureCode.HANDOFF_LIMIT.failure(
                            "handoff '" + h.name() + "' reached its limit of " + h.maxHandoffs() + " handoffs");
                }
                if (refused != null) {
                    return new WorkflowOutcome(
                            h.name(), OutcomeStatus.FAILED, null, refused, steps, List.of(), Map.of(), baton, usage);
                }
                baton = Batons.batonFrom(directive);
                input = request + "\n\nHandoff from " + agent + ":\n" + baton.render();
                agent = to;
            }
        }
    }
}
