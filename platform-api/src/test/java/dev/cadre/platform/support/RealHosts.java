package dev.cadre.platform.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two "hosts" as Prometheus sees them: Debian's real {@code prometheus} scraping two real
 * {@code prometheus-node-exporter} processes on loopback, relabelled {@code instance="web-1:9100"} and
 * {@code instance="db-2:9100"} (both installed by {@code ./test}).
 *
 * <p>Both exporters read the same machine, so "web-1 busy, db-2 quiet" is made true rather than
 * pretended: a real busy process ({@code sha256sum /dev/zero}) is pinned to CPU 0 and web-1's scrape
 * keeps only CPU 0's {@code node_cpu_seconds_total} series (web-1 is a one-core host whose core is
 * busy); db-2's exporter runs with its cpu collector off, so Prometheus holds no CPU series for db-2
 * (the team must then say it has no CPU data for db-2, not report anyone else's CPU). Memory, disk and
 * network series are the machine's real ones for both.
 */
public final class RealHosts implements AutoCloseable {

    public static final File PROMETHEUS = new File("/usr/bin/prometheus");
    public static final File NODE_EXPORTER = new File("/usr/bin/prometheus-node-exporter");
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path dir;
    private final List<Process> processes = new ArrayList<>();
    private Process prometheus;
    private final int prometheusPort;
    private Process busy;

    private RealHosts(Path dir, int prometheusPort) {
        this.dir = dir;
        this.prometheusPort = prometheusPort;
    }

    /** Starts the busy process, both exporters and Prometheus; returns once web-1 has a CPU rate. */
    public static RealHosts start() throws IOException {
        return start(true);
    }

    /**
     * Both exporters and Prometheus, with the busy process on CPU 0 when {@code busy} (else a test starts
     * its own with {@link #startBusy}); returns once web-1 has a CPU rate.
     */
    public static RealHosts start(boolean busy) throws IOException {
        assertThat(PROMETHEUS)
                .as("prometheus missing: apt-get install -y prometheus (./test does it)")
                .exists();
        assertThat(NODE_EXPORTER)
                .as("node_exporter missing: apt-get install -y prometheus-node-exporter (./test does it)")
                .exists();
        Path dir = Files.createTempDirectory("cadre-hosts");
        RealHosts hosts = new RealHosts(dir, PlatformProcess.freePort());
        try {
            if (busy) {
                hosts.busy = hosts.startBusy();
            }
            int web = hosts.exporter("web-1", List.of());
            int db = hosts.exporter("db-2", List.of("--no-collector.cpu"));
            Files.writeString(dir.resolve("prometheus.yml"), """
                    global:
                      scrape_interval: 1s
                      scrape_timeout: 1s
                    scrape_configs:
                      - job_name: node
                        static_configs:
                          - targets: ['127.0.0.1:%d']
                            labels: {host_alias: web-1}
                          - targets: ['127.0.0.1:%d']
                            labels: {host_alias: db-2}
                        relabel_configs:
                          - source_labels: [host_alias]
                            target_label: instance
                            replacement: '$1:9100'
                          - {regex: host_alias, action: labeldrop}
                        metric_relabel_configs:
                          # web-1 is a one-core host: only CPU 0, where the busy process is pinned.
                          - source_labels: [instance, __name__, cpu]
                            regex: 'web-1:9100;node_cpu_seconds_total;[1-9][0-9]*'
                            action: drop
                    """.formatted(web, db));
            hosts.startPrometheus();
            hosts.awaitQuery("count(rate(node_cpu_seconds_total{instance=\"web-1:9100\"}[1m]))");
            hosts.awaitQuery("up{instance=\"db-2:9100\"} == 1");
            return hosts;
        } catch (IOException | RuntimeException | Error e) {
            hosts.close();
            throw e;
        }
    }

    private int exporter(String name, List<String> flags) throws IOException {
        int port = PlatformProcess.freePort();
        List<String> cmd = new ArrayList<>(List.of(
                NODE_EXPORTER.getPath(),
                "--web.listen-address=127.0.0.1:" + port,
                "--no-collector.textfile",
                "--no-collector.systemd"));
        cmd.addAll(flags);
        processes.add(new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + "-exporter.log").toFile())
                .start());
        return port;
    }

    private void startPrometheus() throws IOException {
        prometheus = new ProcessBuilder(
                        PROMETHEUS.getPath(),
                        "--config.file=" + dir.resolve("prometheus.yml"),
                        "--storage.tsdb.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + prometheusPort)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dir.resolve("prometheus.log").toFile()))
                .start();
    }

    /** Prometheus's base URL. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + prometheusPort);
    }

    /** Stops Prometheus (the exporters keep running): the team must then say it cannot see the hosts. */
    public void stopPrometheus() throws InterruptedException {
        prometheus.destroy();
        if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
            prometheus.destroyForcibly().waitFor();
        }
    }

    /** A busy process pinned to CPU 0 (web-1's one core); its pid is in {@link #busyPidFile()}. */
    public Process startBusy() throws IOException {
        return busy(List.of("taskset", "-c", "0", "sha256sum", "/dev/zero"));
    }

    /**
     * A runaway process on web-1: spins on CPU 0 and holds {@code gib} GiB of touched memory, so stopping
     * it shows in Prometheus even when other work keeps the machine's CPU saturated.
     */
    public Process startRunaway(int gib) throws IOException {
        return busy(List.of(
                "taskset", "-c", "0", "python3", "-c", "held = b'\\x01' * (" + gib + " << 30)\nwhile True: pass"));
    }

    private Process busy(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("busy.log").toFile())
                .start();
        Files.writeString(busyPidFile(), Long.toString(p.pid()));
        processes.add(p);
        return p;
    }

    /** Where the pid of the latest busy process is written (a runbook on "web-1" may stop it). */
    public Path busyPidFile() {
        return dir.resolve("busy.pid");
    }

    /** Stops the busy process: web-1's CPU share falls over the next scrapes. */
    public void stopBusy() throws InterruptedException {
        busy.destroy();
        busy.waitFor(10, TimeUnit.SECONDS);
    }

    /** Waits until {@code query} answers at least one series (Prometheus has scraped enough). */
    public JsonNode awaitQuery(String query) {
        return Await.until(
                "Prometheus to answer " + query + " (log: " + dir.resolve("prometheus.log") + ")",
                () -> {
                    if (prometheus != null && !prometheus.isAlive()) {
                        throw new IllegalStateException("Prometheus exited: " + log());
                    }
                    return query(query);
                },
                r -> r != null && r.path("data").path("result").size() > 0);
    }

    /** One instant query, or null when Prometheus does not answer (yet). */
    public JsonNode query(String query) {
        try {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create(
                                    url() + "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("prometheus.log"));
        } catch (IOException e) {
            return "(unreadable)";
        }
    }

    @Override
    public void close() {
        List<Process> all = new ArrayList<>(processes);
        if (prometheus != null) {
            all.add(prometheus);
        }
        if (busy != null) {
            all.add(busy);
        }
        for (Process p : all) {
            p.destroy();
        }
        for (Process p : all) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
