package dev.cadre.platform.agents;

import dev.cadre.agent.tool.Tool;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.ResourcePatternResolver;

/** Loads the agent catalog at start-up from {@code cadre.agents.locations}. */
@Configuration(proxyBeanMethods = false)
class AgentsConfiguration {

    @Bean
    AgentCatalog agentCatalog(
            TeamLoader teams,
            @Value("${cadre.agents.locations:classpath:agents/*.yaml}") List<String> locations,
            Environment settings) {
        AgentCatalog catalog = teams.load(locations);
        // Settings that name an agent are checked against it before anything serves a request.
        SettingsCrossCheck.verify(settings, catalog);
        return catalog;
    }

    /** Loads teams (the running one, and candidates a replay runs against) with the platform's tools and models. */
    @Bean
    TeamLoader teamLoader(
            ResourcePatternResolver resolver,
            List<ToolProvider> toolProviders,
            ObjectProvider<AgentCatalog.ProviderModels> providers,
            ObjectProvider<ToolGuard> guards) {
        List<Tool> tools = toolProviders.stream()
                .flatMap(p -> p.tools().stream())
                .map(t -> guarded(t, guards.orderedStream().toList()))
                .toList();
        AgentCatalog.ProviderModels models = providers.getIfAvailable(() -> new AgentCatalog.ProviderModels() {
            @Override
            public Optional<dev.cadre.agent.model.ModelPort> model(dev.cadre.agent.model.ModelRef ref) {
                return Optional.empty();
            }

            @Override
            public List<String> providers() {
                return List.of("scripted");
            }
        });
        return new TeamLoader(resolver, tools, models);
    }

    private static Tool guarded(Tool tool, List<ToolGuard> guards) {
        Tool t = tool;
        for (ToolGuard g : guards) {
            t = g.wrap(t);
        }
        return t;
    }
}
