package dev.cadre.platform.tools;

import dev.cadre.platform.agents.ToolProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.ResourcePatternResolver;
import tools.jackson.databind.json.JsonMapper;

/**
 * The tools of the seed teams (docs/teams.md): the per-run workspace pair, the read-only CSV query
 * and the mission split.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(TeamToolsConfiguration.WorkspaceProperties.class)
class TeamToolsConfiguration {

    /** {@code cadre.tools.workspace.dir}: where each run's workspace directory is made (default data/workspaces). */
    @ConfigurationProperties("cadre.tools.workspace")
    record WorkspaceProperties(@Nullable Path dir) {
        WorkspaceProperties {
            dir = dir == null ? Path.of("data", "workspaces") : dir;
        }
    }

    @Bean
    Workspaces workspaces(WorkspaceProperties config) {
        return new Workspaces(config.dir());
    }

    @Bean
    ToolProvider teamTools(
            Workspaces workspaces,
            JsonMapper json,
            ResourcePatternResolver resolver,
            @Value("${cadre.tools.datasets.locations:classpath:datasets/*.csv}") List<String> datasetLocations) {
        List<Resource> files = new ArrayList<>();
        for (String location : datasetLocations) {
            try {
                Resource[] found = resolver.getResources(location);
                Arrays.sort(found, Comparator.comparing(r -> String.valueOf(r.getFilename())));
                files.addAll(Arrays.stream(found).filter(Resource::exists).toList());
            } catch (IOException e) {
                throw new UncheckedIOException("cadre.tools.datasets.locations: " + location + " cannot be read", e);
            }
        }
        List<dev.cadre.agent.tool.Tool> tools = new ArrayList<>(new WorkspaceTools(workspaces, json).tools());
        tools.add(new CsvQueryTool(CsvDatasets.load(files), json));
        tools.add(new MissionSplitTool(json));
        tools.add(new ComparePeriodsTool(json));
        List<dev.cadre.agent.tool.Tool> all = List.copyOf(tools);
        return () -> all;
    }
}
