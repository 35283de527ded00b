package dev.cadre.platform.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.memory.InMemorySharedMemory;
import dev.cadre.memory.Writer;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The memory tools as an agent calls them, on the production in-memory backend. */
class MemoryToolsTest {

    private final JsonMapper json = JsonMapper.builder().build();
    private final InMemorySharedMemory memory = new InMemorySharedMemory();
    private final Map<String, Tool> tools = new MemoryTools(
                    memory, json, agent -> agent.equals("fixer") ? List.of("*") : List.of("notes"))
            .tools().stream().collect(Collectors.toMap(Tool::name, Function.identity()));

    private JsonNode call(String tool, String args, String callId) throws Exception {
        return json.readTree(
                tools.get(tool).execute(json.readTree(args), new ToolContext("run-1", "run-1", "fixer", callId)));
    }

    @Test
    void putWithTheVersionRead_writes_andAStaleVersionIsAConflictTheModelCanActOn() throws Exception {
        assertThat(call("memory_get", "{\"namespace\":\"findings\",\"key\":\"db\"}", "c1")
                        .get("found")
                        .asBoolean())
                .isFalse();
        JsonNode created = call(
                "memory_put",
                "{\"namespace\":\"findings\",\"key\":\"db\",\"value\":{\"s\":1},\"expectedVersion\":0}",
                "c2");
        assertThat(created.get("status").asString()).isEqualTo("written");
        assertThat(created.get("version").asLong()).isEqualTo(1);

        JsonNode read = call("memory_get", "{\"namespace\":\"findings\",\"key\":\"db\"}", "c3");
        assertThat(read.get("version").asLong()).isEqualTo(1);
        assertThat(read.get("updatedBy").asString()).isEqualTo("fixer");

        JsonNode stale = call(
                "memory_put",
                "{\"namespace\":\"findings\",\"key\":\"db\",\"value\":{\"s\":2},\"expectedVersion\":0}",
                "c4");
        assertThat(stale.get("status").asString()).isEqualTo("conflict");
        assertThat(stale.get("currentVersion").asLong()).isEqualTo(1);
        assertThat(stale.get("currentValue").get("s").asInt()).isEqualTo(1);
    }

    @Test
    void aReplayedPut_ofTheSameCall_writesOnce() throws Exception {
        String args = "{\"namespace\":\"n\",\"key\":\"k\",\"value\":[1],\"expectedVersion\":0}";
        assertThat(call("memory_put", args, "same").get("version").asLong()).isEqualTo(1);
        assertThat(call("memory_put", args, "same").get("version").asLong()).isEqualTo(1);
        assertThat(memory.history("n", "k")).hasSize(1);
    }

    @Test
    void update_mergesAndAppends_withoutLosingOthersWrites() throws Exception {
        memory.put("n", "obj", "{\"a\":1,\"b\":2}", 0, Writer.apiClient("ops"));
        call("memory_update", "{\"namespace\":\"n\",\"key\":\"obj\",\"merge\":{\"b\":null,\"c\":3}}", "u1");
        assertThat(memory.get("n", "obj").orElseThrow().value()).isEqualTo("{\"a\":1,\"c\":3}");

        call("memory_update", "{\"namespace\":\"n\",\"key\":\"log\",\"append\":\"first\"}", "u2");
        call("memory_update", "{\"namespace\":\"n\",\"key\":\"log\",\"append\":\"second\"}", "u3");
        assertThat(memory.get("n", "log").orElseThrow().value()).isEqualTo("[\"first\",\"second\"]");
    }

    @Test
    void badArguments_areToolErrorsNamingWhatIsWrong() {
        assertThatThrownBy(() -> call("memory_update", "{\"namespace\":\"n\",\"key\":\"k\"}", "b1"))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("exactly one of 'merge' or 'append'");
        memory.put("n", "scalar", "5", 0, Writer.apiClient("ops"));
        assertThatThrownBy(() -> call("memory_update", "{\"namespace\":\"n\",\"key\":\"scalar\",\"append\":1}", "b3"))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("array")
                .satisfies(e -> assertThat(((ToolException) e).category()).isEqualTo(FailureCategory.EXECUTION_ERROR));
        assertThatThrownBy(() -> call("memory_get", "{\"namespace\":\"bad space\",\"key\":\"k\"}", "b4"))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("namespace");
    }

    @Test
    void anAgentReachesOnlyTheNamespacesItsYamlLists_andNeverThePlatformsIncidentRecords() throws Exception {
        ToolContext reporter = new ToolContext("run-2", "run-2", "reporter", "r1");
        assertThat(tools.get("memory_put")
                        .execute(
                                json.readTree(
                                        "{\"namespace\":\"notes\",\"key\":\"k\",\"value\":1,\"expectedVersion\":0}"),
                                reporter))
                .contains("written");
        assertThatThrownBy(() -> tools.get("memory_get")
                        .execute(json.readTree("{\"namespace\":\"other\",\"key\":\"k\"}"), reporter))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("may not use memory namespace 'other'")
                .hasMessageContaining("'memory'");
        // "*" in the YAML still leaves the incident records to the platform.
        for (String tool : List.of("memory_get", "memory_put", "memory_update")) {
            assertThatThrownBy(() -> call(
                            tool,
                            "{\"namespace\":\"incidents\",\"key\":\"inc-1\",\"value\":{},\"expectedVersion\":1,\"merge\":{}}"
                                    .replace(
                                            tool.equals("memory_get")
                                                    ? ",\"value\":{},\"expectedVersion\":1,\"merge\":{}"
                                                    : "@",
                                            "")
                                    .replace(tool.equals("memory_put") ? ",\"merge\":{}" : "@", "")
                                    .replace(
                                            tool.equals("memory_update") ? ",\"value\":{},\"expectedVersion\":1" : "@",
                                            ""),
                            "i-" + tool))
                    .isInstanceOf(ToolException.class)
                    .hasMessageContaining("incident records");
        }
    }
}
