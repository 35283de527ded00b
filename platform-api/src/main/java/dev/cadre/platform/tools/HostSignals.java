package dev.cadre.platform.tools;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The PromQL the host team asks about one host, built for that host's {@code instance} label, and the
 * standard findings read from the answers. Signals follow the usual node_exporter practice: CPU busy
 * share by mode and load per core, memory available with swap traffic and OOM kills, file system space
 * and inodes with the fill rate ({@code predict_linear}) and IO busy time, network errors and drops.
 */
final class HostSignals {

    /** File systems that are not disks: never reported as filling up. */
    static final String REAL_FS = "fstype!~\"tmpfs|devtmpfs|overlay|squashfs|ramfs|nsfs|autofs|fuse\\\\..*\","
            + "mountpoint!~\"/(run|dev|proc|sys)(/.*)?\"";

    /** The "during" window [{@code from}, {@code to}] and how far before it the baseline reaches. */
    record Window(Instant from, Instant to, Duration baseline) {
        String range() {
            return Math.max(60, Duration.between(from, to).toSeconds()) + "s";
        }

        String baselineRange() {
            return baseline.toSeconds() + "s";
        }
    }

    private final PrometheusClient prometheus;
    private final OpsToolsProperties.HostMetrics limits;
    private final JsonMapper json;

    HostSignals(PrometheusClient prometheus, OpsToolsProperties.HostMetrics limits, JsonMapper json) {
        this.prometheus = prometheus;
        this.limits = limits;
        this.json = json;
    }

    /** A session of queries about one host: counts them and keeps the first failure. */
    private final class Session {
        final HostTarget target;
        final Window window;
        int queries;
        PrometheusClient.Answer.@Nullable Failed failed;

        Session(HostTarget target, Window window) {
            this.target = target;
            this.window = window;
        }

        @Nullable
        List<PrometheusClient.Sample> ask(String query, Instant at) {
            queries++;
            return switch (prometheus.query(query, at)) {
                case PrometheusClient.Answer.Vector v -> v.samples();
                case PrometheusClient.Answer.Failed f -> {
                    if (failed == null) {
                        failed = f;
                    }
                    yield null;
                }
            };
        }
    }

    /**
     * Inspects {@code resource} ({@code cpu}, {@code memory}, {@code disk}, {@code network} or {@code all})
     * of the host: its numbers, findings and the queries asked, or a finding saying why it cannot be seen.
     */
    ObjectNode inspect(HostTarget target, String resource, Window window) {
        ObjectNode out = json.createObjectNode();
        out.put("host", target.name());
        out.put("resource", resource);
        out.putObject("window")
                .put("from", window.from().truncatedTo(ChronoUnit.SECONDS).toString())
                .put("to", window.to().truncatedTo(ChronoUnit.SECONDS).toString())
                .put("baseline", "the " + HostInspectTool.human(window.baseline()) + " before");
        ArrayNode findings = json.createArrayNode();
        Session s = new Session(target, window);
        String instance = resolve(s, out, findings);
        if (instance != null) {
            out.put("instance", instance);
            String sel = "instance=\"" + instance + "\"";
            boolean all = resource.equals("all");
            ObjectNode values = out.putObject("signals");
            if (all || resource.equals("cpu")) {
                cpu(s, sel, instance, values, findings);
            }
            if (all || resource.equals("memory")) {
                memory(s, sel, instance, values, findings);
            }
            if (all || resource.equals("disk")) {
                disk(s, sel, instance, values, findings);
            }
            if (all || resource.equals("network")) {
                network(s, sel, instance, values, findings);
            }
            if (s.failed != null) {
                unavailable(s, out, findings);
            } else {
                out.put("status", "ok");
            }
        }
        out.put("queries", s.queries);
        out.set("findings", findings);
        return out;
    }

    /** The instance label to query, or null (with the finding saying why the host cannot be seen). */
    private @Nullable String resolve(Session s, ObjectNode out, ArrayNode findings) {
        if (prometheus.url() == null) {
            s.failed = new PrometheusClient.Answer.Failed(
                    "",
                    dev.cadre.agent.FailureCategory.EXECUTION_ERROR,
                    "not_configured",
                    "no Prometheus configured: cadre.tools.prometheus.url is not set");
            unavailable(s, out, findings);
            return null;
        }
        String name = s.target.name();
        String given = s.target.instance();
        String sel = given != null
                ? "instance=\"" + given + "\""
                : "instance=~\"" + name.replace(".", "\\\\.") + "(:[0-9]+)?\"";
        List<PrometheusClient.Sample> up = s.ask("up{" + sel + "}", s.window.to());
        if (up == null) {
            unavailable(s, out, findings);
            return null;
        }
        if (up.isEmpty() && given == null) {
            // Alerts from node_exporter's own rules may name the host by its uname nodename instead.
            List<PrometheusClient.Sample> uname = s.ask("node_uname_info{nodename=\"" + name + "\"}", s.window.to());
            if (uname != null && !uname.isEmpty()) {
                String inst = uname.get(0).label("instance");
                up = s.ask("up{instance=\"" + inst + "\"}", s.window.to());
                up = up == null ? List.of() : up;
            }
        }
        if (up.isEmpty()) {
            String lastQuery = "max(max_over_time(timestamp(up{" + sel + "})[1d:1m]))";
            List<PrometheusClient.Sample> last = s.ask(lastQuery, s.window.to());
            String seen =
                    last != null && !last.isEmpty() && !Double.isNaN(last.get(0).value())
                            ? "last scraped at "
                                    + Instant.ofEpochSecond((long) last.get(0).value())
                            : "no scrape of it in the last 24 hours";
            String label = given != null ? given : name;
            out.put("status", "no-data");
            ObjectNode f = finding(
                    findings,
                    "monitoring",
                    name,
                    "high",
                    "no data for instance " + label + " in Prometheus at " + prometheus.url() + " (" + seen
                            + "): nothing about " + name + " was measured and no other host was inspected instead",
                    "check that Prometheus scrapes " + label + " (its node_exporter target and relabelling)",
                    1.0);
            ObjectNode ev = f.putObject("evidence");
            ev.put("query", "up{" + sel + "}").put("series", 0).put("lastScrapeQuery", lastQuery);
            ev.put("lastScrape", seen);
            return null;
        }
        String instance = up.get(0).label("instance");
        if (up.get(0).value() < 1) {
            ObjectNode f = finding(
                    findings,
                    "monitoring",
                    name,
                    "high",
                    "Prometheus cannot scrape " + instance + " (up=0 at "
                            + s.window.to().truncatedTo(ChronoUnit.SECONDS)
                            + "): the host or its node_exporter is down or unreachable; its numbers below may be stale",
                    "check the host is up and node_exporter answers on " + instance,
                    0.9);
            f.putObject("evidence")
                    .put("query", "up{instance=\"" + instance + "\"}")
                    .put("value", 0);
        }
        return instance;
    }

    private void unavailable(Session s, ObjectNode out, ArrayNode findings) {
        PrometheusClient.Answer.Failed f = s.failed;
        out.put("status", "unavailable");
        out.putObject("error")
                .put("category", f.category().name())
                .put("code", f.code())
                .put("message", f.message());
        String name = s.target.name();
        ObjectNode finding = finding(
                findings,
                "monitoring",
                name,
                "high",
                "cannot see " + name + ": " + f.message() + " (" + f.category().name() + "); nothing about " + name
                        + " was measured and no other host was inspected instead",
                f.code().equals("not_configured")
                        ? "set cadre.tools.prometheus.url to the Prometheus that scrapes " + name
                        : "check that Prometheus is up and reachable from Cadre",
                1.0);
        finding.put("failure", f.category().name());
        if (!f.query().isEmpty()) {
            finding.putObject("evidence").put("query", f.query());
        }
    }

    // ---- CPU ----

    private void cpu(Session s, String sel, String instance, ObjectNode values, ArrayNode findings) {
        String byMode = "sum by (mode) (rate(node_cpu_seconds_total{" + sel + "}[%s]))";
        String during = byMode.formatted(s.window.range());
        String before = byMode.formatted(s.window.baselineRange());
        List<PrometheusClient.Sample> now = s.ask(during, s.window.to());
        if (now == null) {
            return;
        }
        if (now.isEmpty()) {
            noSeries(findings, s.target.name(), instance, "cpu", "node_cpu_seconds_total", during);
            return;
        }
        Map<String, Double> shares = shares(now);
        List<PrometheusClient.Sample> then = s.ask(before, s.window.from());
        Map<String, Double> baseline = then == null || then.isEmpty() ? null : shares(then);
        String loadQuery = "node_load1{" + sel + "} / on(instance) count by (instance) (node_cpu_seconds_total{" + sel
                + ",mode=\"idle\"})";
        List<PrometheusClient.Sample> load = s.ask(loadQuery, s.window.to());
        double busy = 1 - shares.getOrDefault("idle", 0.0);
        double iowait = shares.getOrDefault("iowait", 0.0);
        double steal = shares.getOrDefault("steal", 0.0);
        Double perCore = load == null || load.isEmpty() ? null : load.get(0).value();
        ObjectNode c = values.putObject("cpu");
        c.put("busy", round(busy));
        ObjectNode modes = c.putObject("byMode");
        shares.forEach((mode, v) -> modes.put(mode, round(v)));
        if (perCore != null) {
            c.put("load1PerCore", round(perCore));
        }
        Double busyBefore = baseline == null ? null : 1 - baseline.getOrDefault("idle", 0.0);
        if (busyBefore != null) {
            c.put("busyBefore", round(busyBefore));
        }
        String severity = busy >= limits.cpuCritical() ? "critical" : busy >= limits.cpuWarn() ? "high" : "info";
        if (!severity.equals("critical") && (iowait >= 0.2 || steal >= 0.1)) {
            severity = "high";
        }
        String top = shares.entrySet().stream()
                // iowait and steal have their own place in the sentence; a mode under 1% is no "top" user.
                .filter(e -> !e.getKey().matches("idle|iowait|steal") && e.getValue() >= 0.01)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .limit(3)
                .map(e -> e.getKey() + " " + pct(e.getValue()))
                .reduce((a, b) -> a + ", " + b)
                .orElse("");
        String description = String.format(
                Locale.ROOT,
                "CPU %s busy on %s (%siowait %s, steal %s)%s over %s; %s",
                pct(busy),
                s.target.name(),
                top.isEmpty() ? "" : top + "; ",
                pct(iowait),
                pct(steal),
                perCore == null ? "" : String.format(Locale.ROOT, ", load1 %.2f per core", perCore),
                span(s.window),
                busyBefore == null
                        ? "no data in the " + HostInspectTool.human(s.window.baseline()) + " before"
                        : pct(busyBefore) + " busy in the " + HostInspectTool.human(s.window.baseline()) + " before");
        ObjectNode f = finding(
                findings,
                "cpu",
                s.target.name(),
                severity,
                description,
                iowait >= 0.2
                        ? "the CPU waits on disk: look at the disk's IO and the processes reading or writing"
                        : steal >= 0.1
                                ? "the hypervisor takes CPU away (steal): move the VM or ask the provider"
                                : "find the processes using the CPU on " + s.target.name()
                                        + " before changing anything; restart or scale only with approval",
                0.9);
        ObjectNode ev = f.putObject("evidence");
        ev.put("instance", instance).put("query", during).put("busy", round(busy));
        ev.put("baselineQuery", before);
        if (busyBefore != null) {
            ev.put("busyBefore", round(busyBefore));
        }
        ev.put("loadQuery", loadQuery);
        if (perCore != null) {
            ev.put("load1PerCore", round(perCore));
        }
    }

    private static Map<String, Double> shares(List<PrometheusClient.Sample> byMode) {
        double total = 0;
        for (PrometheusClient.Sample m : byMode) {
            total += Double.isNaN(m.value()) ? 0 : m.value();
        }
        Map<String, Double> shares = new LinkedHashMap<>();
        for (PrometheusClient.Sample m : byMode) {
            shares.put(m.label("mode"), total <= 0 ? 0.0 : m.value() / total);
        }
        return shares;
    }

    // ---- memory ----

    private void memory(Session s, String sel, String instance, ObjectNode values, ArrayNode findings) {
        String q = "{__name__=~\"node_memory_(MemAvailable|MemTotal|SwapTotal|SwapFree)_bytes\"," + sel + "}";
        List<PrometheusClient.Sample> now = s.ask(q, s.window.to());
        if (now == null) {
            return;
        }
        Map<String, Double> m = new LinkedHashMap<>();
        now.forEach(x -> m.put(x.label("__name__").replace("node_memory_", "").replace("_bytes", ""), x.value()));
        if (!m.containsKey("MemAvailable") || !m.containsKey("MemTotal")) {
            noSeries(findings, s.target.name(), instance, "memory", "node_memory_MemAvailable_bytes", q);
            return;
        }
        String swapQuery = "sum(rate(node_vmstat_pswpin{" + sel + "}[" + s.window.range()
                + "])) + sum(rate(node_vmstat_pswpout{" + sel + "}[" + s.window.range() + "]))";
        String oomQuery = "sum(increase(node_vmstat_oom_kill{" + sel + "}[" + s.window.range() + "]))";
        String beforeQuery =
                "avg_over_time(node_memory_MemAvailable_bytes{" + sel + "}[" + s.window.baselineRange() + "])";
        List<PrometheusClient.Sample> swap = s.ask(swapQuery, s.window.to());
        List<PrometheusClient.Sample> oom = s.ask(oomQuery, s.window.to());
        List<PrometheusClient.Sample> before = s.ask(beforeQuery, s.window.from());
        double total = m.get("MemTotal");
        double available = m.get("MemAvailable");
        double used = total <= 0 ? 0 : 1 - available / total;
        Double swapPages = swap == null || swap.isEmpty() ? null : swap.get(0).value();
        Double ooms = oom == null || oom.isEmpty() ? null : oom.get(0).value();
        Double availableBefore =
                before == null || before.isEmpty() ? null : before.get(0).value();
        ObjectNode o = values.putObject("memory");
        o.put("usedRatio", round(used)).put("availableBytes", (long) available).put("totalBytes", (long) total);
        if (swapPages != null) {
            o.put("swapPagesPerSecond", round(swapPages));
        }
        if (ooms != null) {
            o.put("oomKills", Math.round(ooms));
        }
        String severity = used >= limits.memoryCritical() ? "critical" : used >= limits.memoryWarn() ? "high" : "info";
        if (severity.equals("info") && ((ooms != null && ooms >= 1) || (swapPages != null && swapPages >= 100))) {
            severity = "high";
        }
        ObjectNode f = finding(
                findings,
                "memory",
                s.target.name(),
                severity,
                String.format(
                        Locale.ROOT,
                        "memory %s used on %s (%d MiB available of %d MiB)%s%s over %s; %s",
                        pct(used),
                        s.target.name(),
                        (long) available >> 20,
                        (long) total >> 20,
                        swapPages == null ? "" : String.format(Locale.ROOT, ", swapping %.0f pages/s", swapPages),
                        ooms == null ? "" : ", " + Math.round(ooms) + " OOM kills",
                        span(s.window),
                        availableBefore == null
                                ? "no data in the " + HostInspectTool.human(s.window.baseline()) + " before"
                                : ((long) (double) availableBefore >> 20) + " MiB available on average in the "
                                        + HostInspectTool.human(s.window.baseline()) + " before"),
                "look for leaking or oversized processes on " + s.target.name() + "; add memory or move load",
                0.9);
        ObjectNode ev = f.putObject("evidence");
        ev.put("instance", instance).put("query", q).put("usedRatio", round(used));
        ev.put("swapQuery", swapQuery).put("oomQuery", oomQuery).put("baselineQuery", beforeQuery);
        if (availableBefore != null) {
            ev.put("availableBytesBefore", (long) (double) availableBefore);
        }
    }

    // ---- disk ----

    private void disk(Session s, String sel, String instance, ObjectNode values, ArrayNode findings) {
        String q =
                "{__name__=~\"node_filesystem_(avail_bytes|size_bytes|files_free|files)\"," + sel + "," + REAL_FS + "}";
        List<PrometheusClient.Sample> now = s.ask(q, s.window.to());
        if (now == null) {
            return;
        }
        if (now.isEmpty()) {
            noSeries(findings, s.target.name(), instance, "disk", "node_filesystem_avail_bytes", q);
            return;
        }
        String predictQuery = "predict_linear(node_filesystem_avail_bytes{" + sel + "," + REAL_FS + "}["
                + s.window.range() + "], 4 * 3600)";
        String ioQuery = "rate(node_disk_io_time_seconds_total{" + sel + "}[" + s.window.range() + "])";
        List<PrometheusClient.Sample> predicted = s.ask(predictQuery, s.window.to());
        List<PrometheusClient.Sample> io = s.ask(ioQuery, s.window.to());
        Map<String, Map<String, Double>> byMount = new LinkedHashMap<>();
        for (PrometheusClient.Sample x : now) {
            byMount.computeIfAbsent(x.label("mountpoint"), k -> new LinkedHashMap<>())
                    .put(x.label("__name__").replace("node_filesystem_", ""), x.value());
        }
        Map<String, Double> predictedAvail = new LinkedHashMap<>();
        if (predicted != null) {
            predicted.forEach(x -> predictedAvail.put(x.label("mountpoint"), x.value()));
        }
        ArrayNode list = values.putArray("filesystems");
        for (Map.Entry<String, Map<String, Double>> e : byMount.entrySet()) {
            Map<String, Double> v = e.getValue();
            double size = v.getOrDefault("size_bytes", 0.0);
            double avail = v.getOrDefault("avail_bytes", 0.0);
            if (size <= 0) {
                continue;
            }
            double used = 1 - avail / size;
            double files = v.getOrDefault("files", 0.0);
            double inodesUsed = files <= 0 ? 0 : 1 - v.getOrDefault("files_free", 0.0) / files;
            Double pred = predictedAvail.get(e.getKey());
            // predict_linear's slope over the window: bytes a second the free space shrinks by.
            Double shrinkPerSecond = pred == null ? null : (avail - pred) / (4 * 3600.0);
            Double hoursToFull =
                    shrinkPerSecond == null || shrinkPerSecond <= 0 ? null : avail / shrinkPerSecond / 3600;
            ObjectNode fs = list.addObject()
                    .put("mount", e.getKey())
                    .put("usedRatio", round(used))
                    .put("availBytes", (long) avail)
                    .put("inodesUsedRatio", round(inodesUsed));
            if (hoursToFull != null) {
                fs.put("hoursToFull", round(hoursToFull));
            }
            double worst = Math.max(used, inodesUsed);
            String severity =
                    worst >= limits.diskCritical() ? "critical" : worst >= limits.diskWarn() ? "high" : "info";
            if (hoursToFull != null && hoursToFull < 4) {
                severity = "critical";
            } else if (hoursToFull != null && hoursToFull < 24 && severity.equals("info")) {
                severity = "high";
            }
            ObjectNode f = finding(
                    findings,
                    "disk",
                    s.target.name() + ":" + e.getKey(),
                    severity,
                    String.format(
                            Locale.ROOT,
                            "file system %s on %s %s used (%d MiB free), inodes %s used, %s",
                            e.getKey(),
                            s.target.name(),
                            pct(used),
                            (long) avail >> 20,
                            pct(inodesUsed),
                            hoursToFull == null
                                    ? "not filling up over " + span(s.window)
                                    : String.format(
                                            Locale.ROOT,
                                            "full in %.1f hours at the rate of %s",
                                            hoursToFull,
                                            span(s.window))),
                    "remove what is safe to remove on " + s.target.name()
                            + " (never business caches) or grow the volume",
                    0.9);
            ObjectNode ev = f.putObject("evidence");
            ev.put("instance", instance).put("query", q).put("usedRatio", round(used));
            ev.put("inodesUsedRatio", round(inodesUsed)).put("predictQuery", predictQuery);
            if (hoursToFull != null) {
                ev.put("hoursToFull", round(hoursToFull));
            }
        }
        if (io != null) {
            ArrayNode devices = values.putArray("ioBusy");
            for (PrometheusClient.Sample d : io) {
                devices.addObject().put("device", d.label("device")).put("busy", round(d.value()));
                if (d.value() >= 0.9) {
                    ObjectNode f = finding(
                            findings,
                            "disk",
                            s.target.name() + ":" + d.label("device"),
                            "high",
                            "disk " + d.label("device") + " on " + s.target.name() + " busy " + pct(d.value())
                                    + " of the time over " + span(s.window) + " (IO saturated)",
                            "find the processes doing IO on " + s.target.name() + "; move or throttle them",
                            0.8);
                    f.putObject("evidence")
                            .put("instance", instance)
                            .put("query", ioQuery)
                            .put("busy", round(d.value()));
                }
            }
        }
    }

    // ---- network ----

    private void network(Session s, String sel, String instance, ObjectNode values, ArrayNode findings) {
        String q = "sum by (device) (rate({__name__=~\"node_network_(receive|transmit)_(errs|drop)_total\"," + sel
                + ",device!=\"lo\"}[" + s.window.range() + "]))";
        List<PrometheusClient.Sample> now = s.ask(q, s.window.to());
        if (now == null) {
            return;
        }
        ArrayNode list = values.putArray("network");
        for (PrometheusClient.Sample d : now) {
            list.addObject().put("device", d.label("device")).put("errorsPerSecond", round(d.value()));
            if (d.value() >= 1) {
                ObjectNode f = finding(
                        findings,
                        "network",
                        s.target.name() + ":" + d.label("device"),
                        d.value() >= 10 ? "high" : "medium",
                        String.format(
                                Locale.ROOT,
                                "network device %s on %s: %.1f errors and drops a second over %s",
                                d.label("device"),
                                s.target.name(),
                                d.value(),
                                span(s.window)),
                        "check the link, the driver and the receive buffers of " + d.label("device"),
                        0.8);
                f.putObject("evidence")
                        .put("instance", instance)
                        .put("query", q)
                        .put("value", round(d.value()));
            }
        }
    }

    // ---- helpers ----

    private static void noSeries(
            ArrayNode findings, String name, String instance, String resource, String metric, String query) {
        ObjectNode f = finding(
                findings,
                "monitoring",
                name,
                "low",
                "no " + resource + " data for instance " + instance + " (" + metric
                        + " has no series: the node_exporter collector is off or its series are dropped); "
                        + resource + " of " + name + " not assessed",
                "enable node_exporter's " + resource + " collector on " + name + " if it should be watched",
                1.0);
        f.putObject("evidence").put("instance", instance).put("query", query).put("series", 0);
    }

    private static ObjectNode finding(
            ArrayNode findings,
            String category,
            String target,
            String severity,
            String description,
            String suggestion,
            double confidence) {
        return findings.addObject()
                .put("id", category + "@" + target)
                .put("severity", severity)
                .put("category", category)
                .put("target", target)
                .put("description", description)
                .put("suggestion", severity.equals("info") ? "none needed" : suggestion)
                .put("confidence", confidence);
    }

    private static String span(Window w) {
        return "the " + Math.max(1, Duration.between(w.from(), w.to()).toMinutes()) + " minutes to "
                + w.to().truncatedTo(ChronoUnit.SECONDS);
    }

    private static String pct(double ratio) {
        return String.format(Locale.ROOT, "%.0f%%", ratio * 100);
    }

    static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** The numbers of the signals a verification compares: name → value, from an inspect answer. */
    static Map<String, Double> headline(ObjectNode inspected) {
        Map<String, Double> out = new LinkedHashMap<>();
        var sig = inspected.path("signals");
        if (sig.path("cpu").has("busy")) {
            out.put("cpu.busy", sig.path("cpu").path("busy").asDouble());
        }
        if (sig.path("cpu").has("load1PerCore")) {
            out.put("cpu.load1PerCore", sig.path("cpu").path("load1PerCore").asDouble());
        }
        if (sig.path("memory").has("usedRatio")) {
            out.put("memory.usedRatio", sig.path("memory").path("usedRatio").asDouble());
        }
        for (var fs : sig.path("filesystems")) {
            out.put(
                    "disk." + fs.path("mount").asString() + ".usedRatio",
                    fs.path("usedRatio").asDouble());
        }
        return out;
    }

    static List<String> categories() {
        return new ArrayList<>(List.of("cpu", "memory", "disk", "network"));
    }
}
