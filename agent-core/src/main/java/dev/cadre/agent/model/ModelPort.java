package dev.cadre.agent.model;

import java.util.function.Consumer;

/**
 * The model interface agent-core owns. Implementations must be thread-safe: concurrent subagents
 * share one port. A provider failure is a {@link ModelException} ({@code COMMUNICATION_ERROR}).
 *
 * <p>The loop renames tool calls {@code call_<turn>_<n>} before they enter the history (stable
 * journal keys across re-runs); an adapter must send back the ids the history holds, not remember
 * the provider's.
 */
@FunctionalInterface
public interface ModelPort {

    /**
     * Asks the model for its next turn.
     *
     * @throws ModelException when the provider is unreachable or answers something malformed
     * @throws InterruptedException when the run is cancelled or times out while waiting
     */
    ModelResponse call(ModelRequest request) throws InterruptedException;

    /**
     * Like {@link #call}, telling {@code textDeltas} each piece of text as the provider streams it, on
     * the calling thread, before returning the whole answer (whose text is the pieces joined). A port
     * that cannot stream answers in one piece and tells nothing: the default.
     */
    default ModelResponse stream(ModelRequest request, Consumer<String> textDeltas) throws InterruptedException {
        return call(request);
    }
}
