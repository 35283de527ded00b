package dev.cadre.platform.support;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One platform instance as a real operating-system process running the packaged jar: the one way
 * tests and benchmarks start the platform as users run it. A test can {@code kill -9} it
 * ({@link #kill()}) and start it again; a benchmark gets a JVM of its own, so the clients'
 * allocations and GC stay out of the server's heap and JIT profile. Used by the cluster IT, the
 * fault suite and the platform benchmark (src/bench/java); its output goes to
 * {@code <logDir>/instance-<name>.log} (appended across restarts).
 */
public final class PlatformProcess implements AutoCloseable {

    /** The JVM options of {@link #start(String, int, Path, List)}: small, several instances share two cores. */
    public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx384m");

    private final String name;
    private final int port;
    private final Path log;
    private final List<String> command;
    private final @Nullable Path workDir;
    private Process process;

    private PlatformProcess(String name, int port, Path log, List<String> command, @Nullable Path workDir) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.command = command;
        this.workDir = workDir;
    }

    /**
     * Starts {@code java -Xmx384m -jar platform-api-*.jar --server.port=<port> --cadre.instance-id=<name>
     * <args>} in this JVM's working directory; call {@link #awaitHealthy} before using it.
     */
    public static PlatformProcess start(String name, int port, Path logDir, List<String> args) throws IOException {
        return start(name, port, logDir, DEFAULT_JVM_OPTIONS, null, args);
    }

    /**
     * Starts the jar with {@code jvmOptions} (heap size, for instance) before {@code -jar}, in
     * {@code workDir} when given (the embedded H2 database lives in {@code ./data} of it), and
     * {@code args} (Spring properties as {@code --key=value}) after the port and instance id.
     */
    public static PlatformProcess start(
            String name, int port, Path logDir, List<String> jvmOptions, @Nullable Path workDir, List<String> args)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", jar().getAbsolutePath(), "--server.port=" + port, "--cadre.instance-id=" + name));
        cmd.addAll(args);
        Files.createDirectories(logDir);
        Path log = logDir.resolve("instance-" + name + ".log");
        Files.deleteIfExists(log);
        PlatformProcess p = new PlatformProcess(name, port, log, cmd, workDir);
        p.launch();
        return p;
    }

    /**
     * As {@link #start(String, int, Path, List, Path, List)}, with SIGINT at its default disposition, as
     * a terminal's foreground process has it (what Ctrl-C reaches). A suite run in the background
     * without job control (a script's {@code &}, {@code nohup}, a CI runner) starts every child with
     * SIGINT ignored, and a JVM installs no handler for a signal ignored at its start: such a child
     * never sees the SIGINT a test sends. Perl (part of every Debian base system) resets it and execs.
     */
    public static PlatformProcess startAsFromATerminal(
            String name, int port, Path logDir, List<String> jvmOptions, @Nullable Path workDir, List<String> args)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die $!", java));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", jar().getAbsolutePath(), "--server.port=" + port, "--cadre.instance-id=" + name));
        cmd.addAll(args);
        Files.createDirectories(logDir);
        Path log = logDir.resolve("instance-" + name + ".log");
        Files.deleteIfExists(log);
        PlatformProcess p = new PlatformProcess(name, port, log, cmd, workDir);
        p.launch();
        return p;
    }

    private void launch() throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        if (workDir != null) {
            builder.directory(workDir.toFile());
        }
        process = builder.start();
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

    /** {@code http://127.0.0.1:<port>}, for clients other than {@link Api}. */
    public String base() {
        return "http://127.0.0.1:" + port;
    }

    /** The operating-system process id, to read the instance's CPU time. */
    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
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

    /**
     * Sends {@code signal} ({@code INT} as Ctrl-C does, {@code TERM}) with {@code kill} and waits for
     * the process to end; its exit code, or -1 if it still runs after {@code max}.
     */
    public int signalAndWait(String signal, Duration max) throws IOException, InterruptedException {
        int sent = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start()
                .waitFor();
        if (sent != 0) {
            throw new IOException("kill -" + signal + " " + process.pid() + " failed with " + sent);
        }
        return process.waitFor(max.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    /** Kills the process if it still runs; for tear-down. */
    public void destroy() {
        if (process != null) {
            process.destroyForcibly();
        }
    }

    /** Stops the instance gracefully (SIGTERM), forcibly if it is not gone within 30 seconds. */
    @Override
    public void close() throws InterruptedException {
        if (process == null) {
            return;
        }
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
