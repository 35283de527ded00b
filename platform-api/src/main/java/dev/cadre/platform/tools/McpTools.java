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
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportSessionClosedException;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tools of the MCP servers configured under {@code cadre.tools.mcp.servers.<name>}, reached with the
 * MCP Java SDK over streamable HTTP ({@code url}) or stdio ({@code command}, {@code args}, {@code
 * env}, {@code working-directory}: a child process, the way MCP servers are usually shipped). Each
 * remote tool becomes {@code <server>_<tool>}, added to agents' whitelists by that name, with a risk
 * of its own (see {@link Server#riskOf}). A lost session (the server restarted, the process died) is
 * re-initialised and the call retried once, only when the call cannot have reached the server.
 */
public final class McpTools implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(McpTools.class);

    /** {@code cadre.tools.mcp.servers.<name>}: one entry per MCP server. */
    @ConfigurationProperties("cadre.tools.mcp")
    public record Properties(@Nullable Map<String, Server> servers) {
        public Properties {
            servers = servers == null ? Map.of() : Map.copyOf(servers);
        }
    }

    /**
     * One MCP server: {@code url} (+ {@code endpoint}, {@code headers}, {@code token-env}) for
     * streamable HTTP, or {@code command} (+ {@code args}, {@code env}, {@code working-directory}) for
     * stdio. Header and env values may name environment variables as {@code ${NAME}}; {@code
     * token-env} names the variable holding a bearer token. {@code tools} is an allowlist (empty: all
     * the server lists); {@code risks} sets a tool's risk, {@code risk} the default of the others.
     */
    public record Server(
            @Nullable URI url,
            @Nullable String endpoint,
            @Nullable Map<String, String> headers,
            @Nullable String tokenEnv,
            @Nullable String command,
            @Nullable List<String> args,
            @Nullable Map<String, String> env,
            @Nullable Path workingDirectory,
            @Nullable List<String> tools,
            @Nullable Risk risk,
            @Nullable Map<String, Risk> risks,
            @Nullable Duration timeout) {
        public Server {
            endpoint = endpoint == null || endpoint.isBlank() ? "/mcp" : endpoint;
            headers = headers == null ? Map.of() : Map.copyOf(headers);
            args = args == null ? List.of() : List.copyOf(args);
            env = env == null ? Map.of() : Map.copyOf(env);
            tools = tools == null ? List.of() : List.copyOf(tools);
            risks = risks == null ? Map.of() : Map.copyOf(risks);
            timeout = timeout == null ? Duration.ofSeconds(30) : timeout;
        }

        /** A streamable-HTTP server at {@code url} + {@code /mcp}. */
        public static Server http(URI url) {
            return new Server(url, null, null, null, null, null, null, null, null, null, null, null);
        }

        /** A stdio server started as {@code command args…}. */
        public static Server stdio(String command, List<String> args) {
            return new Server(null, null, null, null, command, args, null, null, null, null, null, null);
        }

        public Server withHeaders(Map<String, String> headers, @Nullable String tokenEnv) {
            return new Server(
                    url,
                    endpoint,
                    headers,
                    tokenEnv,
                    command,
                    args,
                    env,
                    workingDirectory,
                    tools,
                    risk,
                    risks,
                    timeout);
        }

        public Server withEnv(Map<String, String> env, @Nullable Path workingDirectory) {
            return new Server(
                    url,
                    endpoint,
                    headers,
                    tokenEnv,
                    command,
                    args,
                    env,
                    workingDirectory,
                    tools,
                    risk,
                    risks,
                    timeout);
        }

        public Server withTools(List<String> tools, @Nullable Risk risk, Map<String, Risk> risks) {
            return new Server(
                    url,
                    endpoint,
                    headers,
                    tokenEnv,
                    command,
                    args,
                    env,
                    workingDirectory,
                    tools,
                    risk,
                    risks,
                    timeout);
        }

        public Server withTimeout(Duration timeout) {
            return new Server(
                    url,
                    endpoint,
                    headers,
                    tokenEnv,
                    command,
                    args,
                    env,
                    workingDirectory,
                    tools,
                    risk,
                    risks,
                    timeout);
        }

        /**
         * A tool's risk: its entry in {@code risks}; else the server's {@code risk}; else {@code AUTO}
         * when the server annotates it read-only and not destructive, {@code APPROVE} otherwise — a
         * tool nobody has classified may change things, so a human sees it first.
         */
        public Risk riskOf(McpSchema.Tool tool) {
            Risk explicit = risks().get(tool.name());
            if (explicit != null) {
                return explicit;
            }
            if (risk != null) {
                return risk;
            }
            McpSchema.ToolAnnotations a = tool.annotations();
            boolean readOnly =
                    a != null && Boolean.TRUE.equals(a.readOnlyHint()) && !Boolean.TRUE.equals(a.destructiveHint());
            return readOnly ? Risk.AUTO : Risk.APPROVE;
        }
    }

    /** An MCP server entry that cannot work as written; start-up stops with its message. */
    public static final class ConfigException extends IllegalStateException {
        ConfigException(String message) {
            super(message);
        }
    }

    private static final String TRACE_HEADERS = "cadre.trace-headers";
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    private final List<Connection> connections = new ArrayList<>();
    private final List<Tool> tools = new ArrayList<>();
    private final JsonMapper json;
    private final OutboundTraceContext trace;

    public McpTools(Properties config, JsonMapper json, OutboundTraceContext trace) {
        this(config, json, trace, System::getenv);
    }

    /**
     * Checks every entry first (a configuration error stops start-up, naming the entry), then
     * connects; a server that cannot be reached is logged and contributes no tools.
     */
    public McpTools(
            Properties config, JsonMapper json, OutboundTraceContext trace, Function<String, @Nullable String> env) {
        this.json = json;
        this.trace = trace;
        Map<String, Resolved> resolved = new LinkedHashMap<>();
        config.servers().forEach((name, server) -> resolved.put(name, resolve(name, server, env)));
        resolved.forEach((name, r) -> {
            Connection connection = new Connection(name, r);
            connections.add(connection);
            try {
                List<McpSchema.Tool> listed =
                        connection.call(McpSyncClient::listTools).tools();
                List<String> names = listed.stream().map(McpSchema.Tool::name).toList();
                for (String wanted : r.server().tools()) {
                    if (!names.contains(wanted)) {
                        log.warn(
                                "MCP server {}: allowlisted tool '{}' is not offered (offered: {})",
                                name,
                                wanted,
                                names);
                    }
                }
                for (McpSchema.Tool t : listed) {
                    if (r.server().tools().isEmpty() || r.server().tools().contains(t.name())) {
                        tools.add(new Remote(name, r.server().riskOf(t), connection, t, json));
                    }
                }
                log.info(
                        "MCP server {} ({}): {} of {} tools",
                        name,
                        r.where(),
                        tools.stream()
                                .filter(t -> t instanceof Remote rt && rt.connection == connection)
                                .count(),
                        listed.size());
            } catch (RuntimeException e) {
                // An agent naming one of its tools then fails validation with "unknown tool", which names it.
                log.warn("MCP server {} ({}) is not reachable: {}", name, r.where(), e.toString());
            }
        });
    }

    public List<Tool> tools() {
        return List.copyOf(tools);
    }

    @Override
    public void close() {
        connections.forEach(Connection::close);
    }

    static String toolName(String server, String tool) {
        String n = (server + "_" + tool).replaceAll("[^A-Za-z0-9_-]", "_");
        return n.length() <= 64 ? n : n.substring(0, 64);
    }

    /** An entry with its secrets read from the environment: they exist only in memory, never in the YAML. */
    private record Resolved(Server server, Map<String, String> headers, Map<String, String> env, String where) {}

    private static Resolved resolve(String name, Server s, Function<String, @Nullable String> environment) {
        String entry = "cadre.tools.mcp.servers." + name;
        boolean http = s.url() != null;
        boolean stdio = s.command() != null && !s.command().isBlank();
        if (!http && !stdio) {
            throw new ConfigException(entry + ": neither 'url' (streamable HTTP) nor 'command' (stdio) is set;"
                    + " give one of them (see docs/mcp.md)");
        }
        if (http && stdio) {
            throw new ConfigException(
                    entry + ": both 'url' and 'command' are set; an entry is one server," + " reached one way");
        }
        if (stdio && (!s.headers().isEmpty() || s.tokenEnv() != null)) {
            throw new ConfigException(entry + ": 'headers' and 'token-env' apply to 'url' servers only;"
                    + " a stdio server takes its secrets in 'env'");
        }
        if (http && (!s.env().isEmpty() || !s.args().isEmpty() || s.workingDirectory() != null)) {
            throw new ConfigException(
                    entry + ": 'args', 'env' and 'working-directory' apply to 'command'" + " servers only");
        }
        if (s.workingDirectory() != null && !Files.isDirectory(s.workingDirectory())) {
            throw new ConfigException(entry + ".working-directory: " + s.workingDirectory() + " is not a directory");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        s.headers().forEach((k, v) -> headers.put(k, expand(entry + ".headers." + k, v, environment)));
        if (s.tokenEnv() != null) {
            String token = environment.apply(s.tokenEnv());
            if (token == null || token.isBlank()) {
                throw new ConfigException(entry + ".token-env: environment variable " + s.tokenEnv() + " is not set");
            }
            headers.put("Authorization", "Bearer " + token.strip());
        }
        Map<String, String> env = new LinkedHashMap<>();
        s.env().forEach((k, v) -> env.put(k, expand(entry + ".env." + k, v, environment)));
        String where = http
                ? s.url() + s.endpoint()
                : String.join(" ", s.command(), String.join(" ", s.args())).strip();
        return new Resolved(s, headers, env, where);
    }

    /**
     * Replaces {@code ${NAME}} by the environment variable. Spring resolves placeholders it can when
     * it binds the YAML; one it could not arrives here literally and is an error naming the variable.
     */
    private static String expand(String field, String value, Function<String, @Nullable String> environment) {
        Matcher m = VARIABLE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String v = environment.apply(m.group(1));
            if (v == null) {
                throw new ConfigException(field + ": environment variable " + m.group(1) + " is not set");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(v));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The current client of one server, opened again when its session is lost. */
    private final class Connection {
        private final String name;
        private final Resolved config;
        private @Nullable McpSyncClient client;
        private @Nullable McpClientTransport transport;

        Connection(String name, Resolved config) {
            this.name = name;
            this.config = config;
        }

        private synchronized McpSyncClient client() {
            if (client != null && transport instanceof McpStdioTransport stdio && stdio.exited()) {
                log.info("MCP server {}: process has exited; starting it again", name);
                discard(client);
            }
            if (client == null) {
                McpClientTransport t = config.server().url() != null ? httpTransport() : stdioTransport();
                McpSyncClient c = McpClient.sync(t)
                        // The client sends on its own threads: capture the tool span's context on
                        // the caller's thread, where it is current, and hand it to the customizer.
                        .transportContextProvider(
                                () -> McpTransportContext.create(Map.of(TRACE_HEADERS, trace.headers())))
                        .requestTimeout(config.server().timeout())
                        .initializationTimeout(config.server().timeout())
                        .clientInfo(new McpSchema.Implementation("cadre", "0.1.0"))
                        .build();
                try {
                    c.initialize();
                } catch (RuntimeException e) {
                    c.close();
                    t.close();
                    throw e;
                }
                client = c;
                transport = t;
            }
            return client;
        }

        private synchronized void discard(McpSyncClient stale) {
            if (client == stale) {
                client = null;
                stale.close();
                if (transport != null) {
                    transport.close();
                }
                transport = null;
            }
        }

        private McpClientTransport httpTransport() {
            Map<String, String> headers = config.headers();
            return HttpClientStreamableHttpTransport.builder(
                            config.server().url().toString())
                    .endpoint(config.server().endpoint())
                    .connectTimeout(Duration.ofSeconds(10))
                    .httpRequestCustomizer((request, method, uri, body, context) -> {
                        headers.forEach(request::setHeader);
                        if (context.get(TRACE_HEADERS) instanceof Map<?, ?> traceHeaders) {
                            traceHeaders.forEach((k, v) -> request.setHeader((String) k, (String) v));
                        }
                    })
                    .build();
        }

        private McpClientTransport stdioTransport() {
            List<String> command = new ArrayList<>();
            command.add(config.server().command());
            command.addAll(config.server().args());
            return new McpStdioTransport(
                    name, command, config.env(), config.server().workingDirectory(), McpJsonDefaults.getMapper());
        }

        /**
         * Runs {@code call} on the current client; when the session turns out lost before the
         * server saw the request, opens a new session (a new process for stdio) and runs it once more.
         */
        <T> T call(Function<McpSyncClient, T> call) {
            McpSyncClient c = client();
            try {
                return call.apply(c);
            } catch (RuntimeException e) {
                if (!lostSession(e)) {
                    throw e;
                }
                log.info("MCP server {}: session lost ({}); re-initialising and retrying once", name, e.getMessage());
                discard(c);
                return call.apply(client());
            }
        }

        synchronized void close() {
            if (client != null) {
                discard(client);
            }
        }
    }

    /**
     * Whether the failure proves the request never reached a live session: the server answered that
     * it does not know the session (404/400 with a session id: it restarted), the SDK dismissed the
     * request because of that, or the stdio process had exited before it was sent.
     */
    static boolean lostSession(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof McpTransportSessionNotFoundException
                    || t instanceof McpTransportSessionClosedException
                    || t instanceof McpStdioTransport.ServerExited
                    || String.valueOf(t.getMessage()).contains("MCP session with server terminated")) {
                return true;
            }
        }
        return false;
    }

    private static final class Remote implements Tool, dev.cadre.platform.agents.Outward {
        private final String name;
        private final Risk risk;
        private final Connection connection;
        private final McpSchema.Tool tool;
        private final JsonNode schema;
        private final JsonMapper json;

        Remote(String server, Risk risk, Connection connection, McpSchema.Tool tool, JsonMapper json) {
            this.name = toolName(server, tool.name());
            this.risk = risk;
            this.connection = connection;
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
                Map<String, Object> args = json.treeToValue(arguments, Map.class);
                result = connection.call(c -> c.callTool(new McpSchema.CallToolRequest(tool.name(), args)));
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
