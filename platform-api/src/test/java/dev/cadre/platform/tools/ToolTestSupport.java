package dev.cadre.platform.tools;

import dev.cadre.agent.tool.ToolContext;
import dev.cadre.memory.InMemorySharedMemory;
import dev.cadre.platform.incidents.IncidentService;
import java.time.Clock;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Real incident service on the in-memory backend, JSON helpers and a tool context for tool tests. */
final class ToolTestSupport {

    static final JsonMapper JSON = JsonMapper.builder().build();

    private ToolTestSupport() {}

    static IncidentService incidents() {
        return new IncidentService(
                new InMemorySharedMemory(),
                JSON,
                Clock.systemUTC(),
                new IncidentService.Settings(Duration.ofHours(1), 3, Duration.ofMinutes(30)),
                dev.cadre.platform.web.SecretRedactor.standard());
    }

    static JsonNode args(String json) {
        return JSON.readTree(json);
    }

    static ToolContext ctx(String run, String call) {
        return new ToolContext(run, run, "test-agent", call);
    }
}
