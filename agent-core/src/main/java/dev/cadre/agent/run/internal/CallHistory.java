package dev.cadre.agent.run.internal;

import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.ToolResultMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * What the loop reads from a turn's tool calls against its history: stable positional ids for the
 * journal, and how many turns in a row asked for the very same calls (the guard against a model going
 * round in circles).
 */
final class CallHistory {

    private CallHistory() {}

    /**
     * How many turns in a row, this one included, asked for exactly these calls: same tools, same
     * arguments (compared as JSON values, so key order and spacing do not matter), in the same order.
     */
    static int timesInARow(List<Message> history, List<ToolCall> calls) {
        int times = 1;
        for (int i = history.size() - 1; i >= 0; i--) {
            Message m = history.get(i);
            if (m instanceof ToolResultMessage) {
                continue;
            }
            if (!(m instanceof AssistantMessage a) || !sameCalls(a.toolCalls(), calls)) {
                break;
            }
            times++;
        }
        return times;
    }

    private static boolean sameCalls(List<ToolCall> earlier, List<ToolCall> now) {
        if (earlier.size() != now.size()) {
            return false;
        }
        for (int i = 0; i < now.size(); i++) {
            if (!earlier.get(i).name().equals(now.get(i).name())
                    || !earlier.get(i).arguments().equals(now.get(i).arguments())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Renames the calls {@code call_<turn>_<n>}. Ids pair results with calls and key the journal; a
     * provider's ids are random, so a subagent re-run after a crash would never find its journalled
     * side effects under them. Positional ids make the key of "the n-th call of turn t of session s"
     * the same in every run (the model port sends back whatever ids the history holds).
     */
    static List<ToolCall> withStableIds(List<ToolCall> calls, int turn) {
        List<ToolCall> out = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            ToolCall call = calls.get(i);
            String id = "call_" + turn + "_" + (i + 1);
            // The provider's own id stays alongside, for the provider (ToolCall#wireId).
            String providerId = call.providerId();
            out.add(
                    id.equals(call.id()) && providerId == null
                            ? call
                            : new ToolCall(id, call.name(), call.arguments(), providerId));
        }
        return List.copyOf(out);
    }
}
