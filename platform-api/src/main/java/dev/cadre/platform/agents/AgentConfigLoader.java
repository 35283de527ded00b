package dev.cadre.platform.agents;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.Budget;
import dev.cadre.agent.ReviewPolicy;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.tool.output.ToolOutputBudget;
import dev.cadre.agent.tool.output.ToolOutputCaps;
import dev.cadre.agent.tool.output.ToolOutputs;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.io.Resource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads agent YAML files: a list of {@code agents} (spec fields of DESIGN §2) and optional
 * {@code scripts} for the scripted model. Collects every problem — file, agent and field named —
 * instead of stopping at the first, so one start-up shows all that needs fixing.
 */
final class AgentConfigLoader {

    private static final Set<String> AGENT_FIELDS = Set.of(
            "name",
            "description",
            "instructions",
            "model",
            "tools",
            "workers",
            "budget",
            "review",
            "maxDepth",
            "memory",
            "internal",
            "toolOutput",
            "expose",
            "kubernetes");
    private static final Set<String> TOOL_OUTPUT_FIELDS = Set.of("maxBytes", "tools");
    private static final Set<String> BUDGET_FIELDS = Set.of("maxIterations", "maxTokens", "timeout");
    private static final Set<String> FILE_FIELDS = Set.of("agents", "scripts", "workflows");

    private final YAMLMapper yaml = YAMLMapper.builder().build();

    /** What a set of files defines. */
    record Loaded(
            List<AgentSpec> specs,
            Map<String, String> sourceOf,
            Map<String, Object> scripts,
            Map<String, List<String>> memoryNamespaces,
            List<String> problems,
            Map<String, List<ModelRef>> fallbacks,
            Map<String, List<String>> kubernetesNamespaces) {}

    /** A namespace name, or a prefix ending in {@code *}. */
    private static final java.util.regex.Pattern NAMESPACE_ENTRY =
            java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}\\*?|\\*");

    Loaded load(List<Resource> files) {
        List<AgentSpec> specs = new ArrayList<>();
        Map<String, String> sourceOf = new LinkedHashMap<>();
        Map<String, Object> scripts = new LinkedHashMap<>();
        Map<String, List<String>> memory = new LinkedHashMap<>();
        Map<String, List<String>> kubernetes = new LinkedHashMap<>();
        Map<String, List<ModelRef>> fallbacks = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Resource file : files) {
            String where = file.getFilename() == null ? file.getDescription() : file.getFilename();
            JsonNode root;
            try (InputStream in = file.getInputStream()) {
                root = yaml.readTree(in);
            } catch (IOException | JacksonException e) {
                problems.add(where + ": not readable YAML: " + firstLine(e.getMessage()));
                continue;
            }
            if (root == null || root.isMissingNode() || root.isNull()) {
                continue;
            }
            if (!root.isObject()) {
                problems.add(where + ": the top level must be a mapping with 'agents' (and optionally 'scripts')");
                continue;
            }
            unknownFields(root, FILE_FIELDS, where + ": ", problems);
            JsonNode agents = root.path("agents");
            if (!agents.isMissingNode() && !agents.isArray()) {
                problems.add(where + ": 'agents' must be a list");
            } else {
                int i = 0;
                for (JsonNode node : agents) {
                    AgentSpec spec = spec(node, where, i++, problems);
                    if (spec != null) {
                        String previous = sourceOf.putIfAbsent(spec.name(), where);
                        if (previous != null) {
                            problems.add(where + ": agent '" + spec.name() + "': name already defined in " + previous);
                        } else {
                            specs.add(spec);
                            memory.put(
                                    spec.name(),
                                    memoryNamespaces(node, where + ": agent '" + spec.name() + "': ", problems));
                            kubernetes.put(
                                    spec.name(),
                                    kubernetesNamespaces(node, where + ": agent '" + spec.name() + "': ", problems));
                            List<ModelRef> more = fallbackModels(node.path("model"));
                            if (!more.isEmpty()) {
                                fallbacks.put(spec.name(), more);
                            }
                        }
                    }
                }
            }
            JsonNode scriptNode = root.path("scripts");
            if (!scriptNode.isMissingNode()) {
                if (!scriptNode.isObject()) {
                    problems.add(where + ": 'scripts' must be a mapping of agent name to script");
                } else {
                    for (Map.Entry<String, JsonNode> e : scriptNode.properties()) {
                        if (scripts.put(e.getKey(), yaml.treeToValue(e.getValue(), Object.class)) != null) {
                            problems.add(
                                    where + ": scripts." + e.getKey() + ": script already defined in another file");
                        }
                    }
                }
            }
        }
        return new Loaded(specs, sourceOf, scripts, memory, problems, fallbacks, kubernetes);
    }

    /** {@code model: [primary, fallback, ...]}: the fallbacks (checked when the primary was parsed). */
    private static List<ModelRef> fallbackModels(JsonNode model) {
        List<ModelRef> out = new ArrayList<>();
        if (model.isArray()) {
            for (int i = 1; i < model.size(); i++) {
                out.add(ModelRef.parse(model.get(i).asString()));
            }
        }
        return out;
    }

    /**
     * The {@code memory} field: the shared-memory namespaces the agent's memory tools may read and
     * write (absent: none). The platform's own namespaces (incident records) are never the model's.
     */
    private static List<String> memoryNamespaces(JsonNode node, String where, List<String> problems) {
        List<String> entries = names(node, "memory", where, problems);
        for (String e : entries) {
            if (!NAMESPACE_ENTRY.matcher(e).matches()) {
                problems.add(where + "field 'memory': '" + e
                        + "' is not a namespace name (letters, digits, . _ : -) or a prefix ending in *");
            } else if (e.endsWith("*")
                    && AgentCatalog.PLATFORM_NAMESPACES.stream()
                            .anyMatch(p -> p.startsWith(e.substring(0, e.length() - 1)))) {
                problems.add(where + "field 'memory': '" + e + "' would include the platform's namespaces "
                        + AgentCatalog.PLATFORM_NAMESPACES
                        + " (incident records change only through the incident_* tools)");
            } else if (AgentCatalog.PLATFORM_NAMESPACES.contains(e)) {
                problems.add(where + "field 'memory': '" + e + "' is the platform's namespace"
                        + " (incident records change only through the incident_* tools)");
            }
        }
        return entries;
    }

    /** A Kubernetes namespace name (RFC 1123 label), a prefix of one ending in {@code *}, or {@code *}. */
    private static final java.util.regex.Pattern KUBERNETES_NAMESPACE_ENTRY =
            java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?|[a-z0-9][-a-z0-9]{0,61}\\*|\\*");

    /**
     * The {@code kubernetes} field, {@code {namespaces: [shop, "team-*"]}}: the namespaces the agent's
     * Kubernetes tools may reach (absent: none).
     */
    private static List<String> kubernetesNamespaces(JsonNode node, String where, List<String> problems) {
        JsonNode k = node.get("kubernetes");
        if (k == null || k.isNull()) {
            return List.of();
        }
        if (!k.isObject()) {
            problems.add(where + "field 'kubernetes': must be a mapping like {namespaces: [shop, \"team-*\"]}");
            return List.of();
        }
        unknownFields(k, Set.of("namespaces"), where + "field 'kubernetes': ", problems);
        List<String> entries = names(k, "namespaces", where + "kubernetes.", problems);
        for (String e : entries) {
            if (!KUBERNETES_NAMESPACE_ENTRY.matcher(e).matches()) {
                problems.add(
                        where + "field 'kubernetes.namespaces': '" + e
                                + "' is not a Kubernetes namespace name (lower-case letters, digits, -) or a prefix ending in *");
            }
        }
        return List.copyOf(entries);
    }

    private @Nullable AgentSpec spec(JsonNode node, String file, int index, List<String> problems) {
        if (!node.isObject()) {
            problems.add(file + ": agents[" + index + "]: must be a mapping of spec fields");
            return null;
        }
        String name = node.path("name").asString("");
        String where = file + ": agent '" + (name.isBlank() ? "#" + index : name) + "': ";
        int before = problems.size();
        unknownFields(node, AGENT_FIELDS, where, problems);
        if (name.isBlank()) {
            problems.add(where + "field 'name': required");
        }
        String description = text(node, "description", where, problems, true);
        String instructions = text(node, "instructions", where, problems, false);
        ModelRef model = null;
        String modelText;
        JsonNode modelNode = node.path("model");
        if (modelNode.isArray()) {
            // model: [openai:gpt-4o, ollama:llama3] — the first, then each next when the one before is unavailable
            modelText = null;
            if (modelNode.isEmpty()) {
                problems.add(where + "field 'model': an empty list (give provider:model, or a list of them)");
            }
            for (int i = 0; i < modelNode.size(); i++) {
                JsonNode m = modelNode.get(i);
                if (!m.isString()) {
                    problems.add(where + "field 'model': entry " + (i + 1) + " must be text (provider:model)");
                    continue;
                }
                try {
                    ModelRef parsed = ModelRef.parse(m.asString());
                    if (i == 0) {
                        modelText = m.asString();
                    }
                    if (parsed.provider().equals("scripted") && modelNode.size() > 1) {
                        problems.add(where + "field 'model': the scripted model cannot be part of a fallback list");
                    }
                } catch (IllegalArgumentException e) {
                    problems.add(where + "field 'model': entry " + (i + 1) + ": " + e.getMessage());
                }
            }
        } else {
            modelText = text(node, "model", where, problems, false);
        }
        try {
            model = modelText == null || modelText.isBlank()
                    ? new ModelRef("scripted", "default")
                    : ModelRef.parse(modelText);
        } catch (IllegalArgumentException e) {
            problems.add(where + "field 'model': " + e.getMessage());
        }
        List<String> tools = names(node, "tools", where, problems);
        List<String> workers = names(node, "workers", where, problems);
        Budget budget = budget(node.path("budget"), where, problems);
        ReviewPolicy review = ReviewPolicy.NONE;
        if (node.has("review")) {
            String r = node.path("review")
                    .asString("")
                    .trim()
                    .toUpperCase(Locale.ROOT)
                    .replace('-', '_');
            try {
                review = ReviewPolicy.valueOf(r);
            } catch (IllegalArgumentException e) {
                problems.add(where + "field 'review': '" + node.path("review").asString("") + "' is not one of "
                        + List.of(ReviewPolicy.values()).stream()
                                .map(v -> v.name().toLowerCase(Locale.ROOT))
                                .toList());
            }
        }
        int maxDepth = 1;
        if (node.has("maxDepth")) {
            if (!node.path("maxDepth").isIntegralNumber()
                    || node.path("maxDepth").asInt() < 0) {
                problems.add(where + "field 'maxDepth': must be a whole number ≥ 0");
            } else {
                maxDepth = node.path("maxDepth").asInt();
            }
        }
        ToolOutputCaps toolOutput = toolOutput(node.path("toolOutput"), tools, where, problems);
        if (problems.size() > before) {
            return null;
        }
        try {
            return new AgentSpec(
                    name,
                    description,
                    instructions == null ? "" : instructions,
                    model,
                    tools,
                    workers,
                    budget,
                    review,
                    maxDepth,
                    toolOutput);
        } catch (IllegalArgumentException | NullPointerException e) {
            problems.add(where + e.getMessage());
            return null;
        }
    }

    /** {@code toolOutput: {maxBytes: 8192, tools: {k8s_logs: 32768}}}: the agent's tool output caps. */
    private static ToolOutputCaps toolOutput(JsonNode node, List<String> tools, String where, List<String> problems) {
        if (node.isMissingNode() || node.isNull()) {
            return ToolOutputCaps.NONE;
        }
        if (!node.isObject()) {
            problems.add(where + "field 'toolOutput': must be a mapping with maxBytes and/or tools");
            return ToolOutputCaps.NONE;
        }
        unknownFields(node, TOOL_OUTPUT_FIELDS, where + "toolOutput: ", problems);
        Integer maxBytes = null;
        if (node.has("maxBytes")) {
            maxBytes = cap(node.get("maxBytes"), "toolOutput.maxBytes", where, problems);
        }
        Map<String, Integer> perTool = new LinkedHashMap<>();
        JsonNode toolCaps = node.path("tools");
        if (!toolCaps.isMissingNode() && !toolCaps.isObject()) {
            problems.add(where + "field 'toolOutput.tools': must be a mapping of tool name to bytes");
        } else if (toolCaps.isObject()) {
            for (String tool : toolCaps.propertyNames()) {
                if (!tools.contains(tool) && !ToolOutputs.READ_TOOL.equals(tool)) {
                    problems.add(where + "field 'toolOutput.tools." + tool + "': '" + tool
                            + "' is not one of the agent's tools " + tools);
                    continue;
                }
                Integer cap = cap(toolCaps.get(tool), "toolOutput.tools." + tool, where, problems);
                if (cap != null) {
                    perTool.put(tool, cap);
                }
            }
        }
        return new ToolOutputCaps(maxBytes, perTool);
    }

    private static @Nullable Integer cap(JsonNode value, String field, String where, List<String> problems) {
        if (!value.isIntegralNumber()
                || value.asLong() < ToolOutputBudget.MIN_CAP
                || value.asLong() > Integer.MAX_VALUE) {
            problems.add(
                    where + "field '" + field + "': must be a whole number of bytes ≥ " + ToolOutputBudget.MIN_CAP);
            return null;
        }
        return value.asInt();
    }

    private static Budget budget(JsonNode node, String where, List<String> problems) {
        if (node.isMissingNode() || node.isNull()) {
            return Budget.DEFAULT;
        }
        if (!node.isObject()) {
            problems.add(where + "field 'budget': must be a mapping with maxIterations, maxTokens, timeout");
            return Budget.DEFAULT;
        }
        unknownFields(node, BUDGET_FIELDS, where + "budget: ", problems);
        int iterations = Budget.DEFAULT.maxIterations();
        long tokens = Budget.DEFAULT.maxTokens();
        Duration timeout = Budget.DEFAULT.timeout();
        if (node.has("maxIterations")) {
            if (!node.get("maxIterations").isIntegralNumber()
                    || node.get("maxIterations").asInt() < 1) {
                problems.add(where + "field 'budget.maxIterations': must be a whole number ≥ 1");
            } else {
                iterations = node.get("maxIterations").asInt();
            }
        }
        if (node.has("maxTokens")) {
            if (!node.get("maxTokens").isIntegralNumber()
                    || node.get("maxTokens").asLong() < 1) {
                problems.add(where + "field 'budget.maxTokens': must be a whole number ≥ 1");
            } else {
                tokens = node.get("maxTokens").asLong();
            }
        }
        if (node.has("timeout")) {
            try {
                timeout = DurationStyle.detectAndParse(node.get("timeout").asString(""));
                if (timeout.isNegative() || timeout.isZero()) {
                    problems.add(where + "field 'budget.timeout': must be positive");
                }
            } catch (IllegalArgumentException e) {
                problems.add(where + "field 'budget.timeout': '"
                        + node.get("timeout").asString("") + "' is not a duration (e.g. 90s, 5m or PT5M)");
            }
        }
        return new Budget(
                iterations, tokens, timeout.isNegative() || timeout.isZero() ? Budget.DEFAULT.timeout() : timeout);
    }

    private static @Nullable String text(
            JsonNode node, String field, String where, List<String> problems, boolean required) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                problems.add(where + "field '" + field + "': required");
            }
            return null;
        }
        if (!v.isString()) {
            problems.add(where + "field '" + field + "': must be text");
            return null;
        }
        if (required && v.asString().isBlank()) {
            problems.add(where + "field '" + field + "': must not be blank");
        }
        return v.asString();
    }

    private static List<String> names(JsonNode node, String field, String where, List<String> problems) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (!v.isArray()) {
            problems.add(where + "field '" + field + "': must be a list of names");
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (JsonNode n : v) {
            if (!n.isString() || n.asString().isBlank()) {
                problems.add(where + "field '" + field + "': every entry must be a non-empty name");
            } else {
                out.add(n.asString());
            }
        }
        return out;
    }

    private static void unknownFields(JsonNode node, Set<String> known, String where, List<String> problems) {
        for (String f : node.propertyNames()) {
            if (!known.contains(f)) {
                problems.add(where + "unknown field '" + f + "' (known: "
                        + known.stream().sorted().toList() + ")");
            }
        }
    }

    private static String firstLine(@Nullable String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
