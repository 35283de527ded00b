package dev.cadre.platform.agents;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;

/** The agent YAML's {@code memory} field: the namespaces an agent's memory tools may use. */
class AgentMemoryFieldTest {

    private static AgentConfigLoader.Loaded load(String yaml) {
        Resource file = new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)) {
            @Override
            public String getFilename() {
                return "team.yaml";
            }
        };
        return new AgentConfigLoader().load(List.of(file));
    }

    @Test
    void listedNamespacesAreKept_andAnAgentWithoutTheFieldHasNone() {
        AgentConfigLoader.Loaded loaded = load("""
                agents:
                  - {name: a, description: d, memory: [host-checks, "scratch-*"]}
                  - {name: b, description: d}
                """);
        assertThat(loaded.problems()).isEmpty();
        assertThat(loaded.memoryNamespaces().get("a")).containsExactly("host-checks", "scratch-*");
        assertThat(loaded.memoryNamespaces().get("b")).isEmpty();
    }

    @Test
    void thePlatformsIncidentNamespace_orAPrefixCoveringIt_stopsTheLoadNamingTheAgent() {
        AgentConfigLoader.Loaded loaded = load("""
                agents:
                  - {name: a, description: d, memory: [incidents]}
                  - {name: b, description: d, memory: ["inc*"]}
                  - {name: c, description: d, memory: ["bad space"]}
                """);
        assertThat(loaded.problems())
                .anySatisfy(p -> assertThat(p).contains("agent 'a'").contains("'incidents' is the platform's"))
                .anySatisfy(p -> assertThat(p).contains("agent 'b'").contains("would include the platform's"))
                .anySatisfy(p -> assertThat(p).contains("agent 'c'").contains("not a namespace name"));
    }
}
