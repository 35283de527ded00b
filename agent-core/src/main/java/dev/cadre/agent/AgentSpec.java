package dev.cadre.agent;

import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.tool.output.ToolOutputCaps;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An agent as configured (DESIGN.md section 2), validated when built so a bad configuration fails at
 * start-up with a message naming the field.
 *
 * @param name unique; also the tool name a parent's model calls it by, so letters, digits, {@code _}
 *     and {@code -} (starting with a letter, at most 64)
 * @param description the routing hint a parent's model reads: what it does, what input it needs and
 *     what it does <em>not</em> do
 * @param instructions the system prompt
 * @param model which model it talks to
 * @param tools the tool whitelist (names in the tool registry)
 * @param workers the agents it may delegate to
 * @param budget its iterations, tokens and time; a root agent's tokens are the run's tree budget
 * @param review what a human sees of a delegation to this agent
 * @param maxDepth when this agent starts a run: how many levels of delegation the tree may have
 *     below it (1, the default, lets it delegate to workers that cannot delegate further)
 * @param toolOutput its overrides of the platform's tool output budget (how much of a tool's result
 *     its model reads)
 */
public record AgentSpec(
        String name,
        String description,
        String instructions,
        ModelRef model,
        List<String> tools,
        List<String> workers,
        Budget budget,
        ReviewPolicy review,
        int maxDepth,
        ToolOutputCaps toolOutput) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,63}");

    public AgentSpec {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("agent name '" + name
                    + "' must start with a letter and hold only letters, digits, '_' or '-' (at most 64):"
                    + " it is also the tool name its parent's model calls");
        }
        if (description == null || description.isBlank()) {
            throw new IllegalArgumentException(
                    "agent '" + name + "': description must not be blank (it is the routing hint)");
        }
        Objects.requireNonNull(instructions, () -> "agent '" + name + "': instructions");
        Objects.requireNonNull(model, () -> "agent '" + name + "': model");
        Objects.requireNonNull(budget, () -> "agent '" + name + "': budget");
        Objects.requireNonNull(review, () -> "agent '" + name + "': review");
        Objects.requireNonNull(toolOutput, () -> "agent '" + name + "': toolOutput");
        tools = List.copyOf(tools);
        workers = List.copyOf(workers);
        requireUnique(name, "tools", tools);
        requireUnique(name, "workers", workers);
        if (workers.contains(name)) {
            throw new IllegalArgumentException("agent '" + name + "': workers must not contain the agent itself");
        }
        if (maxDepth < 0) {
            throw new IllegalArgumentException("agent '" + name + "': maxDepth must not be negative, was " + maxDepth);
        }
    }

    /** A spec without tool output overrides. */
    public AgentSpec(
            String name,
            String description,
            String instructions,
            ModelRef model,
            List<String> tools,
            List<String> workers,
            Budget budget,
            ReviewPolicy review,
            int maxDepth) {
        this(name, description, instructions, model, tools, workers, budget, review, maxDepth, ToolOutputCaps.NONE);
    }

    /** A builder with defaults: no tools, no workers, {@link Budget#DEFAULT}, no review, depth 1. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder starting from this spec. */
    public Builder toBuilder() {
        Builder b = new Builder(name);
        b.description = description;
        b.instructions = instructions;
        b.model = model;
        b.tools = new ArrayList<>(tools);
        b.workers = new ArrayList<>(workers);
        b.budget = budget;
        b.review = review;
        b.maxDepth = maxDepth;
        b.toolOutput = toolOutput;
        return b;
    }

    private static void requireUnique(String agent, String field, List<String> values) {
        if (new HashSet<>(values).size() != values.size()) {
            throw new IllegalArgumentException("agent '" + agent + "': " + field + " lists a name twice: " + values);
        }
    }

    /** Builds an {@link AgentSpec}. */
    public static final class Builder {
        private final String name;
        private String description = "";
        private String instructions = "";
        private ModelRef model = new ModelRef("scripted", "default");
        private List<String> tools = new ArrayList<>();
        private List<String> workers = new ArrayList<>();
        private Budget budget = Budget.DEFAULT;
        private ReviewPolicy review = ReviewPolicy.NONE;
        private int maxDepth = 1;
        private ToolOutputCaps toolOutput = ToolOutputCaps.NONE;

        private Builder(String name) {
            this.name = name;
        }

        /** The routing hint. */
        public Builder description(String value) {
            this.description = value;
            return this;
        }

        /** The system prompt. */
        public Builder instructions(String value) {
            this.instructions = value;
            return this;
        }

        /** The model reference. */
        public Builder model(ModelRef value) {
            this.model = value;
            return this;
        }

        /** The model reference as {@code provider:model}. */
        public Builder model(String value) {
            this.model = ModelRef.parse(value);
            return this;
        }

        /** The tool whitelist. */
        public Builder tools(String... names) {
            this.tools = new ArrayList<>(List.of(names));
            return this;
        }

        /** The tool whitelist. */
        public Builder tools(List<String> names) {
            this.tools = new ArrayList<>(names);
            return this;
        }

        /** The workers it may delegate to. */
        public Builder workers(String... names) {
            this.workers = new ArrayList<>(List.of(names));
            return this;
        }

        /** The workers it may delegate to. */
        public Builder workers(List<String> names) {
            this.workers = new ArrayList<>(names);
            return this;
        }

        /** Its budget. */
        public Builder budget(Budget value) {
            this.budget = value;
            return this;
        }

        /** The review policy for delegations to it. */
        public Builder review(ReviewPolicy value) {
            this.review = value;
            return this;
        }

        /** The delegation depth when it roots a run. */
        public Builder maxDepth(int value) {
            this.maxDepth = value;
            return this;
        }

        /** Its overrides of the platform's tool output budget. */
        public Builder toolOutput(ToolOutputCaps value) {
            this.toolOutput = value;
            return this;
        }

        /** The validated spec. */
        public AgentSpec build() {
            return new AgentSpec(
                    name, description, instructions, model, tools, workers, budget, review, maxDepth, toolOutput);
        }
    }
}
