package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.platform.observability.OutboundTraceContext;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tools of MCP servers configured by URL ({@code cadre.tools.mcp.servers.<name>.url}), reached over
 * MCP's streamable HTTP transport with the MCP Java SDK (the client Spring AI's MCP support wraps).
 * Each remote tool becomes {@code <server>_<tool>}, added to agents' whitelists by that name, with
 * the risk configured for its server (default {@code SUGGEST}: a remote tool may change things).
 */
public final class McpTools implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(McpTools.class);

    /** {@code cadre.tools.mcp.servers.<name>}: {@code url}, {@code endpoint} (/mcp), {@code risk}, {@code timeout}. */
    @ConfigurationProperties("cadre.tools.mcp")
    public record Properties(@Nullable Map<String, Server> servers) {
        public Properties {
            servers = servers == null ? Map.of() : Map.copyOf(servers);
        }
    }

    /** One MCP server. */
    public record Server(
            URI url,
            @Nullable String endpoint,
            @Nullable Risk risk,
            @Nullable Duration timeout) {
        public Server {
            endpoint = endpoint == null || endpoint.isBlank() ? "/mcp" : endpoint;
            risk = risk == null ? Risk.SUGGEST : risk;
            timeout = timeout == null ? Duration.ofSeconds(30) : timeout;
        }
    }

    private static final String TRACE_HEADERS = "cadre.trace-headers";

    private final List<McpSyncClient> clients = new ArrayList<>();
    private final List<Tool> tools = new ArrayList<>();

    public McpTools(Properties config, JsonMapper json, OutboundTraceContext trace) {
        config.servers().forEach((name, server) -> {
            try {
                McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(
                                        server.url().toString())
                                .endpoint(server.endpoint())
                                .connectTimeout(Duration.ofSeconds(10))
                                .httpRequestCustomizer((request, method, uri, body, context) -> {
                                    if (context.get(TRACE_HEADERS) instanceof Map<?, ?> headers) {
                                        headers.forEach((k, v) -> request.setHeader((String) k, (String) v));
                                    }
                                })
                                .build())
                        // The client sends on its own threads: capture the tool span's context on
                        // the caller's thread, where it is current, and hand it to the customizer.
                        .transportContextProvider(
                                () -> McpTransportContext.create(Map.of(TRACE_HEADERS, trace.headers())))
                        .requestTimeout(server.timeout())
                        .clientInfo(new McpSchema.Implementation("cadre", "0.1.0"))
                        .build();
                client.initialize();
                clients.add(client);
                for (McpSchema.Tool t : client.listTools().tools()) {
                    tools.add(new Remote(name, server.risk(), client, t, json));
                }
                log.info(
                        "MCP server {} at {}: {} tools",
                        name,
                        server.url(),
                        client.listTools().tools().size());
            } catch (RuntimeException e) {
                // An agent naming one of its tools then fails validation with "unknown tool", which names it.
                log.warn("MCP server {} at {} is not reachable: {}", name, server.url(), e.toString());
            }
        });
    }

    public List<Tool> tools() {
        return List.copyOf(tools);
    }

    @Override
    public void close() {
        clients.forEach(McpSyncClient::closeGracefully);
    }

    static String toolName(String server, String tool) {
        String n = (server + "_" + tool).replaceAll("[^A-Za-z0-9_-]", "_");
        return n.length() <= 64 ? n : n.substring(0, 64);
    }

    private static final class Remote implements Tool, dev.cadre.platform.agents.Outward {
        private final String name;
        private final Risk risk;
        private final McpSyncClient client;
        private final McpSchema.Tool tool;
        private final JsonNode schema;
        private final JsonMapper json;

        Remote(String server, Risk risk, McpSyncClient client, McpSchema.Tool tool, JsonMapper json) {
            this.name = toolName(server, tool.name());
            this.risk = risk;
            this.client = client;
            this.tool = tool;
            this.json = json;
            JsonNode s = tool.inputSchema() == null ? null : json.valueToTree(tool.inputSchema());
            if (s == null || !s.isObject() || !"object".equals(s.path("type").asString(""))) {
                ObjectNode o = json.createObjectNode();
                o.put("type", "object");
                s = o;
            }
            this.schema = s;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            return (tool.description() == null ? tool.name() : tool.description()) + " (MCP tool)";
        }

        @Override
        public JsonNode parametersSchema() {
            return schema;
        }

        @Override
        public Risk risk() {
            return risk;
        }

        @Override
        @SuppressWarnings("unchecked")
        public String execute(JsonNode arguments, ToolContext context) throws ToolException {
            McpSchema.CallToolResult result;
            try {
                result = client.callTool(
                        new McpSchema.CallToolRequest(tool.name(), json.treeToValue(arguments, Map.class)));
            } catch (RuntimeException e) {
                String text = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
                throw new ToolException(
                        text.contains("timeout") ? FailureCategory.TIMEOUT_ERROR : FailureCategory.COMMUNICATION_ERROR,
                        "mcp_call_failed",
                        "MCP tool " + tool.name() + " failed: " + e.getMessage());
            }
            StringBuilder out = new StringBuilder();
            for (McpSchema.Content c : result.content()) {
                if (c instanceof McpSchema.TextContent t) {
                    out.append(out.isEmpty() ? "" : "\n").append(t.text());
                } else {
                    out.append(out.isEmpty() ? "" : "\n")
                            .append(json.valueToTree(c).toString());
                }
            }
            if (Boolean.TRUE.equals(result.isError())) {
                throw new ToolException(FailureCategory.EXECUTION_ERROR, "mcp_tool_error", out.toString());
            }
            return out.toString();
        }
    }
}
