package dev.cadre.platform.agents;

import dev.cadre.agent.workflow.Workflow;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.Resource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads the {@code workflows} section of agent YAML files (and every entry's {@code internal} flag,
 * agents' included) into agent-core {@link Workflow}s. Like {@link AgentConfigLoader} it collects
 * every problem with file, workflow and field named, so one start-up shows all that needs fixing.
 * Reading YAML is cheap; doing it here instead of in the agent loader keeps the two independent.
 */
final class WorkflowConfig {

    /** The shapes a workflow entry may have (and the aliases operators write). */
    static final List<String> TYPES =
            List.of("sequence", "parallel", "map-reduce", "map_reduce", "debate", "split", "handoff");

    private static final Map<String, Set<String>> FIELDS = Map.of(
            "sequence", Set.of("steps"),
            "parallel", Set.of("agents", "agent", "over", "parallelism"),
            "debate", Set.of("participants", "maxRounds", "consensus", "judge"),
            "split", Set.of("agent", "maxChunkChars", "parallelism"),
            "handoff", Set.of("agents", "maxHandoffs"),
            "agent", Set.of("agent"));
    private static final Set<String> COMMON = Set.of("name", "type", "description", "internal", "expose");
    private static final Pattern MEMORY_SOURCE = Pattern.compile("memory:[A-Za-z0-9][A-Za-z0-9._:-]*/.+");

    /** What the files declare: workflows by name, the agents marked internal, and the problems found. */
    record Loaded(Map<String, DeclaredWorkflow> workflows, Set<String> internalAgents, List<String> problems) {}

    private final YAMLMapper yaml = YAMLMapper.builder().build();

    Loaded load(List<Resource> files, Set<String> agents) {
        Map<String, DeclaredWorkflow> workflows = new LinkedHashMap<>();
        Set<String> internal = new LinkedHashSet<>();
        List<String> problems = new ArrayList<>();
        for (Resource file : files) {
            String where = file.getFilename() == null ? file.getDescription() : file.getFilename();
            JsonNode root;
            try (InputStream in = file.getInputStream()) {
                root = yaml.readTree(in);
            } catch (IOException | JacksonException e) {
                continue; // the agent loader reports unreadable files
            }
            if (root == null || !root.isObject()) {
                continue;
            }
            for (JsonNode agent : root.path("agents")) {
                JsonNode flag = agent.path("internal");
                if (flag.isMissingNode() || flag.isNull()) {
                    continue;
                }
                String name = agent.path("name").asString("");
                if (!flag.isBoolean()) {
                    problems.add(where + ": agent '" + name + "': field 'internal': must be true or false");
                } else if (flag.asBoolean()) {
                    internal.add(name);
                }
            }
            JsonNode list = root.path("workflows");
            if (list.isMissingNode() || list.isNull()) {
                continue;
            }
            if (!list.isArray()) {
                problems.add(where + ": 'workflows' must be a list");
                continue;
            }
            int i = 0;
            for (JsonNode node : list) {
                DeclaredWorkflow d = declared(node, where, i++, agents, problems);
                if (d == null) {
                    continue;
                }
                if (agents.contains(d.name())) {
                    problems.add(where + ": workflow '" + d.name()
                            + "': field 'name': an agent already has this name (runs name one or the other)");
                } else if (workflows.containsKey(d.name())) {
                    problems.add(where + ": workflow '" + d.name() + "': field 'name': already defined in "
                            + workflows.get(d.name()).source());
                } else {
                    workflows.put(d.name(), d);
                }
            }
        }
        return new Loaded(workflows, internal, problems);
    }

    private @Nullable DeclaredWorkflow declared(
            JsonNode node, String file, int index, Set<String> agents, List<String> problems) {
        if (!node.isObject()) {
            problems.add(file + ": workflows[" + index + "]: must be a mapping with name, type and its fields");
            return null;
        }
        String name = node.path("name").asString("");
        String where = file + ": workflow '" + (name.isBlank() ? "#" + index : name) + "': ";
        int before = problems.size();
        if (name.isBlank()) {
            problems.add(where + "field 'name': required");
        }
        JsonNode description = node.path("description");
        if (!description.isString() || description.asString().isBlank()) {
            problems.add(where + "field 'description': required (callers and the console choose by it)");
        }
        boolean internal = false;
        if (node.has("internal")) {
            if (!node.get("internal").isBoolean()) {
                problems.add(where + "field 'internal': must be true or false");
            } else {
                internal = node.get("internal").asBoolean();
            }
        }
        Workflow workflow = shape(node, name, "", where, agents, problems, true);
        if (problems.size() > before || workflow == null) {
            return null;
        }
        return new DeclaredWorkflow(name, description.asString(), internal, workflow, file);
    }

    /** One workflow or nested step; {@code path} prefixes field names ({@code steps[1].}). */
    private @Nullable Workflow shape(
            JsonNode node,
            String name,
            String path,
            String where,
            Set<String> agents,
            List<String> problems,
            boolean top) {
        if (node.isString()) {
            String agent = node.asString();
            requireAgent(
                    agent, path.isEmpty() ? "agent" : path.substring(0, path.length() - 1), where, agents, problems);
            return new Workflow.AgentStep(agent, agent);
        }
        if (!node.isObject()) {
            problems.add(where + "field '" + path.replaceAll("\\.$", "")
                    + "': a step is an agent name or a mapping with a type");
            return null;
        }
        String type = node.path("type").asString("");
        if (type.isBlank() && !top && node.has("agent") && !node.has("over")) {
            type = "agent";
        }
        String kind = switch (type) {
            case "map-reduce", "map_reduce" -> "parallel";
            default -> type;
        };
        if (!FIELDS.containsKey(kind) || (top && kind.equals("agent"))) {
            problems.add(where + "field '" + path + "type': " + (type.isBlank() ? "required" : "'" + type + "'")
                    + " (one of " + TYPES + ")");
            return null;
        }
        Set<String> known = new LinkedHashSet<>(FIELDS.get(kind));
        known.addAll(COMMON);
        for (String f : node.propertyNames()) {
            if (!known.contains(f)
                    || (!top && (f.equals("internal") || f.equals("description") || f.equals("expose")))) {
                problems.add(where + "field '" + path + f + "': unknown for a " + type + " (known: "
                        + FIELDS.get(kind).stream().sorted().toList() + ")");
            }
        }
        String label = top
                ? name
                : node.path("name")
                        .asString(kind.equals("agent") ? node.path("agent").asString("agent") : type);
        int before = problems.size();
        Workflow out;
        switch (kind) {
            case "agent" -> {
                String agent = agentField(node, "agent", path, where, agents, problems);
                out = agent == null ? null : new Workflow.AgentStep(label, agent);
            }
            case "sequence" -> {
                JsonNode steps = node.path("steps");
                if (!steps.isArray() || steps.isEmpty()) {
                    problems.add(where + "field '" + path + "steps': a non-empty list of agent names or steps");
                    return null;
                }
                List<Workflow> list = new ArrayList<>();
                int i = 0;
                for (JsonNode step : steps) {
                    Workflow w = shape(step, "", path + "steps[" + i++ + "].", where, agents, problems, false);
                    if (w != null) {
                        list.add(w);
                    }
                }
                out = problems.size() > before ? null : new Workflow.Sequence(label, list);
            }
            case "parallel" -> {
                boolean hasAgents = node.has("agents");
                boolean hasAgent = node.has("agent");
                if (hasAgents == hasAgent) {
                    problems.add(where + "field '" + path
                            + "agents': give either 'agents' (each runs on the same input) or 'agent' with 'over'"
                            + " (one run per item of a list)");
                    return null;
                }
                if (hasAgents) {
                    if (node.has("over") || node.has("parallelism")) {
                        problems.add(where + "field '" + path
                                + "over': only with 'agent' (a fan-out over a list), not with 'agents'");
                    }
                    List<String> list = agentList(node, "agents", 1, path, where, agents, problems);
                    out = problems.size() > before ? null : new Workflow.MapReduce(label, list);
                } else {
                    String agent = agentField(node, "agent", path, where, agents, problems);
                    String over = node.path("over").asString("input");
                    if (!over.equals("input") && !MEMORY_SOURCE.matcher(over).matches()) {
                        problems.add(where + "field '" + path + "over': '" + over
                                + "' is neither 'input' (its lines) nor 'memory:<namespace>/<key>'");
                    }
                    int parallelism = positive(node, "parallelism", 4, path, where, problems);
                    out = problems.size() > before ? null : new Workflow.FanOut(label, agent, over, parallelism);
                }
            }
            case "debate" -> {
                List<String> participants = agentList(node, "participants", 2, path, where, agents, problems);
                int rounds = positive(node, "maxRounds", 3, path, where, problems);
                double consensus = 0.8;
                if (node.has("consensus")) {
                    JsonNode c = node.get("consensus");
                    if (!c.isNumber() || !(c.asDouble() > 0 && c.asDouble() <= 1)) {
                        problems.add(where + "field '" + path
                                + "consensus': the share of participants that must agree, in (0, 1]");
                    } else {
                        consensus = c.asDouble();
                    }
                }
                String judge = node.has("judge") ? agentField(node, "judge", path, where, agents, problems) : null;
                out = problems.size() > before
                        ? null
                        : new Workflow.Debate(label, participants, rounds, consensus, judge);
            }
            case "split" -> {
                String agent = agentField(node, "agent", path, where, agents, problems);
                int chunk = positive(node, "maxChunkChars", 400, path, where, problems);
                int parallelism = positive(node, "parallelism", 4, path, where, problems);
                out = problems.size() > before ? null : new Workflow.Split(label, agent, chunk, parallelism);
            }
            case "handoff" -> {
                List<String> list = agentList(node, "agents", 1, path, where, agents, problems);
                int max = 3;
                if (node.has("maxHandoffs")) {
                    if (!node.get("maxHandoffs").isIntegralNumber()
                            || node.get("maxHandoffs").asInt() < 0) {
                        problems.add(where + "field '" + path + "maxHandoffs': must be a whole number ≥ 0");
                    } else {
                        max = node.get("maxHandoffs").asInt();
                    }
                }
                out = problems.size() > before ? null : new Workflow.Handoff(label, list, max);
            }
            default -> throw new IllegalStateException("unhandled workflow type " + kind);
        }
        return out;
    }

    private static @Nullable String agentField(
            JsonNode node, String field, String path, String where, Set<String> agents, List<String> problems) {
        JsonNode v = node.path(field);
        if (!v.isString() || v.asString().isBlank()) {
            problems.add(where + "field '" + path + field + "': required (an agent name)");
            return null;
        }
        requireAgent(v.asString(), path + field, where, agents, problems);
        return v.asString();
    }

    private static List<String> agentList(
            JsonNode node,
            String field,
            int min,
            String path,
            String where,
            Set<String> agents,
            List<String> problems) {
        JsonNode v = node.path(field);
        if (!v.isArray() || v.size() < min) {
            problems.add(where + "field '" + path + field + "': a list of at least " + min + " agent name"
                    + (min > 1 ? "s" : ""));
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (JsonNode n : v) {
            if (!n.isString() || n.asString().isBlank()) {
                problems.add(where + "field '" + path + field + "': every entry must be an agent name");
            } else {
                requireAgent(n.asString(), path + field, where, agents, problems);
                out.add(n.asString());
            }
        }
        return out;
    }

    private static void requireAgent(
            String agent, String field, String where, Set<String> agents, List<String> problems) {
        if (!agents.contains(agent)) {
            problems.add(where + "field '" + field + "': unknown agent '" + agent + "' (defined: " + agents + ")");
        }
    }

    private static int positive(
            JsonNode node, String field, int fallback, String path, String where, List<String> problems) {
        if (!node.has(field)) {
            return fallback;
        }
        JsonNode v = node.get(field);
        if (!v.isIntegralNumber() || v.asInt() < 1) {
            problems.add(where + "field '" + path + field + "': must be a whole number ≥ 1");
            return fallback;
        }
        return v.asInt();
    }
}
