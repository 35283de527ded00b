package dev.cadre.agent.tool;

import tools.jackson.databind.JsonNode;

/**
 * A tool whose {@code APPROVE} calls are completed by the tool before a human is asked: typically with
 * the current version of the object the call would change and what would change, read at proposal
 * time. The human approves exactly those arguments (the approval is bound to them), and the tool, run
 * with them, can refuse with {@code STATE_INCONSISTENCY} when the object changed since.
 */
public interface ProposingTool extends Tool {

    /**
     * The arguments to ask the human about and to run with, given the model's validated arguments.
     * Called again for the same call after a resume: an unchanged object gives the same arguments, so
     * the decision already taken still covers them. A {@link ToolException} (or any exception) refuses
     * the call before anyone is asked. The result must satisfy {@link #parametersSchema()}.
     */
    JsonNode propose(JsonNode arguments, ToolContext context) throws Exception;
}
