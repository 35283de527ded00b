package dev.cadre.agent.run.internal;

import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.run.SubagentOutcome;
import java.util.ArrayList;
import java.util.List;

/**
 * One model turn's calls and what their execution produced. Parent-level events of a call
 * ({@code subagent_started} of concurrent workers, {@code subagent_finished}, {@code tool_result}) are
 * emitted by the loop thread, in call order: concurrent workers never contend for the parent's
 * stream, which profiling showed to be the largest cost of a thousand-worker turn.
 *
 * @param why the model's text of the turn, shown to a human asked to approve one of its calls
 * @param subagents per call, the outcome of the worker it ran (null for tool calls)
 * @param startAnnounced per call, whether its {@code subagent_started} event was emitted
 */
record Turn(List<ToolCall> calls, String why, SubagentOutcome[] subagents, boolean[] startAnnounced) {

    static Turn of(List<ToolCall> calls, String why) {
        return new Turn(calls, why, new SubagentOutcome[calls.size()], new boolean[calls.size()]);
    }

    /** Every call of the turn, for a human who approves one of them; built only when someone asks. */
    List<String> plan() {
        List<String> plan = new ArrayList<>(calls.size());
        for (ToolCall call : calls) {
            plan.add(call.name() + " " + call.arguments());
        }
        return plan;
    }

    /** Emits the {@code subagent_started} event of the worker call at {@code index}, once. */
    void announceStart(int index, CallPlan.Delegate plan, SessionStream stream) {
        ToolCall call = calls.get(index);
        String task = call.arguments().path("task").asString("");
        startAnnounced[index] = true;
        stream.emit(
                m -> new AgentEvent.SubagentStarted(m, call.id(), plan.worker().name(), plan.childSessionId(), task));
    }
}
