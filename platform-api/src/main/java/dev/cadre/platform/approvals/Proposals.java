package dev.cadre.platform.approvals;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.ProposingTool;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.web.ApiProblem;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An approver's edit made into a proposal the way the model's call was: checked against the tool's
 * schema, its target left as asked (the runbook, tool or agent, and the object a {@link ProposingTool}
 * names by its {@link ProposingTool#targetArguments()}), and proposed again by the tool — so the
 * edits carry the object's state and the change text of now, never what was copied from the card.
 * Also the words an approval shows for the action that runs if approved.
 */
@Component
class Proposals {

    /**
     * Arguments that name what runs — the tool is fixed by the request, and a runbook, tool or agent
     * named in its arguments may not change either: an edit adjusts the action that was asked for,
     * it never swaps in another one (reject the request instead).
     */
    static final Set<String> IDENTITY_ARGUMENTS = Set.of("runbook", "tool", "agent");

    private final ObjectProvider<AgentCatalog> catalog;
    private final JsonMapper json;

    Proposals(ObjectProvider<AgentCatalog> catalog, JsonMapper json) {
        this.catalog = catalog;
        this.json = json;
    }

    /** The tool an approval is about, when the platform has it (a worker's result review has none). */
    private @Nullable Tool tool(String name) {
        AgentCatalog c = catalog.getIfAvailable();
        return c == null ? null : c.tools().find(name);
    }

    /**
     * The edits as they will be shown and run: refused with 400 naming the field when they are not an
     * object, break the tool's schema or retarget the action; for a proposing tool, its proposal of
     * them (400 when it refuses, 502 when what it reads cannot be reached).
     */
    JsonNode repropose(ApprovalRecord current, JsonNode edited) {
        if (!edited.isObject()) {
            throw ApiProblem.badField("editedArguments", "edited arguments must be a JSON object")
                    .with("approvalId", current.id());
        }
        Tool tool = tool(current.tool());
        Set<String> fixed = new LinkedHashSet<>(IDENTITY_ARGUMENTS);
        if (tool instanceof ProposingTool p) {
            fixed.addAll(p.targetArguments());
        }
        JsonNode shown = json.readTree(current.argumentsJson());
        for (String field : fixed) {
            JsonNode before = shown.path(field);
            JsonNode after = edited.path(field);
            if (!before.equals(after)) {
                throw ApiProblem.badField(
                                "editedArguments." + field,
                                "an edit may not change the " + field + " of " + current.tool() + " (asked: "
                                        + (before.isMissingNode() ? "none" : before.toString()) + ", edit: "
                                        + (after.isMissingNode() ? "none" : after.toString())
                                        + "); the target of an approved action is the one asked for. Reject the"
                                        + " request instead")
                        .with("approvalId", current.id());
            }
        }
        if (tool == null) {
            return edited;
        }
        List<String> errors = JsonSchemas.validate(tool.parametersSchema(), edited);
        if (!errors.isEmpty()) {
            throw ApiProblem.badField(
                            "editedArguments",
                            "the edits do not fit " + current.tool() + "'s arguments: " + String.join("; ", errors))
                    .with("approvalId", current.id());
        }
        if (!(tool instanceof ProposingTool proposing)) {
            return edited;
        }
        try {
            return proposing.propose(
                    edited, new ToolContext(current.runId(), current.sessionId(), current.agent(), current.callId()));
        } catch (ToolException e) {
            boolean unreachable = switch (e.category()) {
                case COMMUNICATION_ERROR, TIMEOUT_ERROR -> true;
                default -> false;
            };
            if (unreachable) {
                throw new ApiProblem(
                                HttpStatus.BAD_GATEWAY,
                                "proposal-unavailable",
                                "The edit could not be proposed",
                                current.tool() + " could not read what the edit changes: " + e.getMessage()
                                        + ". Nothing was recorded; try again.")
                        .with("approvalId", current.id())
                        .with("toolError", e.code());
            }
            throw ApiProblem.badField("editedArguments", current.tool() + " refused the edit: " + e.getMessage())
                    .with("approvalId", current.id())
                    .with("toolError", e.code());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiProblem(
                    HttpStatus.SERVICE_UNAVAILABLE,
                    "proposal-interrupted",
                    "The edit could not be proposed",
                    "interrupted while " + current.tool() + " proposed the edit; nothing was recorded");
        } catch (Exception e) {
            throw ApiProblem.badField(
                            "editedArguments",
                            current.tool() + " could not propose the edit: "
                                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()))
                    .with("approvalId", current.id());
        }
    }

    /** Whether {@code name} is a tool the platform has (a tie-break or a result review is not). */
    boolean isTool(String name) {
        return tool(name) != null;
    }

    /** The tool's words for these arguments, or null when it has none (or cannot say). */
    ProposingTool.@Nullable Words words(String toolName, JsonNode arguments) {
        if (!(tool(toolName) instanceof ProposingTool proposing)) {
            return null;
        }
        try {
            return proposing.words(arguments);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
