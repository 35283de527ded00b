package dev.cadre.platform.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.NpmPeers;
import dev.cadre.platform.support.PlatformTest;
import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Cadre as an MCP server at {@code /mcp} and as an MCP client of the official reference server over
 * stdio, in one platform: the official inspector CLI and the Java SDK's client call Cadre's agents;
 * {@code GET /api/v1/tools} lists the MCP server's tools beside the built-in ones and the workers.
 */
@PlatformTest
class McpServerTest {

    @DynamicPropertySource
    static void mcpServer(DynamicPropertyRegistry registry) {
        registry.add(
                "cadre.tools.mcp.servers.ev.command",
                () -> NpmPeers.bin("mcp-server-everything").toString());
        registry.add("cadre.tools.mcp.servers.ev.args", () -> "stdio");
        registry.add("cadre.tools.mcp.servers.ev.tools", () -> "echo,get-sum,toggle-simulated-logging");
        // Never called: only listed by GET /api/v1/tools.
        registry.add("cadre.remote-agents.agents.peer.url", () -> "http://127.0.0.1:9/a2a");
    }

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    private Api api() {
        return new Api(port);
    }

    private String key(String name, String role) {
        var created = api().post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", name, "role", role)));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().get("secret").asString();
    }

    private McpSyncClient client(
            String key, Map<String, String> headers, List<McpSchema.ProgressNotification> progress) {
        McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                        .endpoint("/mcp")
                        .httpRequestCustomizer((b, method, uri, body, context) -> {
                            if (key != null) {
                                b.header("Authorization", "Bearer " + key);
                            }
                            headers.forEach(b::header);
                        })
                        .build())
                .requestTimeout(Duration.ofSeconds(60))
                .progressConsumer(progress::add)
                .build();
        client.initialize();
        return client;
    }

    private static String text(McpSchema.CallToolResult result) {
        StringBuilder out = new StringBuilder();
        result.content().forEach(c -> out.append(((McpSchema.TextContent) c).text()));
        return out.toString();
    }

    private static McpSchema.CallToolRequest call(String tool, String input, Object progressToken) {
        return McpSchema.CallToolRequest.builder()
                .name(tool)
                .arguments(Map.of("input", input))
                .progressToken(progressToken)
                .build();
    }

    @Test
    void toolsApi_listsBuiltInMcpAndWorkerTools_withRiskAndSchema() {
        String viewer = key("tools-viewer", "viewer");
        JsonNode tools = api().get("/api/v1/tools", viewer).json();
        Map<String, JsonNode> byName = new java.util.HashMap<>();
        tools.forEach(t -> byName.put(t.get("name").asString(), t));

        assertThat(byName.get("ev_echo").get("kind").asString()).isEqualTo("mcp");
        assertThat(byName.get("ev_echo").get("risk").asString()).isEqualTo("auto");
        assertThat(byName.get("ev_echo").get("schema").get("required").get(0).asString())
                .isEqualTo("message");
        assertThat(byName.get("ev_toggle-simulated-logging").get("risk").asString())
                .isEqualTo("approve");
        assertThat(byName).doesNotContainKey("ev_get-env");

        assertThat(byName.get("restart_service").get("kind").asString()).isEqualTo("builtin");
        assertThat(byName.get("restart_service").get("risk").asString()).isEqualTo("approve");
        assertThat(StreamSupport.stream(
                                byName.get("restart_service").get("usedBy").spliterator(), false)
                        .map(JsonNode::asString))
                .contains("fixer");

        assertThat(byName.get("a2a_peer").get("kind").asString()).isEqualTo("remote_agent");
        assertThat(byName.get("a2a_peer").get("risk").asString()).isEqualTo("suggest");

        JsonNode worker = byName.get("probe-a");
        assertThat(worker.get("kind").asString()).isEqualTo("worker");
        assertThat(worker.get("schema").get("required").get(0).asString()).isEqualTo("task");
        assertThat(worker.get("usedBy").toString()).contains("triage");
        assertThat(byName).as("internal workers are not shown to a viewer").doesNotContainKey("cpu-inspector");
    }

    @Test
    void officialInspectorCli_listsCadresAgents_andCallsOne() throws Exception {
        String agent = key("inspector-agent", "agent");
        String listed = inspector(agent, "--method", "tools/list");
        JsonNode tools =
                new tools.jackson.databind.json.JsonMapper().readTree(listed).get("tools");
        List<String> names = new ArrayList<>();
        tools.forEach(t -> names.add(t.get("name").asString()));
        assertThat(names)
                .contains("echoer", "fixer", "ops-orchestrator", "wf-incident")
                // Only what declares expose: [mcp]: internal ones never, and an entry point without it neither.
                .doesNotContain("cpu-inspector", "wf-hidden", "wf-internal", "wf-sweep", "slow");
        JsonNode echoer = StreamSupport.stream(tools.spliterator(), false)
                .filter(t -> t.get("name").asString().equals("echoer"))
                .findFirst()
                .orElseThrow();
        assertThat(echoer.get("inputSchema").get("required").get(0).asString()).isEqualTo("input");

        String called = inspector(
                agent,
                "--method",
                "tools/call",
                "--tool-name",
                "echoer",
                "--tool-arg",
                "input=hello from the inspector");
        JsonNode result = new tools.jackson.databind.json.JsonMapper().readTree(called);
        assertThat(result.path("isError").asBoolean(false)).as(called).isFalse();
        assertThat(result.get("content").get(0).get("text").asString())
                .startsWith("remote says:")
                .contains("hello from the inspector");
    }

    @Test
    void officialTypeScriptClient_getsProgress_andTheAnswer() throws Exception {
        String agent = key("ts-agent", "agent");
        Path sdk = NpmPeers.module("@modelcontextprotocol/sdk", "1.32.2");
        Path script = Path.of(getClass().getResource("/mcp/ts-client.mjs").toURI());
        Process p = new ProcessBuilder(
                        "node",
                        script.toString(),
                        sdk.toString(),
                        "http://127.0.0.1:" + port + "/mcp",
                        agent,
                        "echoer",
                        "hello from typescript")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        JsonNode json = new tools.jackson.databind.json.JsonMapper()
                .readTree(out.lines()
                        .filter(l -> l.startsWith("{"))
                        .reduce((a, b) -> b)
                        .orElseThrow(() -> new AssertionError("no JSON from the TypeScript client:\n" + out)));
        assertThat(json.get("result").path("isError").asBoolean(false)).as(out).isFalse();
        assertThat(json.get("result").get("content").get(0).get("text").asString())
                .contains("hello from typescript");
        assertThat(json.get("progress").get(0).get("message").asString()).matches("run run_[0-9a-f]+ submitted");
    }

    private String inspector(String key, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                NpmPeers.bin("mcp-inspector").toString(),
                "--cli",
                "http://127.0.0.1:" + port + "/mcp",
                "--header",
                "Authorization: Bearer " + key));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("inspector", ".out");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(false).redirectOutput(out.toFile());
        pb.environment()
                .put(
                        "MCP_CATALOG_PATH",
                        out.resolveSibling(out.getFileName() + ".catalog.json").toString());
        Process p = pb.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("inspector finished").isTrue();
        String stdout = Files.readString(out);
        assertThat(p.exitValue()).as("inspector %s:\n%s\n%s", cmd, stdout, err).isZero();
        return stdout;
    }

    @Test
    void aViewerKey_listsTools_butMayNotCallThem_andNoKeyIsRefused() {
        String viewer = key("mcp-viewer", "viewer");
        try (McpSyncClient client = client(viewer, Map.of(), new CopyOnWriteArrayList<>())) {
            assertThat(client.listTools().tools())
                    .extracting(McpSchema.Tool::name)
                    .contains("echoer");
            McpSchema.CallToolResult result = client.callTool(call("echoer", "hi", "t0"));
            assertThat(result.isError()).isTrue();
            assertThat(text(result)).contains("(viewer) may list tools but not start runs", "agent, operator or admin");
        }
        String initialize = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
        Map<String, String> mcpHeaders =
                Map.of("Content-Type", "application/json", "Accept", "application/json, text/event-stream");
        assertThat(api().send("POST", "/mcp", null, initialize, mcpHeaders).status())
                .isEqualTo(401);
        String intake = key("mcp-intake", "intake");
        assertThat(api().send("POST", "/mcp", intake, initialize, mcpHeaders).status())
                .as("an integration key for another door")
                .isEqualTo(403);
        assertThat(api().send("POST", "/mcp", viewer, initialize, mcpHeaders).status())
                .isEqualTo(200);
    }

    @Test
    void anAgentKey_runsTheAgent_asItself_withProgress_inTheCallersTrace_countedAndAudited() {
        String agent = key("mcp-agent", "agent");
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
        double before = count("echoer", "completed");
        try (McpSyncClient client =
                client(agent, Map.of("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01"), progress)) {
            McpSchema.CallToolResult result = client.callTool(call("echoer", "how is web-1?", "p1"));
            assertThat(result.isError()).as(text(result)).isFalse();
            assertThat(text(result)).startsWith("remote says:").contains("how is web-1?");

            assertThat(progress).isNotEmpty();
            assertThat(progress.getFirst().progressToken()).isEqualTo("p1");
            // The first progress names the run's state when it is sent: queued, or already picked up.
            assertThat(progress.getFirst().message()).matches("run run_[0-9a-f]+ (submitted|working)");
            String runId = progress.getFirst().message().split(" ")[1];

            // The trace store records the run's trace id when it exports the run's spans, after the answer.
            JsonNode run = dev.cadre.platform.support.Await.until(
                    "the trace id of run " + runId,
                    () -> api().get("/api/v1/runs/" + runId, Api.ADMIN_KEY).json(),
                    r -> !r.path("traceId").asString("").isEmpty());
            assertThat(run.get("submittedBy").asString()).isEqualTo("mcp-agent");
            assertThat(run.get("traceId").asString()).isEqualTo(traceId);
            JsonNode audit = api().get("/api/v1/audit?limit=50", Api.ADMIN_KEY).json();
            assertThat(audit.toString()).contains("\"run.submit\"").contains(runId);
        }
        assertThat(count("echoer", "completed")).isEqualTo(before + 1);
    }

    @Test
    void aRunThatFails_orWaitsForAHuman_isAToolErrorSayingWhatToDo() {
        String agent = key("mcp-agent-2", "agent");
        try (McpSyncClient client = client(agent, Map.of(), new CopyOnWriteArrayList<>())) {
            McpSchema.CallToolResult failed = client.callTool(call("doomed", "go", "p2"));
            assertThat(failed.isError()).isTrue();
            assertThat(text(failed))
                    .contains("of doomed failed: BUDGET_EXCEEDED")
                    .contains("/api/v1/runs/run_");

            McpSchema.CallToolResult waiting = client.callTool(call("fixer", "restart api", "p3"));
            assertThat(waiting.isError()).isTrue();
            String text = text(waiting);
            Matcher m = Pattern.compile("Approval (\\S+) asks to run tool restart_service")
                    .matcher(text);
            assertThat(m.find()).as(text).isTrue();
            assertThat(text)
                    .contains("http://127.0.0.1:" + port + "/#/approvals")
                    .contains("POST http://127.0.0.1:" + port + "/api/v1/approvals/" + m.group(1) + "/approve");
            JsonNode approval =
                    api().get("/api/v1/approvals/" + m.group(1), Api.ADMIN_KEY).json();
            assertThat(approval.get("status").asString()).isEqualTo("pending");
        }
        assertThat(count("doomed", "failed")).isGreaterThanOrEqualTo(1);
        assertThat(count("fixer", "input_required")).isGreaterThanOrEqualTo(1);
    }

    private double count(String tool, String outcome) {
        var c = meters.find("cadre.mcp.tool.calls")
                .tags("tool", tool, "outcome", outcome)
                .counter();
        return c == null ? 0 : c.count();
    }
}
