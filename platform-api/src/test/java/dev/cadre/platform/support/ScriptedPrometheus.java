package dev.cadre.platform.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A Prometheus HTTP API ({@code /api/v1/query}) on loopback whose node_exporter numbers a test sets,
 * host by host, for the queries the host team builds (host_target, host_inspect, host_verify). The
 * shipped replay suite is recorded against it so a recording says the same every time: the real
 * Prometheus of {@link RealHosts} reads the build machine, whose load is never the same twice.
 *
 * <p>A runbook that "repairs" a host touches {@link #repairMarker()}: from that moment (the file's
 * time) the host's CPU, memory and disk read as its {@code after} numbers, as they would once a real
 * repair took effect. A query the server does not know is answered with Prometheus's own
 * {@code bad_data} error naming it, so a new query of the team shows up instead of passing silently.
 */
public final class ScriptedPrometheus implements AutoCloseable {

    private static final long GIB = 1L << 30;
    private static final Pattern INSTANCE = Pattern.compile("instance=\"([^\"]+)\"");
    private static final Pattern INSTANCE_LIKE = Pattern.compile("instance=~\"([^\"(]+)\\(");
    private static final Pattern RANGE = Pattern.compile("\\[(\\d+)s]");

    /**
     * One host as its node_exporter shows it: CPU busy share, memory used, root file system used (all
     * 0..1), the hours until the root file system is full at the current rate (null: not filling), and the
     * numbers after a repair (null: the repair changes nothing). Before the window (the baseline) every
     * host was quiet.
     */
    public record Host(
            String instance,
            double cpu,
            double memory,
            double disk,
            @Nullable Double hoursToFull,
            @Nullable Host after) {

        /** A quiet host: 12% CPU, 35% memory, 40% of its disk. */
        public static Host quiet(String instance) {
            return new Host(instance, 0.12, 0.35, 0.40, null, null);
        }

        /** This host, reading as {@code after} once a runbook repaired it. */
        public Host repairedTo(double cpu, double memory, double disk) {
            return new Host(
                    instance,
                    this.cpu,
                    this.memory,
                    this.disk,
                    hoursToFull,
                    new Host(instance, cpu, memory, disk, null, null));
        }
    }

    private final HttpServer server;
    private final Path repairMarker;
    private final Map<String, Host> hosts = new ConcurrentHashMap<>();
    private final List<String> queries = new CopyOnWriteArrayList<>();

    private ScriptedPrometheus(HttpServer server, Path repairMarker) {
        this.server = server;
        this.repairMarker = repairMarker;
    }

    /** Starts the server on a free loopback port, with no host. */
    public static ScriptedPrometheus start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            Path marker = Files.createTempDirectory("cadre-scripted-prometheus").resolve("repaired");
            ScriptedPrometheus p = new ScriptedPrometheus(server, marker);
            server.createContext("/api/v1/query", p::handle);
            server.start();
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Its base URL. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The file whose existence (and time) says the hosts were repaired; a test runbook touches it. */
    public Path repairMarker() {
        return repairMarker;
    }

    /** Replaces every host with these, and forgets any repair. */
    public void set(Host... state) {
        hosts.clear();
        for (Host h : state) {
            hosts.put(h.instance(), h);
        }
        try {
            Files.deleteIfExists(repairMarker);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every query asked so far, in order. */
    public List<String> queries() {
        return List.copyOf(queries);
    }

    private void handle(HttpExchange exchange) throws IOException {
        Map<String, String> params = new LinkedHashMap<>();
        form(exchange.getRequestURI().getRawQuery(), params);
        form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8), params);
        String query = params.getOrDefault("query", "");
        double time = Double.parseDouble(params.getOrDefault("time", "0"));
        queries.add(query);
        String body;
        int status;
        try {
            body = success(answer(query, time));
            status = 200;
        } catch (IllegalArgumentException e) {
            body = "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":" + quote(e.getMessage()) + "}";
            status = 400;
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private static void form(@Nullable String raw, Map<String, String> into) {
        if (raw == null || raw.isEmpty()) {
            return;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                into.put(
                        URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
    }

    /** A series: its labels and value. */
    private record Series(Map<String, String> labels, double value) {}

    private List<Series> answer(String q, double time) {
        if (q.equals("count by (instance) (up)")) {
            return hosts.keySet().stream()
                    .sorted()
                    .map(i -> new Series(Map.of("instance", i), 1))
                    .toList();
        }
        if (q.startsWith("node_uname_info{") || q.startsWith("max(max_over_time(timestamp(up{")) {
            return List.of();
        }
        Host host = host(q);
        if (q.startsWith("up{")) {
            return host == null ? List.of() : List.of(series(host, "up", 1));
        }
        if (host == null) {
            return List.of();
        }
        Host now = repaired(host, time);
        boolean baseline = range(q) >= 3600;
        // host_verify: one number per signal.
        if (q.startsWith("1 - sum(rate(node_cpu_seconds_total{")) {
            return List.of(new Series(Map.of(), now.cpu()));
        }
        if (q.startsWith("1 - sum(avg_over_time(node_memory_MemAvailable_bytes{")) {
            return List.of(new Series(Map.of(), now.memory()));
        }
        if (q.startsWith("max(1 - avg_over_time(node_filesystem_avail_bytes{")) {
            return List.of(new Series(Map.of(), now.disk()));
        }
        // host_inspect.
        if (q.startsWith("sum by (mode) (rate(node_cpu_seconds_total{")) {
            double busy = baseline ? Host.quiet(host.instance()).cpu() : now.cpu();
            int cores = 4;
            return List.of(
                    mode("user", busy * 0.8 * cores),
                    mode("system", busy * 0.2 * cores),
                    mode("iowait", 0),
                    mode("steal", 0),
                    mode("idle", (1 - busy) * cores));
        }
        if (q.startsWith("node_load1{")) {
            return List.of(series(host, "node_load1", Math.round(now.cpu() * 1.1 * 1000) / 1000.0));
        }
        if (q.startsWith("{__name__=~\"node_memory_(")) {
            double total = 16 * GIB;
            return List.of(
                    series(host, "node_memory_MemTotal_bytes", total),
                    series(host, "node_memory_MemAvailable_bytes", Math.round(total * (1 - now.memory()))),
                    series(host, "node_memory_SwapTotal_bytes", 2 * GIB),
                    series(host, "node_memory_SwapFree_bytes", 2 * GIB));
        }
        if (q.startsWith("sum(rate(node_vmstat_pswpin{") || q.startsWith("sum(increase(node_vmstat_oom_kill{")) {
            return List.of(new Series(Map.of(), 0));
        }
        if (q.startsWith("avg_over_time(node_memory_MemAvailable_bytes{")) {
            return List.of(series(host, "node_memory_MemAvailable_bytes", Math.round(16 * GIB * (1 - 0.35))));
        }
        if (q.startsWith("{__name__=~\"node_filesystem_(")) {
            double size = 100 * GIB;
            return List.of(
                    fs(host, "node_filesystem_size_bytes", size),
                    fs(host, "node_filesystem_avail_bytes", avail(now)),
                    fs(host, "node_filesystem_files", 6_553_600),
                    fs(host, "node_filesystem_files_free", 6_000_000));
        }
        if (q.startsWith("predict_linear(node_filesystem_avail_bytes{")) {
            double avail = avail(now);
            Double hours = now.hoursToFull();
            // predict_linear 4 hours ahead: the free space minus 4 hours of shrinking at the current rate.
            double predicted = hours == null ? avail : avail - avail * 4 / hours;
            Map<String, String> labels = new LinkedHashMap<>(fsLabels(host));
            return List.of(new Series(labels, Math.round(predicted)));
        }
        if (q.startsWith("rate(node_disk_io_time_seconds_total{")) {
            return List.of(new Series(Map.of("instance", host.instance(), "device", "sda"), 0.04));
        }
        throw new IllegalArgumentException("the scripted Prometheus does not know the query " + q);
    }

    private Host repaired(Host host, double time) {
        if (host.after() == null || !Files.exists(repairMarker)) {
            return host;
        }
        try {
            FileTime at = Files.getLastModifiedTime(repairMarker);
            return time * 1000 >= at.toMillis() ? host.after() : host;
        } catch (IOException e) {
            return host;
        }
    }

    private @Nullable Host host(String q) {
        Matcher m = INSTANCE.matcher(q);
        if (m.find()) {
            return hosts.get(m.group(1));
        }
        Matcher like = INSTANCE_LIKE.matcher(q);
        if (like.find()) {
            String name = like.group(1).replace("\\.", ".").replace("\\", "");
            return hosts.values().stream()
                    .filter(h -> h.instance().equals(name) || h.instance().startsWith(name + ":"))
                    .findFirst()
                    .orElse(null);
        }
        return null;
    }

    private static long range(String q) {
        Matcher m = RANGE.matcher(q);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    private static double avail(Host h) {
        return Math.round(100 * GIB * (1 - h.disk()));
    }

    private static Series mode(String mode, double rate) {
        return new Series(Map.of("mode", mode), Math.round(rate * 1000) / 1000.0);
    }

    private static Series series(Host h, String name, double value) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("__name__", name);
        labels.put("instance", h.instance());
        labels.put("job", "node");
        return new Series(labels, value);
    }

    private static Map<String, String> fsLabels(Host h) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("device", "/dev/sda1");
        labels.put("fstype", "ext4");
        labels.put("instance", h.instance());
        labels.put("job", "node");
        labels.put("mountpoint", "/");
        return labels;
    }

    private static Series fs(Host h, String name, double value) {
        Map<String, String> labels = new LinkedHashMap<>(fsLabels(h));
        labels.put("__name__", name);
        return new Series(labels, value);
    }

    private static String success(List<Series> result) {
        List<String> items = new ArrayList<>();
        for (Series s : result) {
            StringBuilder metric = new StringBuilder("{");
            s.labels()
                    .forEach((k, v) -> metric.append(metric.length() > 1 ? "," : "")
                            .append(quote(k))
                            .append(':')
                            .append(quote(v)));
            metric.append('}');
            items.add("{\"metric\":" + metric + ",\"value\":[1733392800," + quote(number(s.value())) + "]}");
        }
        return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" + String.join(",", items)
                + "]}}";
    }

    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
