package dev.cadre.memory.testing;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away {@code redis-server} child process (no persistence) that fault tests may kill,
 * restart and flush without touching the machine's shared Redis. Fails with a clear message when no
 * {@code redis-server} binary is installed.
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final List<String> CANDIDATES = List.of("/usr/bin/redis-server", "/usr/local/bin/redis-server");

    private final String binary;
    private final int port;
    private final Path dir;
    private Process process;

    private RedisServerProcess(String binary, int port, Path dir) {
        this.binary = binary;
        this.port = port;
        this.dir = dir;
    }

    /** Starts a new server on a free port. */
    public static RedisServerProcess start() {
        String binary = CANDIDATES.stream()
                .filter(p -> new File(p).canExecute())
                .findFirst()
                .orElseThrow(() -> new AssertionError("Fault tests start their own Redis but no redis-server binary was"
                        + " found at " + CANDIDATES + ": install it (e.g. `apt-get install -y redis-server`)."));
        try {
            RedisServerProcess server =
                    new RedisServerProcess(binary, freePort(), Files.createTempDirectory("cadre-redis-"));
            server.launch();
            return server;
        } catch (IOException e) {
            throw new AssertionError("could not start redis-server: " + e.getMessage(), e);
        }
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Kills the server at once (SIGKILL): everything it held is gone, as in a crash. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts the server again on the same port, empty. */
    public void restart() {
        try {
            launch();
        } catch (IOException e) {
            throw new AssertionError("could not restart redis-server: " + e.getMessage(), e);
        }
    }

    public boolean running() {
        return process.isAlive();
    }

    private void launch() throws IOException {
        process = new ProcessBuilder(
                        binary,
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--dir",
                        dir.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (!process.isAlive()) {
                    throw new IOException("redis-server exited; see " + dir.resolve("redis.log"));
                }
                sleep(20);
            }
        }
        throw new IOException("redis-server did not listen on port " + port + " within 10 s");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process != null) {
            kill();
        }
    }
}
