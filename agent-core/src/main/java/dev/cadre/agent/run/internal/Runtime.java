package dev.cadre.agent.run.internal;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.AgentTree;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.journal.ToolJournal;
import dev.cadre.agent.model.TokenEstimator;
import dev.cadre.agent.model.ToolDefinition;
import dev.cadre.agent.run.RunLimits;
import dev.cadre.agent.run.SharedInputs;
import dev.cadre.agent.run.SubagentLimiter;
import dev.cadre.agent.telemetry.AgentTelemetryListener;
import dev.cadre.agent.tool.RiskPolicy;
import dev.cadre.agent.tool.output.ToolOutputs;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import tools.jackson.databind.JsonNode;

/** Everything a runner's executions share: configuration, ports, the timer and cached definitions. */
public record Runtime(
        AgentTree tree,
        Spans spans,
        AgentTelemetryListener listener,
        ApprovalGate approvals,
        ToolJournal journal,
        SubagentLimiter limiter,
        RunLimits limits,
        SharedInputs sharedInputs,
        TokenEstimator estimator,
        ScheduledExecutorService timer,
        Map<String, List<ToolDefinition>> definitionCache,
        ToolOutputs toolOutputs,
        RiskPolicy risks) {

    /** A runtime whose tool calls run at their tools' declared risk. */
    public Runtime(
            AgentTree tree,
            Spans spans,
            AgentTelemetryListener listener,
            ApprovalGate approvals,
            ToolJournal journal,
            SubagentLimiter limiter,
            RunLimits limits,
            SharedInputs sharedInputs,
            TokenEstimator estimator,
            ScheduledExecutorService timer,
            Map<String, List<ToolDefinition>> definitionCache,
            ToolOutputs toolOutputs) {
        this(
                tree,
                spans,
                listener,
                approvals,
                journal,
                limiter,
                limits,
                sharedInputs,
                estimator,
                timer,
                definitionCache,
                toolOutputs,
                RiskPolicy.DECLARED);
    }

    /** The arguments every worker tool takes: {@code {task, context?, memory_keys?}}. */
    public static final JsonNode DELEGATION_SCHEMA = AgentTree.workerToolSchema();

    public Runtime {
        definitionCache = new ConcurrentHashMap<>(definitionCache);
    }

    /** The tools an agent's model is told about: its whitelist, plus its workers when it may delegate. */
    public List<ToolDefinition> definitions(AgentSpec spec, boolean canDelegate) {
        String key = spec.name() + (canDelegate ? "+workers" : "");
        return definitionCache.computeIfAbsent(key, k -> tree.definitions(spec.name(), canDelegate));
    }
}
