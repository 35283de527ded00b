package dev.cadre.agent.model;

import java.util.List;

/**
 * One call of the model port. {@code maxOutputTokens} is what is left of the agent's token budget
 * after the estimated input: a provider must not produce more (Spring AI's {@code maxTokens}) and
 * must report {@link ModelResponse#truncated()} when it had to stop there.
 */
public record ModelRequest(
        String runId,
        String sessionId,
        String agent,
        ModelRef model,
        List<Message> messages,
        List<ToolDefinition> tools,
        long maxOutputTokens) {
    public ModelRequest {
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
    }
}
