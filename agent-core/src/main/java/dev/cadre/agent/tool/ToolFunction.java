package dev.cadre.agent.tool;

import tools.jackson.databind.JsonNode;

/** The body of a tool built with {@link Tools#of}. */
@FunctionalInterface
public interface ToolFunction {
    /** Runs the tool; see {@link Tool#execute}. */
    String apply(JsonNode arguments, ToolContext context) throws Exception;
}
