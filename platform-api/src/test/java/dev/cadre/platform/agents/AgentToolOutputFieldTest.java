package dev.cadre.platform.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.tool.output.ToolOutputCaps;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;

/** The agent YAML's {@code toolOutput} field: the agent's caps on what its model reads of a tool result. */
class AgentToolOutputFieldTest {

    private static AgentConfigLoader.Loaded load(String yaml) {
        Resource file = new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)) {
            @Override
            public String getFilename() {
                return "team.yaml";
            }
        };
        return new AgentConfigLoader().load(List.of(file));
    }

    private static AgentSpec spec(AgentConfigLoader.Loaded loaded, String name) {
        return loaded.specs().stream()
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void capsAreKept_andAnAgentWithoutTheFieldHasNone() {
        AgentConfigLoader.Loaded loaded = load("""
                agents:
                  - {name: a, description: d, tools: [logs, get], toolOutput: {maxBytes: 8192, tools: {logs: 32768}}}
                  - {name: b, description: d, toolOutput: {tools: {tool_output_read: 4096}}}
                  - {name: c, description: d}
                """);
        assertThat(loaded.problems()).isEmpty();
        assertThat(spec(loaded, "a").toolOutput()).isEqualTo(new ToolOutputCaps(8192, Map.of("logs", 32768)));
        assertThat(spec(loaded, "b").toolOutput())
                .isEqualTo(new ToolOutputCaps(null, Map.of("tool_output_read", 4096)));
        assertThat(spec(loaded, "c").toolOutput()).isEqualTo(ToolOutputCaps.NONE);
    }

    @Test
    void badCaps_stopTheLoadNamingTheField() {
        AgentConfigLoader.Loaded loaded = load("""
                agents:
                  - {name: a, description: d, toolOutput: {maxBytes: 100}}
                  - {name: b, description: d, tools: [logs], toolOutput: {tools: {k8s_logs: 32768}}}
                  - {name: c, description: d, toolOutput: {maxbytes: 4096}}
                  - {name: e, description: d, toolOutput: 4096}
                """);
        assertThat(loaded.problems())
                .anySatisfy(p -> assertThat(p)
                        .contains("agent 'a'")
                        .contains("'toolOutput.maxBytes': must be a whole number of bytes ≥ 1024"))
                .anySatisfy(p -> assertThat(p)
                        .contains("agent 'b'")
                        .contains("'toolOutput.tools.k8s_logs': 'k8s_logs' is not one of the agent's tools [logs]"))
                .anySatisfy(p -> assertThat(p).contains("agent 'c'").contains("maxbytes"))
                .anySatisfy(p -> assertThat(p).contains("agent 'e'").contains("'toolOutput': must be a mapping"));
    }
}
