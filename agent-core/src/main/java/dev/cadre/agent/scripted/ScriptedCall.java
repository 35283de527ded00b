package dev.cadre.agent.scripted;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A tool call in a scripted turn; string values in the arguments may hold templates. Without an id
 * the model assigns {@code call_<turn>_<n>}, stable across a resume.
 */
public record ScriptedCall(@Nullable String id, String name, JsonNode arguments) {
    public ScriptedCall {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
    }
}
