package dev.cadre.agent.scripted;

import dev.cadre.agent.TokenUsage;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One scripted reply: text (a template), tool calls, the simulated latency, an optional fixed token
 * usage (else estimated from the text), or a provider failure to simulate.
 */
public record ScriptedTurn(
        @Nullable String text,
        List<ScriptedCall> toolCalls,
        @Nullable Duration latency,
        @Nullable TokenUsage usage,
        @Nullable String failure) {

    public ScriptedTurn {
        toolCalls = List.copyOf(toolCalls);
    }

    /** A final answer. */
    public static ScriptedTurn text(String text) {
        return new ScriptedTurn(text, List.of(), null, null, null);
    }

    /** A turn of tool calls. */
    public static ScriptedTurn calls(ScriptedCall... calls) {
        return new ScriptedTurn(null, List.of(calls), null, null, null);
    }

    /** A turn on which the provider fails ({@code COMMUNICATION_ERROR}). */
    public static ScriptedTurn failing(String message) {
        return new ScriptedTurn(null, List.of(), null, null, message);
    }

    /** This turn with a simulated latency. */
    public ScriptedTurn withLatency(Duration value) {
        return new ScriptedTurn(text, toolCalls, value, usage, failure);
    }

    /** This turn with fixed token usage. */
    public ScriptedTurn withUsage(TokenUsage value) {
        return new ScriptedTurn(text, toolCalls, latency, value, failure);
    }
}
