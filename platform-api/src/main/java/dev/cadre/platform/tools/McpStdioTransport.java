package dev.cadre.platform.tools;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * MCP's stdio transport over a child process, the way MCP clients start servers ({@code command},
 * {@code args}, {@code env}, working directory). Written here rather than taken from the SDK's
 * {@code StdioClientTransport} because that one cannot set the working directory, hands the child
 * the platform's whole environment, lets a request to a dead process wait for the full request
 * timeout, and stops only the direct child of {@code npx}-style launchers. Here a request pending
 * when the process exits is answered at once with an error naming the exit code, a message to a
 * process that has exited fails without being sent ({@link ServerExited}: the caller may start a new
 * process and retry), stderr goes to the log line by line, and closing stops the whole process tree.
 */
final class McpStdioTransport implements McpClientTransport {

    private static final Logger log = LoggerFactory.getLogger(McpStdioTransport.class);

    /**
     * What the child inherits from the platform's environment, as MCP clients do (the TypeScript
     * SDK's default environment plus locale and temp dir); everything else — the platform's database
     * password among it — only when the entry's {@code env} names it.
     */
    static final List<String> INHERITED =
            List.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "TZ", "SYSTEMROOT");

    /** The process exited before this message could be sent; nothing reached the server. */
    static final class ServerExited extends IOException {
        ServerExited(String message) {
            super(message);
        }
    }

    private final String server;
    private final List<String> command;
    private final Map<String, String> env;
    private final @Nullable Path directory;
    private final McpJsonMapper json;
    private final Set<Object> pending = ConcurrentHashMap.newKeySet();
    private volatile @Nullable Process process;
    private volatile boolean closing;

    McpStdioTransport(
            String server,
            List<String> command,
            Map<String, String> env,
            @Nullable Path directory,
            McpJsonMapper json) {
        this.server = server;
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.directory = directory;
        this.json = json;
    }

    /** Whether the process was started and has since exited (or was never started successfully). */
    boolean exited() {
        Process p = process;
        return p == null || !p.isAlive();
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return Mono.fromRunnable(() -> {
            ProcessBuilder builder = new ProcessBuilder(command);
            Map<String, String> childEnv = builder.environment();
            Map<String, String> inherited = new java.util.HashMap<>();
            INHERITED.forEach(k -> {
                String v = childEnv.get(k);
                if (v != null) {
                    inherited.put(k, v);
                }
            });
            childEnv.clear();
            childEnv.putAll(inherited);
            childEnv.putAll(env);
            if (directory != null) {
                builder.directory(directory.toFile());
            }
            Process p;
            try {
                p = builder.start();
            } catch (IOException e) {
                throw new IllegalStateException(
                        "MCP server " + server + ": cannot start " + command + ": " + e.getMessage(), e);
            }
            process = p;
            log.info("MCP server {}: started {} (pid {})", server, command.getFirst(), p.pid());
            Thread.ofVirtual().name("mcp-" + server + "-out").start(() -> readMessages(p, handler));
            Thread.ofVirtual().name("mcp-" + server + "-err").start(() -> readStderr(p));
            p.onExit().thenAccept(this::exited);
        });
    }

    private void readMessages(Process p, Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> h) {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                McpSchema.JSONRPCMessage message;
                try {
                    message = McpSchema.deserializeJsonRpcMessage(json, line);
                } catch (IOException | RuntimeException e) {
                    // A server printing a banner to stdout breaks no session: skip what is not JSON-RPC.
                    log.warn("MCP server {}: not a JSON-RPC message on stdout, skipped: {}", server, abbreviate(line));
                    continue;
                }
                if (message instanceof McpSchema.JSONRPCResponse r && r.id() != null) {
                    pending.remove(r.id());
                }
                h.apply(Mono.just(message))
                        .subscribe(
                                ignored -> {}, e -> log.debug("MCP server {}: handling a message failed", server, e));
            }
        } catch (IOException e) {
            if (!closing) {
                log.debug("MCP server {}: stdout closed: {}", server, e.toString());
            }
        }
        // The process closed stdout (normally: it is exiting). Answer what it will never answer.
        try {
            p.waitFor(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String why = p.isAlive() ? "closed its output" : "exited with code " + p.exitValue();
        for (Object id : List.copyOf(pending)) {
            pending.remove(id);
            h.apply(Mono.just(new McpSchema.JSONRPCResponse(
                            McpSchema.JSONRPC_VERSION,
                            id,
                            null,
                            new McpSchema.JSONRPCResponse.JSONRPCError(
                                    McpSchema.ErrorCodes.INTERNAL_ERROR,
                                    "MCP server process " + why + " before answering",
                                    null))))
                    .subscribe(ignored -> {}, e -> {});
        }
    }

    private void readStderr(Process p) {
        try (BufferedReader err =
                new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = err.readLine()) != null) {
                log.info("MCP server {} stderr: {}", server, abbreviate(line));
            }
        } catch (IOException e) {
            // the process is gone; its exit is logged once by exited()
        }
    }

    private void exited(Process p) {
        if (!closing) {
            log.warn(
                    "MCP server {}: process {} exited with code {}; it is started again on the next call",
                    server,
                    p.pid(),
                    p.exitValue());
        }
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return Mono.fromCallable(() -> {
                    Process p = process;
                    if (p == null || !p.isAlive() || closing) {
                        throw new ServerExited("MCP server " + server + ": process "
                                + (p == null ? "not started" : "exited with code " + p.exitValue()));
                    }
                    if (message instanceof McpSchema.JSONRPCRequest r && r.id() != null) {
                        pending.add(r.id());
                    }
                    // One message per line: JSON has no raw newlines in strings, so only pretty-printing could add one.
                    String line =
                            json.writeValueAsString(message).replace("\r", "").replace("\n", "");
                    OutputStream out = p.getOutputStream();
                    synchronized (out) {
                        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                        out.flush();
                    }
                    return true;
                })
                .then();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(this::stop);
    }

    @Override
    public void close() {
        stop();
    }

    private void stop() {
        closing = true;
        Process p = process;
        if (p == null) {
            return;
        }
        // npx, uvx and shells start the real server as a child: stop the whole tree, children first.
        List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
        tree.forEach(ProcessHandle::destroy);
        p.destroy();
        try {
            if (!p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                tree.forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return json.convertValue(data, typeRef);
    }

    private static String abbreviate(String line) {
        return line.length() <= 500 ? line : line.substring(0, 500) + "…";
    }
}
