package dev.cadre.agent.run;

import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.ToolCall;
import java.util.List;
import java.util.Map;

/**
 * The root loop's state after an iteration, enough to resume it elsewhere: history, the calls of the
 * last turn not yet executed, budget spent (iterations, tree tokens, elapsed time), the per-worker
 * subagent counters (so re-spawned subagents get the same session ids and journal keys) and the next
 * event sequence number of the main session. Persist it with {@link CheckpointCodec}.
 */
public record Checkpoint(
        String runId,
        String sessionId,
        String agent,
        List<Message> history,
        List<ToolCall> pendingCalls,
        int iterations,
        TokenUsage usage,
        long elapsedMillis,
        Map<String, Integer> subagentCounters,
        long nextSequence,
        List<String> toolsCalled) {

    public Checkpoint {
        history = List.copyOf(history);
        pendingCalls = List.copyOf(pendingCalls);
        subagentCounters = Map.copyOf(subagentCounters);
        toolsCalled = List.copyOf(toolsCalled);
    }
}
