package dev.cadre.platform.bench;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The real platform as users run it: the packaged jar in a JVM of its own, started with a
 * bootstrap admin key and the benchmark's agent file, like ClusterIT does. A separate process
 * keeps the clients' allocations and GC out of the server's heap and JIT profile.
 */
final class PlatformProcess implements AutoCloseable {

    static final String ADMIN_KEY = "bench-admin-key-0123456789abcdef";

    final String name;
    final int port;
    final String base;
    private final Process process;
    private final Path log;

    private PlatformProcess(String name, int port, Process process, Path log) {
        this.name = name;
        this.port = port;
        this.base = "http://127.0.0.1:" + port;
        this.process = process;
        this.log = log;
    }

    /** Starts the jar with {@code extraArgs} (Spring properties as {@code --key=value}) and waits until healthy. */
    static PlatformProcess start(String name, Path out, Path agents, List<String> extraArgs, String heap)
            throws Exception {
        // The jar and a free port as the integration tests find them.
        File jar = dev.cadre.platform.support.PlatformProcess.jar();
        int port = dev.cadre.platform.support.PlatformProcess.freePort();
        Path log = out.resolve("platform-" + name + ".log");
        List<String> cmd = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xms" + heap,
                "-Xmx" + heap,
                "-jar",
                jar.getAbsolutePath(),
                "--server.port=" + port,
                "--cadre.security.bootstrap-api-key=" + ADMIN_KEY,
                "--cadre.agents.locations=file:" + agents.toAbsolutePath(),
                // Logging every request would measure the log appender; keep the default INFO.
                "--logging.level.root=WARN",
                "--logging.level.dev.cadre=WARN"));
        cmd.addAll(extraArgs);
        Process p = new ProcessBuilder(cmd)
                .directory(out.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        PlatformProcess platform = new PlatformProcess(name, port, p, log);
        long t0 = System.nanoTime();
        platform.awaitHealthy();
        System.out.println(Measure.fmt(
                "platform '%s' (pid %d, port %d) healthy after %.1f s",
                name, p.pid(), port, (System.nanoTime() - t0) / 1e9));
        return platform;
    }

    private void awaitHealthy() throws InterruptedException {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        long deadline = System.nanoTime() + Duration.ofSeconds(300).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("platform '" + name + "' exited; see " + log);
            }
            try {
                HttpResponse<String> r = client.send(
                        HttpRequest.newBuilder(URI.create(base + "/actuator/health"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("platform '" + name + "' not healthy within 300 s; see " + log);
    }

    /** The JVM's process id, to read its CPU time. */
    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
