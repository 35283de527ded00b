package dev.cadre.platform.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.agents.AgentCatalog.Channel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;

/** The agent YAML's {@code expose} field: the channels besides REST an agent or workflow is reachable over. */
class AgentExposeFieldTest {

    private static Exposure.Loaded load(String yaml) {
        Resource file = new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)) {
            @Override
            public String getFilename() {
                return "team.yaml";
            }
        };
        return new Exposure().load(List.of(file));
    }

    @Test
    void listedChannelsAreKept_andWithoutTheFieldAnAgentIsExposedNowhere() {
        Exposure.Loaded loaded = load("""
                agents:
                  - {name: a, description: d, expose: [a2a, mcp]}
                  - {name: b, description: d, expose: [A2A]}
                  - {name: c, description: d}
                workflows:
                  - {name: w, type: sequence, description: d, expose: [mcp]}
                """);
        assertThat(loaded.problems()).isEmpty();
        assertThat(loaded.exposed())
                .isEqualTo(Map.of(
                        "a", Set.of(Channel.A2A, Channel.MCP), "b", Set.of(Channel.A2A), "w", Set.of(Channel.MCP)));
    }

    @Test
    void anUnknownChannel_orAnExposedInternalAgent_stopsTheLoadNamingTheAgentAndField() {
        Exposure.Loaded loaded = load("""
                agents:
                  - {name: a, description: d, expose: [a2a, rest]}
                  - {name: b, description: d, internal: true, expose: [a2a]}
                  - {name: c, description: d, expose: a2a}
                """);
        assertThat(loaded.problems())
                .anySatisfy(p -> assertThat(p).contains("agent 'a'").contains("'rest' is not a channel"))
                .anySatisfy(p -> assertThat(p).contains("agent 'b'").contains("internal"))
                .anySatisfy(p -> assertThat(p).contains("agent 'c'").contains("must be a list"));
    }
}
