package dev.cadre.platform.agents;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.AgentTree;
import dev.cadre.agent.model.FallbackModelPort;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.ResourcePatternResolver;

/**
 * The configured agents: specs read from YAML, checked against the tools and model providers the
 * platform actually has, and assembled into the {@link AgentTree} runs execute. A configuration
 * error stops start-up with every problem listed.
 */
public final class AgentCatalog {

    /**
     * Namespaces the platform itself keeps (incident records): no agent's YAML may list them and no
     * agent's memory tools may touch them. Declared here, where agent configurations are checked, so
     * the memory tools depend on agents and not the other way round.
     */
    /** Where the platform keeps incident records. */
    public static final String INCIDENTS_NAMESPACE = "incidents";

    public static final Set<String> PLATFORM_NAMESPACES = Set.of(INCIDENTS_NAMESPACE);

    private static final Logger log = LoggerFactory.getLogger(AgentCatalog.class);

    private final List<AgentSpec> specs;
    private final Map<String, String> sourceOf;
    private final AgentTree tree;
    private final ToolRegistry tools;
    private final @Nullable ScriptedModel scripted;
    private final Map<String, List<String>> memoryNamespaces;
    private final Map<String, List<String>> kubernetesNamespaces;
    private Map<String, DeclaredWorkflow> workflows = Map.of();
    private Set<String> internalAgents = Set.of();
    private Map<String, Set<Channel>> exposed = Map.of();

    /** The channels besides REST over which an agent or workflow can be declared reachable. */
    public enum Channel {
        /** The A2A JSON-RPC endpoint ({@code /a2a}) and the Agent Card's skills. */
        A2A,
        /** Cadre's MCP server ({@code /mcp}). */
        MCP
    }

    private AgentCatalog(
            List<AgentSpec> specs,
            Map<String, String> sourceOf,
            AgentTree tree,
            ToolRegistry tools,
            @Nullable ScriptedModel scripted,
            Map<String, List<String>> memoryNamespaces,
            Map<String, List<String>> kubernetesNamespaces) {
        this.memoryNamespaces = Map.copyOf(memoryNamespaces);
        this.kubernetesNamespaces = Map.copyOf(kubernetesNamespaces);
        this.specs = specs;
        this.sourceOf = sourceOf;
        this.tree = tree;
        this.tools = tools;
        this.scripted = scripted;
    }

    /** Resolves model references of providers other than {@code scripted}. */
    public interface ProviderModels {
        /** The model for {@code ref}, or empty when its provider is not configured. */
        Optional<ModelPort> model(ModelRef ref);

        /** Providers this platform can reach, for error messages. */
        List<String> providers();
    }

    static AgentCatalog load(
            ResourcePatternResolver resolver, List<String> locations, List<Tool> allTools, ProviderModels providers) {
        List<Resource> files = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (String location : locations) {
            try {
                Resource[] found = resolver.getResources(location);
                Arrays.sort(found, Comparator.comparing(r -> String.valueOf(r.getFilename())));
                if (found.length == 0) {
                    problems.add(location + ": no agent files found (cadre.agents.locations)");
                }
                files.addAll(Arrays.stream(found).filter(Resource::exists).toList());
            } catch (IOException e) {
                problems.add(location + ": cannot be read: " + e.getMessage());
            }
        }
        AgentConfigLoader.Loaded loaded = new AgentConfigLoader().load(files);
        problems.addAll(loaded.problems());

        ToolRegistry registry;
        try {
            registry = ToolRegistry.of(allTools);
        } catch (IllegalArgumentException e) {
            throw new AgentConfigException(List.of("tools: " + e.getMessage()));
        }
        Map<String, AgentSpec> byName = new LinkedHashMap<>();
        loaded.specs().forEach(s -> byName.put(s.name(), s));
        for (AgentSpec spec : loaded.specs()) {
            String where = loaded.sourceOf().get(spec.name()) + ": agent '" + spec.name() + "': ";
            for (String tool : spec.tools()) {
                if (!registry.contains(tool)) {
                    problems.add(
                            where + "field 'tools': unknown tool '" + tool + "' (available: " + registry.names() + ")");
                }
            }
            for (String worker : spec.workers()) {
                if (!byName.containsKey(worker)) {
                    problems.add(where + "field 'workers': unknown agent '" + worker + "' (defined: " + byName.keySet()
                            + ")");
                }
            }
            String provider = spec.model().provider();
            if (provider.equals("scripted")) {
                if (!loaded.scripts().containsKey(spec.name())) {
                    problems.add(
                            where + "field 'model': scripted model but no script under 'scripts." + spec.name() + "'");
                }
            } else if (providers.model(spec.model()).isEmpty()) {
                problems.add(where + "field 'model': provider '" + provider + "' is not configured (configured: "
                        + providers.providers() + "; see docs/configuration.md)");
            }
            for (ModelRef fallback : loaded.fallbacks().getOrDefault(spec.name(), List.of())) {
                if (providers.model(fallback).isEmpty()) {
                    problems.add(where + "field 'model': fallback provider '" + fallback.provider()
                            + "' is not configured (configured: " + providers.providers() + ")");
                }
            }
        }
        // The tree resolves models by reference: one chain per primary model, so two agents naming the
        // same primary must name the same fallbacks.
        Map<ModelRef, List<ModelRef>> chains = new LinkedHashMap<>();
        for (AgentSpec spec : loaded.specs()) {
            List<ModelRef> chain = new ArrayList<>();
            chain.add(spec.model());
            chain.addAll(loaded.fallbacks().getOrDefault(spec.name(), List.of()));
            List<ModelRef> other = chains.putIfAbsent(spec.model(), chain);
            if (other != null && !other.equals(chain)) {
                problems.add(loaded.sourceOf().get(spec.name()) + ": agent '" + spec.name()
                        + "': field 'model': another agent names " + spec.model() + " first with the fallbacks "
                        + other.subList(1, other.size()) + "; agents sharing a primary model share its fallbacks");
            }
        }
        WorkflowConfig.Loaded declared =
                new WorkflowConfig().load(files, new java.util.LinkedHashSet<>(byName.keySet()));
        problems.addAll(declared.problems());
        Exposure.Loaded exposure = new Exposure().load(files);
        problems.addAll(exposure.problems());
        ScriptedModel scripted = null;
        if (!loaded.scripts().isEmpty()) {
            try {
                scripted = ScriptedModel.fromMap(Map.of("agents", loaded.scripts()));
            } catch (IllegalArgumentException e) {
                problems.add("scripts: " + e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new AgentConfigException(problems);
        }
        ScriptedModel scriptedModel = scripted;
        AgentTree tree;
        try {
            tree = AgentTree.build(
                    loaded.specs(),
                    registry,
                    ref -> ref.provider().equals("scripted")
                            ? scriptedModel
                            : chain(chains.getOrDefault(ref, List.of(ref)), providers));
        } catch (IllegalArgumentException e) {
            throw new AgentConfigException(List.of(e.getMessage()));
        }
        log.info(
                "Loaded {} agents from {}",
                loaded.specs().size(),
                files.stream().map(Resource::getFilename).toList());
        AgentCatalog catalog = new AgentCatalog(
                loaded.specs(),
                loaded.sourceOf(),
                tree,
                registry,
                scriptedModel,
                loaded.memoryNamespaces(),
                loaded.kubernetesNamespaces());
        catalog.workflows = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(declared.workflows()));
        catalog.internalAgents = Set.copyOf(declared.internalAgents());
        catalog.exposed = Map.copyOf(exposure.exposed());
        return catalog;
    }

    /** The declared workflows, in file order. */
    public List<DeclaredWorkflow> workflows() {
        return List.copyOf(workflows.values());
    }

    /** The workflow named {@code name}, if one is declared. */
    public Optional<DeclaredWorkflow> workflow(String name) {
        return Optional.ofNullable(workflows.get(name));
    }

    /** Whether {@code name} is an agent or a workflow a run can start with. */
    public boolean runnable(String name) {
        return find(name).isPresent() || workflows.containsKey(name);
    }

    /**
     * Whether the agent or workflow is marked {@code internal}: a worker or step only, never started
     * directly over REST or A2A (seed 004's entry-only gateway).
     */
    public boolean isInternal(String name) {
        DeclaredWorkflow w = workflows.get(name);
        return w != null ? w.internal() : internalAgents.contains(name);
    }

    /**
     * Whether the agent or workflow {@code name} may be started over {@code channel}: declared in its
     * YAML's {@code expose} list (absent: REST only), and neither internal nor unknown. The one place
     * that answers who a peer can reach — the A2A endpoint and Agent Card ask it, and so does MCP.
     */
    public boolean exposedOver(String name, Channel channel) {
        return runnable(name)
                && !isInternal(name)
                && exposed.getOrDefault(name, Set.of()).contains(channel);
    }

    /** The agents and workflows exposed over {@code channel}, in {@link #entryPoints()} order. */
    public List<String> exposedOver(Channel channel) {
        return entryPoints().stream().filter(n -> exposedOver(n, channel)).toList();
    }

    /** The names callers may start runs with: agents and workflows not marked internal. */
    public List<String> entryPoints() {
        List<String> out = new ArrayList<>();
        specs.stream().map(AgentSpec::name).filter(n -> !isInternal(n)).forEach(out::add);
        workflows.values().stream()
                .filter(w -> !w.internal())
                .map(DeclaredWorkflow::name)
                .forEach(out::add);
        return out;
    }

    /** One model, or a {@link FallbackModelPort} over the primary and its fallbacks. */
    private static ModelPort chain(List<ModelRef> refs, ProviderModels providers) {
        if (refs.size() == 1) {
            return providers.model(refs.getFirst()).orElseThrow();
        }
        List<FallbackModelPort.Choice> choices = new ArrayList<>();
        for (ModelRef r : refs) {
            choices.add(new FallbackModelPort.Choice(r, providers.model(r).orElseThrow()));
        }
        return new FallbackModelPort(choices);
    }

    public List<AgentSpec> specs() {
        return specs;
    }

    public Optional<AgentSpec> find(String name) {
        return specs.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    public String sourceOf(String agent) {
        return sourceOf.getOrDefault(agent, "");
    }

    public AgentTree tree() {
        return tree;
    }

    public ToolRegistry tools() {
        return tools;
    }

    /**
     * The shared-memory namespaces an agent's memory tools may use (its YAML {@code memory} field;
     * entries are names or prefixes ending in {@code *}); empty for an unknown agent.
     */
    public List<String> memoryNamespaces(String agent) {
        return memoryNamespaces.getOrDefault(agent, List.of());
    }

    /**
     * The Kubernetes namespaces an agent's {@code k8s_*} tools may reach (its YAML
     * {@code kubernetes.namespaces}; names, prefixes ending in {@code *}, or {@code *}); empty for an
     * unknown agent.
     */
    public List<String> kubernetesNamespaces(String agent) {
        return kubernetesNamespaces.getOrDefault(agent, List.of());
    }

    /** The scripted model serving the {@code scripted} provider, if any agent uses it. */
    public Optional<ScriptedModel> scripted() {
        return Optional.ofNullable(scripted);
    }
}
