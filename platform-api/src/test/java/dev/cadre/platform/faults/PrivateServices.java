package dev.cadre.platform.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The fault suite's own PostgreSQL and Redis, on free ports with their files under {@code target/},
 * so it can crash and restart them without touching the services other tests on the machine use.
 */
final class PrivateServices {

    private PrivateServices() {}

    /** A PostgreSQL cluster made with Debian's binaries; run as user postgres when we are root. */
    static final class Postgres {
        private static final Path BIN =
                Path.of(System.getenv().getOrDefault("FAULTS_PG_BIN", "/usr/lib/postgresql/15/bin"));
        private final Path dataDir;
        private final Path log;
        private final int port;

        Postgres(Path dir, int port) {
            this.dataDir = dir.resolve("pgdata").toAbsolutePath();
            this.log = dir.resolve("postgres.log").toAbsolutePath();
            this.port = port;
        }

        String jdbcUrl() {
            return "jdbc:postgresql://127.0.0.1:" + port + "/cadre";
        }

        int port() {
            return port;
        }

        Connection connect() throws SQLException {
            return DriverManager.getConnection(jdbcUrl(), "postgres", "");
        }

        /** initdb (trust auth, fsync on as in production), start, create database cadre. */
        void init() throws IOException, InterruptedException {
            Files.createDirectories(dataDir.getParent());
            if (Files.exists(dataDir)) {
                run(List.of("rm", "-rf", dataDir.toString()), false);
            }
            Files.createDirectories(dataDir);
            if (isRoot()) {
                run(List.of("chown", "-R", "postgres:postgres", dataDir.toString()), false);
                Files.deleteIfExists(log);
                Files.createFile(log);
                run(List.of("chown", "postgres:postgres", log.toString()), false);
            }
            run(
                    List.of(
                            BIN.resolve("initdb").toString(),
                            "-D",
                            dataDir.toString(),
                            "-U",
                            "postgres",
                            "-A",
                            "trust"),
                    true);
            start();
            try (Connection c = DriverManager.getConnection(
                            "jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
                    var st = c.createStatement()) {
                st.execute("CREATE DATABASE cadre");
            } catch (SQLException e) {
                throw new IllegalStateException("could not create database cadre", e);
            }
        }

        void start() throws IOException, InterruptedException {
            run(
                    List.of(
                            BIN.resolve("pg_ctl").toString(),
                            "-D",
                            dataDir.toString(),
                            "-l",
                            log.toString(),
                            "-w",
                            "-o",
                            "-p " + port + " -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=200",
                            "start"),
                    true);
        }

        /** {@code pg_ctl stop -m <mode>}: {@code immediate} is a crash for the server (recovery on start). */
        void stop(String mode) throws IOException, InterruptedException {
            run(List.of(BIN.resolve("pg_ctl").toString(), "-D", dataDir.toString(), "-m", mode, "-w", "stop"), true);
        }

        void stopQuietly() {
            try {
                if (Files.exists(dataDir.resolve("postmaster.pid"))) {
                    stop("immediate");
                }
            } catch (Exception e) {
                System.err.println("could not stop the private PostgreSQL: " + e);
            }
        }
    }

    /** A redis-server child process without persistence, as deployed; {@link #kill()} is kill -9. */
    static final class Redis {
        private final Path log;
        private final int port;
        private Process process;

        Redis(Path dir, int port) {
            this.log = dir.resolve("redis.log").toAbsolutePath();
            this.port = port;
        }

        String uri() {
            return "redis://127.0.0.1:" + port;
        }

        void start() throws IOException, InterruptedException {
            process = new ProcessBuilder(
                            "redis-server",
                            "--port",
                            String.valueOf(port),
                            "--bind",
                            "127.0.0.1",
                            "--save",
                            "",
                            "--appendonly",
                            "no")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline) {
                try (var s = new java.net.Socket("127.0.0.1", port)) {
                    return;
                } catch (IOException notYet) {
                    Thread.sleep(50);
                }
            }
            throw new IllegalStateException("redis-server did not listen on " + port + "; see " + log);
        }

        void kill() throws InterruptedException {
            process.destroyForcibly().waitFor();
        }

        void stopQuietly() {
            if (process != null) {
                process.destroyForcibly();
            }
        }
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Runs a command (as postgres when {@code asPostgres} and we are root); fails on a non-zero exit. */
    static void run(List<String> command, boolean asPostgres) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (asPostgres && isRoot()) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.addAll(command);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
        }
    }
}
