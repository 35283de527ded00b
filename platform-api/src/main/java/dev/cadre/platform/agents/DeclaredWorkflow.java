package dev.cadre.platform.agents;

import dev.cadre.agent.workflow.Workflow;

/**
 * A workflow declared in the {@code workflows} section of an agents file: runnable by name like an
 * agent (unless {@code internal}), its steps running the catalogue's agents.
 */
public record DeclaredWorkflow(String name, String description, boolean internal, Workflow workflow, String source) {

    /** The shape as the YAML's {@code type} names it (a fan-out and a map-reduce are both {@code parallel}). */
    public String type() {
        return typeOf(workflow);
    }

    /** The YAML {@code type} of a workflow or step. */
    public static String typeOf(Workflow w) {
        return switch (w) {
            case Workflow.AgentStep a -> "agent";
            case Workflow.Sequence s -> "sequence";
            case Workflow.MapReduce m -> "parallel";
            case Workflow.FanOut f -> "parallel";
            case Workflow.Debate d -> "debate";
            case Workflow.Split s -> "split";
            case Workflow.Handoff h -> "handoff";
        };
    }
}
