package dev.cadre.agent.workflow;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** A composable orchestration building block; run it with {@link WorkflowRunner}. */
public sealed interface Workflow {

    /** A label for sessions, events and errors. */
    String name();

    /** Runs one agent on the input. */
    record AgentStep(String name, String agent) implements Workflow {
        public AgentStep {
            Objects.requireNonNull(agent, "agent");
        }
    }

    /**
     * Runs steps one after another; each step receives the mission plus the previous step's baton
     * {@code {decisions, reasons, constraints, next_focus}} (seed 003's baton protocol).
     */
    record Sequence(String name, List<Workflow> steps) implements Workflow {
        public Sequence {
            steps = List.copyOf(steps);
            if (steps.isEmpty()) {
                throw new IllegalArgumentException("sequence '" + name + "': steps must not be empty");
            }
        }
    }

    /**
     * Runs every agent on the input concurrently; each answers with standard findings, which the
     * aggregator sorts by severity, groups by target and de-duplicates.
     */
    record MapReduce(String name, List<String> agents) implements Workflow {
        public MapReduce {
            agents = List.copyOf(agents);
            if (agents.isEmpty()) {
                throw new IllegalArgumentException("map_reduce '" + name + "': agents must not be empty");
            }
        }
    }

    /**
     * Participants state a verdict each round, seeing the others' previous positions, until the
     * share of the most common verdict reaches the consensus threshold or the rounds run out; then
     * the {@code judge} agent (when set) rules on the last positions, else a human breaks the tie
     * through the approval gate.
     */
    record Debate(
            String name,
            List<String> participants,
            int maxRounds,
            double consensusThreshold,
            @Nullable String judge) implements Workflow {

        /** A debate whose tie is broken by a human. */
        public Debate(String name, List<String> participants, int maxRounds, double consensusThreshold) {
            this(name, participants, maxRounds, consensusThreshold, null);
        }

        public Debate {
            participants = List.copyOf(participants);
            if (participants.size() < 2) {
                throw new IllegalArgumentException("debate '" + name + "': needs at least two participants");
            }
            if (maxRounds < 1) {
                throw new IllegalArgumentException("debate '" + name + "': maxRounds must be at least 1");
            }
            if (!(consensusThreshold > 0 && consensusThreshold <= 1)) {
                throw new IllegalArgumentException("debate '" + name + "': consensusThreshold must be in (0, 1]");
            }
        }
    }

    /**
     * Runs one agent per item of a list, at most {@code parallelism} at once; each answers with
     * standard findings, merged and sorted by severity as in {@link MapReduce}. The list is
     * {@code over}: {@code "input"} (the input's non-blank lines, or its items when it is a JSON
     * array) or a source the runner's {@link WorkflowRunner.Items} resolves (e.g. a memory key).
     */
    record FanOut(String name, String agent, String over, int parallelism) implements Workflow {
        public FanOut {
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(over, "over");
            if (parallelism < 1) {
                throw new IllegalArgumentException("fan_out '" + name + "': parallelism must be positive");
            }
        }
    }

    /**
     * Splits a long mission into chunks of at most {@code maxChunkChars} (by lines; seed 000's
     * {@code splitTasks}), runs the agent on each with at most {@code parallelism} at once, and
     * aggregates the answers in chunk order.
     */
    record Split(String name, String agent, int maxChunkChars, int parallelism) implements Workflow {
        public Split {
            if (maxChunkChars < 1 || parallelism < 1) {
                throw new IllegalArgumentException(
                        "split '" + name + "': maxChunkChars and parallelism must be positive");
            }
        }
    }

    /**
     * Passes control of the conversation from agent to agent: an agent hands off by answering
     * {@code {"handoff": {"to": "<agent>", "summary": ..., "decisions": [...], ...}}}; the next agent
     * receives the original request plus that baton. At most {@code maxHandoffs} handoffs, so two
     * agents can never bounce a request forever.
     */
    record Handoff(String name, List<String> agents, int maxHandoffs) implements Workflow {
        public Handoff {
            agents = List.copyOf(agents);
            if (agents.isEmpty()) {
                throw new IllegalArgumentException("handoff '" + name + "': agents must not be empty");
            }
            if (maxHandoffs < 0) {
                throw new IllegalArgumentException("handoff '" + name + "': maxHandoffs must not be negative");
            }
        }
    }
}
