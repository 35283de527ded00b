package dev.cadre.agent.tool;

import tools.jackson.databind.JsonNode;

/**
 * A tool an agent may call. Implementations must be thread-safe (calls of a turn run concurrently)
 * and should respond to interruption, which is how cancellation and timeouts reach them.
 */
public interface Tool {

    /** The name the model calls it by: letters, digits, {@code _} and {@code -}, at most 64. */
    String name();

    /** What the model reads to decide whether to call it. */
    String description();

    /** JSON schema of the arguments object; calls are validated against it before they run. */
    JsonNode parametersSchema();

    /** How much the tool may do on its own. */
    Risk risk();

    /**
     * Runs the tool with validated arguments and returns the text the model reads. Any exception
     * becomes an {@code EXECUTION_ERROR} result, or the category of a {@link ToolException}.
     */
    String execute(JsonNode arguments, ToolContext context) throws Exception;
}
