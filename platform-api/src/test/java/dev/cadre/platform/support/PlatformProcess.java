package dev.cadre.platform.support;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One platform instance as a real operating-system process running the packaged jar, so a test
 * can {@code kill -9} it ({@link #kill()}) and start it again. Used by the cluster IT and the
 * fault suite; its output goes to {@code <logDir>/instance-<name>.log} (appended across restarts).
 */
public final class PlatformProcess {

    private final String name;
    private final int port;
    private final Path log;
    private final List<String> command;
    private final File workDir;
    private Process process;

    private PlatformProcess(String name, int port, Path log, List<String> command, File workDir) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.command = command;
        this.workDir = workDir;
    }

    /**
     * Starts {@code java -jar platform-api-*.jar --server.port=<port> --cadre.instance-id=<name>
     * <args>}; call {@link #awaitHealthy} before using it.
     */
    public static PlatformProcess start(String name, int port, Path logDir, List<String> args) throws IOException {
        return start(name, port, logDir, Path.of("."), args);
    }

    /**
     * As {@link #start(String, int, Path, List)}, in working directory {@code workDir}: the embedded
     * default keeps its database and runbooks under {@code ./data}, so a test of that default gets a
     * directory of its own.
     */
    public static PlatformProcess start(String name, int port, Path logDir, Path workDir, List<String> args)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Xmx384m",
                "-jar",
                jar().getAbsolutePath(),
                "--server.port=" + port,
                "--cadre.instance-id=" + name));
        cmd.addAll(args);
        Files.createDirectories(logDir);
        Path log = logDir.resolve("instance-" + name + ".log");
        Files.deleteIfExists(log);
        PlatformProcess p = new PlatformProcess(
                name, port, log, cmd, workDir.toAbsolutePath().toFile());
        p.launch();
        return p;
    }

    private void launch() throws IOException {
        process = new ProcessBuilder(command)
                .directory(workDir)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
    }

    /** The packaged fat jar in {@code target/}; fails with what to run when it is missing. */
    public static File jar() throws IOException {
        try (var files = Files.list(Path.of("target"))) {
            return files.filter(p -> p.getFileName().toString().matches("platform-api-.*\\.jar")
                            && !p.getFileName().toString().contains("original")
                            && !p.getFileName().toString().contains("tests"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(
                            "the packaged jar is missing: run `./mvnw verify` (package precedes integration tests)"))
                    .toFile();
        }
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public Api api() {
        return new Api(port);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** {@code kill -9}: no shutdown hook, no graceful drain; waits until the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    /** Starts the same command again (after {@link #kill()}), appending to the same log. */
    public void restart() throws IOException {
        if (process.isAlive()) {
            throw new IllegalStateException("instance " + name + " is still running");
        }
        launch();
    }

    /** Waits until {@code /actuator/health} answers 200; fails early when the process exits. */
    public void awaitHealthy(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        Api api = api();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("instance " + name + " exited; see " + log);
            }
            try {
                if (api.get("/actuator/health", null).status() == 200) {
                    return;
                }
            } catch (IllegalStateException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new AssertionError("instance " + name + " not healthy within " + max + "; see " + log);
    }

    /** The last {@code lines} lines of this instance's log, for diagnoses. */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log for instance " + name + ": " + e.getMessage() + ")";
        }
    }

    /** Kills the process if it still runs; for tear-down. */
    public void destroy() {
        if (process != null) {
            process.destroyForcibly();
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
