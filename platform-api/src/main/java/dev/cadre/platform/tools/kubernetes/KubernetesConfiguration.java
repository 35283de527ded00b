package dev.cadre.platform.tools.kubernetes;

import dev.cadre.agent.tool.Tool;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.agents.ToolProvider;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** The Kubernetes tools agents may be given by name; see docs/kubernetes.md. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(KubernetesProperties.class)
class KubernetesConfiguration {

    private static final Logger log = LoggerFactory.getLogger(KubernetesConfiguration.class);

    @Bean(destroyMethod = "close")
    KubernetesAccess kubernetesAccess(KubernetesProperties config, ObjectProvider<AgentCatalog> catalog) {
        // The catalog is built from the tools, so an agent's reach is looked up when a tool runs.
        KubernetesAccess access =
                new KubernetesAccess(config, agent -> catalog.getObject().kubernetesNamespaces(agent));
        log.info(
                config.configured()
                        ? "Kubernetes tools reach the cluster of {}"
                        : "Kubernetes tools: {} is configured (cadre.tools.kubernetes.*); they will say so",
                config.describe());
        return access;
    }

    @Bean
    ToolProvider kubernetesTools(KubernetesAccess access, JsonMapper json, Clock clock) {
        List<Tool> tools = new ArrayList<>(KubernetesReadTools.all(access, json, clock));
        tools.addAll(KubernetesWriteTools.all(access, json, clock));
        List<Tool> all = List.copyOf(tools);
        return () -> all;
    }
}
