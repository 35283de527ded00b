package dev.cadre.agent.run.internal;

import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.SystemMessage;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.UserMessage;
import dev.cadre.agent.run.Checkpoint;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The loop state an agent starts from: empty for a fresh session, or what a checkpoint recorded for a
 * resumed one.
 */
record StartState(
        List<Message> history,
        List<ToolCall> pending,
        int iterations,
        TokenUsage usage,
        List<String> toolsCalled,
        Map<String, Integer> subagentCounters,
        long elapsedBeforeNanos,
        long nextSequence) {

    /** A fresh session: the instructions, the task, nothing done yet. */
    static StartState fresh(String instructions, String input) {
        return new StartState(
                List.of(new SystemMessage(instructions), new UserMessage(input)),
                List.of(),
                0,
                TokenUsage.ZERO,
                List.of(),
                Map.of(),
                0,
                1);
    }

    /** Where a checkpointed session stopped. */
    static StartState of(Checkpoint cp) {
        return new StartState(
                cp.history(),
                cp.pendingCalls(),
                cp.iterations(),
                cp.usage(),
                cp.toolsCalled(),
                cp.subagentCounters(),
                TimeUnit.MILLISECONDS.toNanos(cp.elapsedMillis()),
                cp.nextSequence());
    }
}
