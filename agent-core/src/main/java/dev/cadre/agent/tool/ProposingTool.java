package dev.cadre.agent.tool;

import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A tool whose {@code APPROVE} calls are completed by the tool before a human is asked: typically with
 * the current version of the object the call would change and what would change, read at proposal
 * time. The human approves exactly those arguments (the approval is bound to them), and the tool, run
 * with them, can refuse with {@code STATE_INCONSISTENCY} when the object changed since. An approver's
 * edit of the arguments is proposed again (the platform calls {@link #propose} with the edits), so
 * what is approved is always a fresh proposal, never stale state copied along with an edit.
 */
public interface ProposingTool extends Tool {

    /**
     * The arguments to ask the human about and to run with, given the model's validated arguments.
     * Called again for the same call after a resume: an unchanged object gives the same arguments, so
     * the decision already taken still covers them. A {@link ToolException} (or any exception) refuses
     * the call before anyone is asked. The result must satisfy {@link #parametersSchema()}.
     */
    JsonNode propose(JsonNode arguments, ToolContext context) throws Exception;

    /**
     * The arguments naming the object the call acts on (a namespace and a name): an approver's edit
     * may adjust how the action is done, never retarget it. Empty: nothing is fixed beyond the tool.
     */
    default Set<String> targetArguments() {
        return Set.of();
    }

    /**
     * A proposed call in words for the person asked: one sentence built from the action, and the
     * details below it; null when the tool has none (the platform then shows the tool and arguments).
     * Called with the result of {@link #propose}; must not call out (it may run on every read).
     */
    default @Nullable Words words(JsonNode proposed) {
        return null;
    }

    /** The approval's headline (one sentence) and its details (one line each). */
    record Words(String headline, List<String> details) {
        public Words {
            details = List.copyOf(details);
        }
    }
}
