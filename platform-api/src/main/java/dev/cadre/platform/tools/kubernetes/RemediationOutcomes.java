package dev.cadre.platform.tools.kubernetes;

import dev.cadre.agent.tool.ToolContext;
import tools.jackson.databind.JsonNode;

/**
 * Where the verified outcome of an approved Kubernetes write goes: the incident of the run that made
 * it (the platform wires it). The platform records it, not the model: an agent cannot call a failed
 * rollout a success.
 */
@FunctionalInterface
public interface RemediationOutcomes {

    /** Records nothing (no incidents wired, e.g. a tool under test). */
    RemediationOutcomes NONE = (ctx, action, arguments, verdict, summary, evidence) -> {};

    /**
     * @param action the tool ({@code k8s_rollout_undo})
     * @param arguments the bound arguments the human approved
     * @param verdict {@code SUCCEEDED}, {@code FAILED} or {@code TIMED_OUT}
     */
    void record(ToolContext ctx, String action, JsonNode arguments, String verdict, String summary, JsonNode evidence);
}
