package dev.cadre.platform.models;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.cadre.agent.AgentTree;
import dev.cadre.agent.model.ModelSchemas;
import dev.cadre.agent.model.ToolDefinition;
import dev.cadre.agent.tool.Tool;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.support.TestTools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every tool an agent of the shipped (and test) teams can be given — built-in, team, MCP, remote A2A
 * agents and worker tools — is shown to the model in a form real inference servers accept, whatever
 * limits the server validates with. Its own context: it configures an MCP server (publishing the kind
 * of schema MCP servers do) and a remote agent, so their tools are in the registry.
 */
@SpringBootTest(
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-schemas;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:test-agents/*.yaml",
            "cadre.runbooks.dir=target/runbooks",
            "cadre.tools.workspace.dir=target/workspaces",
            "cadre.retention.enabled=false",
            // Never contacted: the tool is made from configuration alone.
            "cadre.remote-agents.agents.eu.url=http://127.0.0.1:9/a2a"
        })
@Import(TestTools.class)
class ModelFacingSchemasTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final HttpServer MCP = mcpServer();

    @DynamicPropertySource
    static void mcp(DynamicPropertyRegistry r) {
        r.add(
                "cadre.tools.mcp.servers.ext.url",
                () -> "http://127.0.0.1:" + MCP.getAddress().getPort());
    }

    @AfterAll
    static void stop() {
        MCP.stop(0);
    }

    @Autowired
    AgentCatalog catalog;

    @Test
    void everyToolAnAgentCanBeGiven_isShownToTheModelWithinWhatInferenceServersAccept() {
        AgentTree tree = catalog.tree();
        Map<String, ToolDefinition> shown = new LinkedHashMap<>();
        catalog.tools().definitions().forEach(d -> shown.put(d.name(), d));
        for (String agent : tree.names()) {
            tree.definitions(agent, true).forEach(d -> shown.putIfAbsent(d.name(), d));
        }
        List<String> workers = tree.names().stream()
                .flatMap(a -> tree.spec(a).workers().stream())
                .distinct()
                .toList();
        assertThat(shown.keySet())
                .as("built-in, incident, MCP, remote-agent and worker tools are all in the registry")
                .contains("http_probe", "incident_update", "ext_search", "a2a_eu")
                .containsAll(workers);
        assertThat(workers).isNotEmpty();

        Map<String, List<String>> problems = new LinkedHashMap<>();
        shown.values().forEach(d -> {
            List<String> found = ModelSchemas.problems(d.parametersSchema());
            if (!found.isEmpty()) {
                problems.put(d.name(), found);
            }
        });
        assertThat(problems).isEmpty();

        // Not vacuous: the tools' own schemas carry the limits the server validates with.
        List<String> limitedOnTheServer = new ArrayList<>();
        for (String name : catalog.tools().names()) {
            Tool tool = catalog.tools().find(name);
            if (!ModelSchemas.problems(tool.parametersSchema()).isEmpty()) {
                limitedOnTheServer.add(name);
            }
        }
        assertThat(limitedOnTheServer).contains("http_probe", "incident_update", "ext_search", "a2a_eu");
        assertThat(catalog.tools()
                        .find("http_probe")
                        .parametersSchema()
                        .at("/properties/url/maxLength")
                        .asInt())
                .isEqualTo(2000);
    }

    /** A minimal MCP server (streamable HTTP, JSON answers) with one tool whose schema has it all. */
    static HttpServer mcpServer() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/mcp", ModelFacingSchemasTest::answer);
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void answer(HttpExchange x) throws IOException {
        if (!x.getRequestMethod().equals("POST")) {
            x.sendResponseHeaders(405, -1);
            x.close();
            return;
        }
        JsonNode rpc = JSON.readTree(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        if (!rpc.has("id")) {
            x.sendResponseHeaders(202, -1);
            x.close();
            return;
        }
        ObjectNode reply = JSON.createObjectNode().put("jsonrpc", "2.0");
        reply.set("id", rpc.get("id"));
        ObjectNode result = reply.putObject("result");
        switch (rpc.path("method").asString()) {
            case "initialize" -> {
                result.put(
                        "protocolVersion",
                        rpc.path("params").path("protocolVersion").asString());
                result.putObject("capabilities").putObject("tools");
                result.putObject("serverInfo").put("name", "ext").put("version", "1.0");
            }
            case "tools/list" -> result.set("tools", JSON.readTree("""
                    [{"name":"search","description":"Search documents",
                      "inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
                        "properties":{"query":{"type":"string","minLength":1,"maxLength":10000},
                          "site":{"type":"string","pattern":"[a-z.]+"},
                          "tags":{"type":"array","items":{"type":"string"},"maxItems":5000,"uniqueItems":true},
                          "raw":true},
                        "required":["query"],"additionalProperties":false}}]"""));
            default -> {
                reply.remove("result");
                reply.putObject("error").put("code", -32601).put("message", "unknown method");
            }
        }
        byte[] bytes = reply.toString().getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders(200, bytes.length);
        x.getResponseBody().write(bytes);
        x.close();
    }
}
