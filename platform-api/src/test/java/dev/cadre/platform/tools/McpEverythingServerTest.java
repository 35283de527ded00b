package dev.cadre.platform.tools;

import static dev.cadre.platform.tools.ToolTestSupport.JSON;
import static dev.cadre.platform.tools.ToolTestSupport.args;
import static dev.cadre.platform.tools.ToolTestSupport.ctx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.platform.observability.OutboundTraceContext;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.NpmPeers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Against the official MCP reference server {@code @modelcontextprotocol/server-everything} from npm,
 * over stdio (as a child process) and over streamable HTTP, including a server that restarts.
 */
class McpEverythingServerTest {

    private Process httpServer;

    @AfterEach
    void stopHttpServer() {
        if (httpServer != null) {
            stopTree(httpServer.toHandle());
        }
    }

    private static Map<String, Tool> byName(McpTools mcp) {
        Map<String, Tool> out = new java.util.LinkedHashMap<>();
        mcp.tools().forEach(t -> out.put(t.name(), t));
        return out;
    }

    @Test
    void stdioServer_startedAsAChildProcess_offersItsAllowlistedTools_withARiskEach() throws Exception {
        Path bin = NpmPeers.bin("mcp-server-everything");
        McpTools.Server server = McpTools.Server.stdio(bin.toString(), List.of("stdio"))
                .withTools(
                        List.of("echo", "get-sum", "toggle-simulated-logging"), null, Map.of("get-sum", Risk.SUGGEST));
        try (McpTools mcp = new McpTools(
                new McpTools.Properties(Map.of("ev", server)), JSON, OutboundTraceContext.none(), n -> null)) {
            Map<String, Tool> tools = byName(mcp);
            assertThat(tools).containsOnlyKeys("ev_echo", "ev_get-sum", "ev_toggle-simulated-logging");
            assertThat(tools.get("ev_echo").risk()).as("annotated read-only").isEqualTo(Risk.AUTO);
            assertThat(tools.get("ev_get-sum").risk()).as("set in risks").isEqualTo(Risk.SUGGEST);
            assertThat(tools.get("ev_toggle-simulated-logging").risk())
                    .as("not read-only: a human approves")
                    .isEqualTo(Risk.APPROVE);
            assertThat(tools.get("ev_echo").execute(args("{\"message\":\"hi\"}"), ctx("r", "c1")))
                    .isEqualTo("Echo: hi");
            assertThat(tools.get("ev_get-sum").execute(args("{\"a\":2,\"b\":40}"), ctx("r", "c2")))
                    .contains("42");
        }
    }

    @Test
    void stdioServer_getsItsEnvAndWorkingDirectory_andNotThePlatformsEnvironment() throws Exception {
        NpmPeers.bin("mcp-server-everything");
        // A relative command only starts when the working directory is the npm prefix.
        McpTools.Server server = McpTools.Server.stdio("node_modules/.bin/mcp-server-everything", List.of("stdio"))
                .withEnv(Map.of("EVERYTHING_GREETING", "${CADRE_TEST_SECRET}"), NpmPeers.prefix());
        try (McpTools mcp = new McpTools(
                new McpTools.Properties(Map.of("ev", server)),
                JSON,
                OutboundTraceContext.none(),
                n -> n.equals("CADRE_TEST_SECRET") ? "s3cret" : null)) {
            String out = byName(mcp).get("ev_get-env").execute(args("{}"), ctx("r", "c1"));
            JsonNode env = JSON.readTree(out);
            assertThat(env.path("EVERYTHING_GREETING").asString()).isEqualTo("s3cret");
            Set<String> keys = new HashSet<>(env.propertyNames());
            keys.removeAll(McpStdioTransport.INHERITED);
            assertThat(keys)
                    .as("only what the entry's env names, beyond the usual basics")
                    .containsOnly("EVERYTHING_GREETING");
        }
    }

    @Test
    void stdioServer_thatDied_isStartedAgain_andTheCallSucceeds() throws Exception {
        Path bin = NpmPeers.bin("mcp-server-everything");
        McpTools.Server server = McpTools.Server.stdio(bin.toString(), List.of("stdio"));
        try (McpTools mcp = new McpTools(
                new McpTools.Properties(Map.of("ev", server)), JSON, OutboundTraceContext.none(), n -> null)) {
            Tool echo = byName(mcp).get("ev_echo");
            assertThat(echo.execute(args("{\"message\":\"one\"}"), ctx("r", "c1")))
                    .isEqualTo("Echo: one");
            List<ProcessHandle> servers = ProcessHandle.current()
                    .descendants()
                    .filter(p -> p.info().commandLine().orElse("").contains("server-everything"))
                    .toList();
            assertThat(servers).hasSize(1);
            servers.getFirst().destroyForcibly();
            servers.getFirst().onExit().get();

            assertThat(echo.execute(args("{\"message\":\"two\"}"), ctx("r", "c2")))
                    .isEqualTo("Echo: two");
            List<ProcessHandle> after = ProcessHandle.current()
                    .descendants()
                    .filter(p -> p.info().commandLine().orElse("").contains("server-everything"))
                    .toList();
            assertThat(after).hasSize(1).doesNotContain(servers.getFirst());
        }
        assertThat(ProcessHandle.current()
                        .descendants()
                        .filter(p -> p.info().commandLine().orElse("").contains("server-everything")))
                .as("closing stops the process")
                .isEmpty();
    }

    @Test
    void aCallPendingWhenTheProcessDies_failsAtOnce_andIsNotRetried() throws Exception {
        Path script = Path.of(getClass().getResource("/mcp/hanging-server.mjs").toURI());
        Path marker = java.nio.file.Files.createTempFile("hang", ".calls");
        McpTools.Server server = McpTools.Server.stdio("node", List.of(script.toString()))
                .withEnv(Map.of("HANG_MARKER", marker.toString()), null)
                .withTimeout(java.time.Duration.ofMinutes(5));
        try (McpTools mcp = new McpTools(
                new McpTools.Properties(Map.of("hanging", server)), JSON, OutboundTraceContext.none(), n -> null)) {
            Tool hang = byName(mcp).get("hanging_hang");
            var call = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return hang.execute(args("{}"), ctx("r", "c1"));
                } catch (Exception e) {
                    return e.getMessage();
                }
            });
            String pid = Await.until("the call to reach the server", () -> read(marker), s -> !s.isEmpty());
            ProcessHandle.of(Long.parseLong(pid)).orElseThrow().destroyForcibly();

            assertThat(call.get(60, java.util.concurrent.TimeUnit.SECONDS))
                    .as("answered when the process exits, not after the 5-minute timeout")
                    .contains("MCP server process exited with code 137 before answering");
            assertThat(java.nio.file.Files.readAllLines(marker))
                    .as("the call may have done its work: it is not sent again")
                    .hasSize(1);
        } finally {
            java.nio.file.Files.deleteIfExists(marker);
        }
    }

    @Test
    void httpServer_thatRestarted_isReinitialised_andTheNextCallSucceeds() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        httpServer = startHttp(port);
        McpTools.Server server = McpTools.Server.http(URI.create("http://127.0.0.1:" + port));
        try (McpTools mcp = new McpTools(
                new McpTools.Properties(Map.of("ev", server)), JSON, OutboundTraceContext.none(), n -> null)) {
            Tool sum = byName(mcp).get("ev_get-sum");
            assertThat(sum.risk()).isEqualTo(Risk.AUTO);
            assertThat(sum.execute(args("{\"a\":1,\"b\":2}"), ctx("r", "c1"))).contains("3");

            stopTree(httpServer.toHandle());
            httpServer = startHttp(port);

            assertThat(sum.execute(args("{\"a\":20,\"b\":22}"), ctx("r", "c2"))).contains("42");
            assertThat(sum.execute(args("{\"a\":1,\"b\":1}"), ctx("r", "c3"))).contains("2");
        }
    }

    private static String read(Path file) {
        try {
            return java.nio.file.Files.readString(file).strip();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Process startHttp(int port) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(
                        NpmPeers.bin("mcp-server-everything").toString(), "streamableHttp")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("PORT", String.valueOf(port));
        Process p = pb.start();
        Await.until("server-everything listening on " + port, () -> listening(port) || !p.isAlive(), ok -> ok);
        assertThat(p.isAlive())
                .as("server-everything on port " + port + " is running")
                .isTrue();
        return p;
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void stopTree(ProcessHandle p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.onExit().join();
    }
}
