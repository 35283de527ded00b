package dev.cadre.platform.agents;

import dev.cadre.agent.tool.Tool;
import java.util.List;
import org.springframework.core.io.support.ResourcePatternResolver;

/**
 * Loads a team of agents from YAML the way the platform loads its own ({@code cadre.agents.locations}),
 * with the same (guarded) tools and model providers, into a separate catalog: a candidate team a
 * replay runs against without deploying it. An invalid team fails with every problem listed.
 */
public final class TeamLoader {

    private final ResourcePatternResolver resolver;
    private final List<Tool> tools;
    private final AgentCatalog.ProviderModels providers;

    TeamLoader(ResourcePatternResolver resolver, List<Tool> tools, AgentCatalog.ProviderModels providers) {
        this.resolver = resolver;
        this.tools = List.copyOf(tools);
        this.providers = providers;
    }

    /**
     * The team declared in {@code locations} (Spring resource patterns, e.g. {@code
     * file:/path/team.yaml}); throws {@link AgentConfigException} naming each problem.
     */
    public AgentCatalog load(List<String> locations) {
        return AgentCatalog.load(resolver, locations, tools, providers);
    }
}
