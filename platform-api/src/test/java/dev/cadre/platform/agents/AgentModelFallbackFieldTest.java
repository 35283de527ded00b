package dev.cadre.platform.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.model.ModelRef;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;

/** The agent YAML's {@code model} as a list: the primary model, then its fallbacks in order. */
class AgentModelFallbackFieldTest {

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
    void aListOfModels_isThePrimaryThenItsFallbacks_andASingleModelHasNone() {
        AgentConfigLoader.Loaded loaded = load("""
                agents:
                  - {name: a, description: d, model: [openai:primary, "ollama:llama3:8b", anthropic:claude]}
                  - {name: b, description: d, model: openai:gpt-4o}
                """);
        assertThat(loaded.problems()).isEmpty();
        assertThat(loaded.specs().getFirst().model()).isEqualTo(ModelRef.parse("openai:primary"));
        assertThat(loaded.fallbacks().get("a"))
                .containsExactly(ModelRef.parse("ollama:llama3:8b"), ModelRef.parse("anthropic:claude"));
        assertThat(loaded.fallbacks()).doesNotContainKey("b");
    }

    @Test
    void badEntries_areNamed() {
        AgentConfigLoader.Loaded loaded = load("""
                agents:
                  - {name: a, description: d, model: []}
                  - {name: b, description: d, model: [openai:x, nocolon]}
                  - {name: c, description: d, model: [openai:x, 3]}
                  - {name: e, description: d, model: [scripted:default, openai:x]}
                """);
        assertThat(loaded.problems())
                .anySatisfy(p -> assertThat(p).contains("agent 'a'").contains("empty list"))
                .anySatisfy(p -> assertThat(p).contains("agent 'b'").contains("entry 2"))
                .anySatisfy(p -> assertThat(p).contains("agent 'c'").contains("entry 2 must be text"))
                .anySatisfy(p -> assertThat(p).contains("agent 'e'").contains("scripted model cannot"));
    }
}
