package dev.cadre.agent.model;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A tool call the model asked for: an id unique within the session, a tool name and JSON arguments.
 * Arguments a provider sent that are not a JSON object are kept as they came — a string node holding
 * raw text that did not parse, or the non-object value — and the loop answers such a call with an
 * {@code invalid_arguments} error result the model can correct, instead of failing the run.
 *
 * <p>The loop gives calls stable ids ({@code call_<turn>_<n>}); {@code providerId} keeps the id the
 * provider gave (null when it gave none, or for scripted calls), which the model port sends back to
 * the provider with the call and its result, so a provider that checks its ids is satisfied.
 */
public record ToolCall(
        String id,
        String name,
        JsonNode arguments,
        @Nullable String providerId) {
    public ToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
    }

    /** A call whose id is the provider's (or a scripted one). */
    public ToolCall(String id, String name, JsonNode arguments) {
        this(id, name, arguments, null);
    }

    /** The id to show the provider: its own when known, else Cadre's. */
    public String wireId() {
        return providerId == null || providerId.isBlank() ? id : providerId;
    }
}
