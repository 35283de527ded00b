package dev.cadre.agent.model;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One call of the model port. {@code maxOutputTokens} is what is left of the agent's token budget
 * after the estimated input: a provider must not produce more (Spring AI's {@code maxTokens}) and
 * must report {@link ModelResponse#truncated()} when it had to stop there. {@code deadline}, when set,
 * is when the agent's time is up: a port must not wait (retry back-off, {@code Retry-After}) past it.
 */
public record ModelRequest(
        String runId,
        String sessionId,
        String agent,
        ModelRef model,
        List<Message> messages,
        List<ToolDefinition> tools,
        long maxOutputTokens,
        @Nullable Instant deadline) {
    public ModelRequest {
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
    }

    /** A request without a deadline. */
    public ModelRequest(
            String runId,
            String sessionId,
            String agent,
            ModelRef model,
            List<Message> messages,
            List<ToolDefinition> tools,
            long maxOutputTokens) {
        this(runId, sessionId, agent, model, messages, tools, maxOutputTokens, null);
    }

    /** The same request for another model (a fallback). */
    public ModelRequest withModel(ModelRef other) {
        return new ModelRequest(runId, sessionId, agent, other, messages, tools, maxOutputTokens, deadline);
    }
}
