package dev.cadre.platform.tools;

import static dev.cadre.platform.tools.ToolTestSupport.JSON;
import static dev.cadre.platform.tools.ToolTestSupport.args;
import static dev.cadre.platform.tools.ToolTestSupport.ctx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.platform.observability.OutboundTraceContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Against a tiny local MCP server speaking the streamable HTTP transport (JSON answers): initialize,
 * tools/list, tools/call — the JSON-RPC an MCP server sends, answered by a JDK HTTP server.
 */
class McpToolsTest {

    HttpServer server;
    final List<String> methods = new CopyOnWriteArrayList<>();
    final Map<String, String> traceparentOf = new java.util.concurrent.ConcurrentHashMap<>();
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final List<String> apiKeys = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/mcp", this::handle);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void handle(HttpExchange x) throws IOException {
        if (!x.getRequestMethod().equals("POST")) {
            x.sendResponseHeaders(405, -1);
            x.close();
            return;
        }
        JsonNode rpc = JSON.readTree(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        String method = rpc.path("method").asString();
        methods.add(method);
        String traceparent = x.getRequestHeaders().getFirst("traceparent");
        if (traceparent != null) {
            traceparentOf.put(method, traceparent);
        }
        authorizations.add(String.valueOf(x.getRequestHeaders().getFirst("Authorization")));
        apiKeys.add(String.valueOf(x.getRequestHeaders().getFirst("X-Api-Key")));
        if (!rpc.has("id")) {
            x.sendResponseHeaders(202, -1);
            x.close();
            return;
        }
        ObjectNode reply = JSON.createObjectNode().put("jsonrpc", "2.0");
        reply.set("id", rpc.get("id"));
        ObjectNode result = reply.putObject("result");
        switch (method) {
            case "initialize" -> {
                result.put(
                        "protocolVersion",
                        rpc.path("params").path("protocolVersion").asString());
                result.putObject("capabilities").putObject("tools");
                result.putObject("serverInfo").put("name", "tiny-ops").put("version", "1.0");
            }
            case "tools/list" -> result.set("tools", JSON.readTree("""
                    [{"name":"restart_pod","description":"Restart a Kubernetes pod",
                      "inputSchema":{"type":"object","properties":{"pod":{"type":"string"}},"required":["pod"]}},
                     {"name":"broken","description":"Always fails","inputSchema":{"type":"object"}}]"""));
            case "tools/call" -> {
                String name = rpc.path("params").path("name").asString();
                String pod = rpc.path("params").path("arguments").path("pod").asString("");
                result.putArray("content")
                        .addObject()
                        .put("type", "text")
                        .put("text", name.equals("broken") ? "kaputt" : "restarted " + pod);
                result.put("isError", name.equals("broken"));
            }
            default -> {
                reply.remove("result");
                reply.putObject("error").put("code", -32601).put("message", "unknown method " + method);
            }
        }
        byte[] bytes = reply.toString().getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders(200, bytes.length);
        x.getResponseBody().write(bytes);
        x.close();
    }

    @Test
    void toolsOfAConfiguredServer_areCadreToolsNamedAfterTheServer() throws Exception {
        var config = new McpTools.Properties(Map.of(
                "k8s",
                McpTools.Server.http(URI.create(
                                "http://127.0.0.1:" + server.getAddress().getPort()))
                        .withTools(List.of(), Risk.APPROVE, Map.of())
                        .withTimeout(Duration.ofSeconds(5))));
        try (McpTools mcp = new McpTools(config, JSON, OutboundTraceContext.none())) {
            assertThat(mcp.tools()).extracting(Tool::name).containsExactly("k8s_restart_pod", "k8s_broken");
            Tool restart = mcp.tools().getFirst();
            assertThat(restart.risk()).isEqualTo(Risk.APPROVE);
            assertThat(restart.parametersSchema().get("required").get(0).asString())
                    .isEqualTo("pod");
            assertThat(restart.execute(args("{\"pod\":\"api-7f9\"}"), ctx("r", "c1")))
                    .isEqualTo("restarted api-7f9");
            assertThatThrownBy(() -> mcp.tools().get(1).execute(args("{}"), ctx("r", "c2")))
                    .isInstanceOfSatisfying(
                            ToolException.class, e -> assertThat(e.getMessage()).isEqualTo("kaputt"));
        }
        assertThat(methods).contains("initialize", "tools/list", "tools/call");
    }

    @Test
    void anUnreachableServer_contributesNoTools_andDoesNotStopStartUp() {
        var config = new McpTools.Properties(Map.of(
                "gone", McpTools.Server.http(URI.create("http://127.0.0.1:9")).withTimeout(Duration.ofSeconds(2))));
        try (McpTools mcp = new McpTools(config, JSON, OutboundTraceContext.none())) {
            assertThat(mcp.tools()).isEmpty();
        }
    }

    @Test
    void headersAndBearerToken_comeFromTheEnvironment_onEveryRequest() throws Exception {
        var config = new McpTools.Properties(Map.of(
                "k8s",
                McpTools.Server.http(URI.create(
                                "http://127.0.0.1:" + server.getAddress().getPort()))
                        .withHeaders(Map.of("X-Api-Key", "${K8S_MCP_KEY}"), "K8S_MCP_TOKEN")));
        Map<String, String> env = Map.of("K8S_MCP_KEY", "key-123", "K8S_MCP_TOKEN", "tok-456");
        try (McpTools mcp = new McpTools(config, JSON, OutboundTraceContext.none(), env::get)) {
            mcp.tools().getFirst().execute(args("{\"pod\":\"a\"}"), ctx("r", "c1"));
        }
        assertThat(methods).contains("initialize", "tools/list", "tools/call");
        assertThat(authorizations).hasSize(methods.size()).containsOnly("Bearer tok-456");
        assertThat(apiKeys).hasSize(methods.size()).containsOnly("key-123");
    }

    @Test
    void unclassifiedTools_needApproval_byDefault() throws Exception {
        var config = new McpTools.Properties(Map.of(
                "k8s",
                McpTools.Server.http(URI.create(
                                "http://127.0.0.1:" + server.getAddress().getPort()))
                        .withTools(List.of("restart_pod"), null, Map.of())));
        try (McpTools mcp = new McpTools(config, JSON, OutboundTraceContext.none(), n -> null)) {
            assertThat(mcp.tools()).extracting(Tool::name).containsExactly("k8s_restart_pod");
            assertThat(mcp.tools().getFirst().risk()).isEqualTo(Risk.APPROVE);
        }
    }

    @Test
    void anEntryWithNeitherUrlNorCommand_stopsStartUp_namingTheEntry() {
        var config = new McpTools.Properties(Map.of(
                "github", new McpTools.Server(null, null, null, null, null, null, null, null, null, null, null, null)));
        assertThatThrownBy(() -> new McpTools(config, JSON, OutboundTraceContext.none(), n -> null))
                .isInstanceOf(McpTools.ConfigException.class)
                .hasMessageContaining("cadre.tools.mcp.servers.github")
                .hasMessageContaining("neither 'url'")
                .hasMessageContaining("'command'");
    }

    @Test
    void aSecretFromAnUnsetVariable_stopsStartUp_namingTheVariable() {
        var config = new McpTools.Properties(Map.of(
                "github",
                McpTools.Server.http(URI.create("http://127.0.0.1:9")).withHeaders(Map.of(), "MCP_GITHUB_TOKEN")));
        assertThatThrownBy(() -> new McpTools(config, JSON, OutboundTraceContext.none(), n -> null))
                .isInstanceOf(McpTools.ConfigException.class)
                .hasMessage(
                        "cadre.tools.mcp.servers.github.token-env: environment variable MCP_GITHUB_TOKEN is not set");
        var stdio = new McpTools.Properties(Map.of(
                "fs",
                McpTools.Server.stdio("npx", List.of("-y", "some-server"))
                        .withEnv(Map.of("API_KEY", "${FS_KEY}"), null)));
        assertThatThrownBy(() -> new McpTools(stdio, JSON, OutboundTraceContext.none(), n -> null))
                .hasMessage("cadre.tools.mcp.servers.fs.env.API_KEY: environment variable FS_KEY is not set");
    }

    @Test
    void aToolCall_carriesTheTraceContextOfTheToolSpan() throws Exception {
        var otel = io.opentelemetry.sdk.OpenTelemetrySdk.builder()
                .setTracerProvider(
                        io.opentelemetry.sdk.trace.SdkTracerProvider.builder().build())
                .setPropagators(io.opentelemetry.context.propagation.ContextPropagators.create(
                        io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator.getInstance()))
                .build();
        var config = new McpTools.Properties(Map.of(
                "k8s",
                McpTools.Server.http(URI.create(
                                "http://127.0.0.1:" + server.getAddress().getPort()))
                        .withTools(List.of(), Risk.APPROVE, Map.of())
                        .withTimeout(Duration.ofSeconds(5))));
        try (McpTools mcp = new McpTools(config, JSON, new OutboundTraceContext(otel))) {
            var span = otel.getTracer("test")
                    .spanBuilder("execute_tool k8s_restart_pod")
                    .startSpan();
            try (var ignored = span.makeCurrent()) {
                mcp.tools().getFirst().execute(args("{\"pod\":\"api-7f9\"}"), ctx("r", "c1"));
            } finally {
                span.end();
            }
            assertThat(traceparentOf.get("tools/call"))
                    .isEqualTo("00-" + span.getSpanContext().getTraceId() + "-"
                            + span.getSpanContext().getSpanId() + "-01");
            assertThat(traceparentOf).as("start-up calls run under no span").doesNotContainKey("initialize");
        }
    }
}
