package dev.cadre.platform.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's real Alertmanager ({@code prometheus-alertmanager}, installed by {@code ./test}) on loopback,
 * with one route whose webhook receiver is Cadre's intake, authenticated by an intake key read from a
 * file as a deployment does; alerts are fired with the real {@code amtool}. Gossip is off (one peer).
 */
public final class RealAlertmanager implements AutoCloseable {

    public static final File BINARY = new File("/usr/bin/prometheus-alertmanager");
    public static final File AMTOOL = new File("/usr/bin/amtool");

    private final Path dir;
    private final int port;
    private final Process process;

    private RealAlertmanager(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /**
     * Starts an Alertmanager sending every group to {@code intakeUrl} with {@code intakeKey} as its
     * bearer credential, grouping per alert name, namespace, pod and instance and sending at once.
     */
    public static RealAlertmanager start(String intakeUrl, String intakeKey) throws IOException {
        assertThat(BINARY.canExecute())
                .as("Alertmanager missing: install Debian's prometheus-alertmanager"
                        + " (apt-get install -y prometheus-alertmanager; ./test does it)")
                .isTrue();
        assertThat(AMTOOL.canExecute())
                .as("amtool missing: it ships with prometheus-alertmanager")
                .isTrue();
        Path dir = Files.createTempDirectory("cadre-alertmanager");
        Path credentials = dir.resolve("cadre-intake-key");
        Files.writeString(credentials, intakeKey);
        Files.writeString(dir.resolve("alertmanager.yml"), """
                route:
                  receiver: cadre
                  group_by: [alertname, namespace, pod, instance]
                  group_wait: 0s
                  group_interval: 1s
                  repeat_interval: 1h
                receivers:
                - name: cadre
                  webhook_configs:
                  - url: "%s"
                    send_resolved: true
                    http_config:
                      authorization: {type: Bearer, credentials_file: "%s"}
                """.formatted(intakeUrl, credentials));
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder(
                        BINARY.getPath(),
                        "--config.file=" + dir.resolve("alertmanager.yml"),
                        "--storage.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port,
                        "--cluster.listen-address=",
                        "--log.level=debug")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("alertmanager.log").toFile())
                .start();
        RealAlertmanager am = new RealAlertmanager(dir, port, p);
        am.awaitReady();
        return am;
    }

    private void awaitReady() {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Await.until(
                "Alertmanager on 127.0.0.1:" + port + " to be ready",
                () -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("Alertmanager exited: " + log());
                    }
                    try {
                        return http.send(
                                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready"))
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode();
                    } catch (IOException e) {
                        return 0;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                },
                status -> status == 200);
    }

    /**
     * {@code amtool alert add} with {@code labels} ({@code name=value}) and annotations; {@code
     * resolved} ends the alert a minute ago, which Alertmanager sends as resolved.
     */
    public String amtoolAdd(List<String> labels, List<String> annotations, boolean resolved) {
        List<String> cmd = new ArrayList<>(
                List.of(AMTOOL.getPath(), "alert", "add", "--alertmanager.url=http://127.0.0.1:" + port));
        cmd.addAll(labels);
        annotations.forEach(a -> cmd.add("--annotation=" + a));
        if (resolved) {
            cmd.add("--end=" + java.time.Instant.now().minusSeconds(60));
        }
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("amtool finished").isTrue();
            assertThat(p.exitValue()).as("amtool " + cmd + ": " + out).isZero();
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What Alertmanager logged so far (its notify attempts and their answers are at debug level). */
    public String log() {
        try {
            Path log = dir.resolve("alertmanager.log");
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
