package dev.cadre.agent.model;

/**
 * The model interface agent-core owns. Implementations must be thread-safe: concurrent subagents
 * share one port. A provider failure is a {@link ModelException} ({@code COMMUNICATION_ERROR}).
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
}
