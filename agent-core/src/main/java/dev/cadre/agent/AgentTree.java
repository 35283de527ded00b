package dev.cadre.agent;

import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelResolver;
import dev.cadre.agent.model.ToolDefinition;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.ToolRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The validated set of agents a runner can start: every spec with its resolved model port and its
 * whitelisted tool registry. Building it rejects unknown tools, unknown workers, a worker named like
 * one of its parent's tools, an unresolvable model and delegation cycles, each with a message naming
 * the agent and the field.
 */
public final class AgentTree {

    /** The arguments every worker tool takes: {@code {task, context?, memory_keys?}}. */
    private static final JsonNode WORKER_ARGUMENTS = JsonSchemas.parse("""
            {"type":"object","properties":{
              "task":{"type":"string","minLength":1,"description":"The self-contained task for the worker."},
              "context":{"type":"string","description":"Optional background facts or constraints."},
              "memory_keys":{"type":"array","items":{"type":"string"},
                "description":"Optional shared-memory keys the worker receives as read-only inputs."}},
             "required":["task"],"additionalProperties":false}
            """);

    private final Map<String, AgentSpec> specs;
    private final Map<String, ModelPort> models;
    private final Map<String, ToolRegistry> tools;

    private AgentTree(Map<String, AgentSpec> specs, Map<String, ModelPort> models, Map<String, ToolRegistry> tools) {
        this.specs = specs;
        this.models = models;
        this.tools = tools;
    }

    /** Validates the specs against the tool registry and resolves their models. */
    public static AgentTree build(Collection<AgentSpec> agentSpecs, ToolRegistry registry, ModelResolver resolver) {
        Map<String, AgentSpec> specs = new LinkedHashMap<>();
        for (AgentSpec spec : agentSpecs) {
            if (specs.putIfAbsent(spec.name(), spec) != null) {
                throw new IllegalArgumentException("agent name '" + spec.name() + "' is defined twice");
            }
        }
        Map<String, ModelPort> models = new HashMap<>();
        Map<String, ToolRegistry> tools = new HashMap<>();
        for (AgentSpec spec : specs.values()) {
            try {
                tools.put(spec.name(), registry.whitelist(spec.tools()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("agent '" + spec.name() + "': tools: " + e.getMessage(), e);
            }
            for (String worker : spec.workers()) {
                if (!specs.containsKey(worker)) {
                    throw new IllegalArgumentException(
                            "agent '" + spec.name() + "': workers: unknown agent '" + worker + "'");
                }
                if (spec.tools().contains(worker)) {
                    throw new IllegalArgumentException("agent '" + spec.name() + "': worker '" + worker
                            + "' has the name of one of its tools; the model could not tell them apart");
                }
            }
            if (!spec.workers().isEmpty() && spec.maxDepth() == 0) {
                throw new IllegalArgumentException("agent '" + spec.name()
                        + "': maxDepth is 0 but workers are listed; they could never be called");
            }
            try {
                models.put(spec.name(), resolver.resolve(spec.model()));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        "agent '" + spec.name() + "': model: cannot resolve '" + spec.model() + "': " + e.getMessage(),
                        e);
            }
        }
        rejectCycles(specs);
        return new AgentTree(Map.copyOf(specs), Map.copyOf(models), Map.copyOf(tools));
    }

    private static void rejectCycles(Map<String, AgentSpec> specs) {
        Set<String> done = new HashSet<>();
        for (String start : specs.keySet()) {
            Deque<String> path = new ArrayDeque<>();
            visit(start, specs, path, new HashSet<>(), done);
        }
    }

    private static void visit(
            String name, Map<String, AgentSpec> specs, Deque<String> path, Set<String> onPath, Set<String> done) {
        if (done.contains(name)) {
            return;
        }
        if (onPath.contains(name)) {
            List<String> cycle = new ArrayList<>(path);
            cycle = cycle.subList(cycle.indexOf(name), cycle.size());
            cycle.add(name);
            throw new IllegalArgumentException("delegation cycle: " + String.join(" -> ", cycle)
                    + " (an agent must never be able to delegate back to itself)");
        }
        onPath.add(name);
        path.addLast(name);
        for (String worker : specs.get(name).workers()) {
            visit(worker, specs, path, onPath, done);
        }
        path.removeLast();
        onPath.remove(name);
        done.add(name);
    }

    /** Whether an agent of that name exists. */
    public boolean contains(String name) {
        return specs.containsKey(name);
    }

    /** The spec of an agent; an unknown name is an {@link IllegalArgumentException}. */
    public AgentSpec spec(String name) {
        AgentSpec spec = specs.get(name);
        if (spec == null) {
            throw new IllegalArgumentException("unknown agent '" + name + "' (known: " + specs.keySet() + ")");
        }
        return spec;
    }

    /** The model port of an agent. */
    public ModelPort model(String name) {
        spec(name);
        return models.get(name);
    }

    /** The whitelisted tools of an agent (without worker tools). */
    public ToolRegistry tools(String name) {
        spec(name);
        return tools.get(name);
    }

    /**
     * The arguments every worker tool takes, {@code {task, context?, memory_keys?}}: how an agent's
     * model is shown each of its workers. A fresh copy per call.
     */
    public static JsonNode workerToolSchema() {
        return WORKER_ARGUMENTS.deepCopy();
    }

    /**
     * What an agent's model is told: its whitelisted tools, then, when it may delegate, one worker
     * tool per worker, named after the worker and described by its description.
     */
    public List<ToolDefinition> definitions(String name, boolean withWorkers) {
        List<ToolDefinition> defs = new ArrayList<>(tools(name).definitions());
        if (withWorkers) {
            for (String worker : spec(name).workers()) {
                defs.add(new ToolDefinition(worker, spec(worker).description(), WORKER_ARGUMENTS));
            }
        }
        return List.copyOf(defs);
    }

    /** All agent names. */
    public Set<String> names() {
        return specs.keySet();
    }
}
