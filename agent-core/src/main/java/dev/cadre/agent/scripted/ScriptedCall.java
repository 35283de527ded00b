package dev.cadre.agent.scripted;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A tool call in a scripted turn; string values in the arguments may hold templates. Without an id
 * the model assigns {@code call_<turn>_<n>}, stable across a resume.
 *
 * <p>With {@code forEach} (a template whose rendered value is a JSON array, e.g. {@code
 * "{{result[0]}}"} after a tool that returned one), the call is repeated once per element, in array
 * order, with {@code {{item}}} in its arguments standing for the element: a fan-out whose width the
 * data decides, as a real model would decide it.
 */
public record ScriptedCall(
        @Nullable String id,
        String name,
        JsonNode arguments,
        @Nullable String forEach) {
    public ScriptedCall {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
    }

    /** A call made once. */
    public ScriptedCall(@Nullable String id, String name, JsonNode arguments) {
        this(id, name, arguments, null);
    }
}
