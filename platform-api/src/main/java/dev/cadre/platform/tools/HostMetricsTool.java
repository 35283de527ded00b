package dev.cadre.platform.tools;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import java.util.Locale;
import java.util.Set;
import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.hardware.GlobalMemory;
import oshi.software.os.OSFileStore;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code host_metrics}: CPU, memory, disk and load of the machine the platform runs on (OSHI), with
 * standard findings computed against configured thresholds, so inspectors on the scripted model
 * report real numbers and real severities.
 */
final class HostMetricsTool implements Tool {

    private static final Set<String> PSEUDO_FS =
            Set.of("tmpfs", "devtmpfs", "overlay", "squashfs", "proc", "sysfs", "cgroup", "cgroup2", "devpts", "nsfs");

    private final SystemInfo system;
    private final OpsToolsProperties.HostMetrics limits;
    private final JsonMapper json;

    HostMetricsTool(SystemInfo system, OpsToolsProperties.HostMetrics limits, JsonMapper json) {
        this.system = system;
        this.limits = limits;
        this.json = json;
    }

    @Override
    public String name() {
        return "host_metrics";
    }

    @Override
    public String description() {
        return "Measure CPU utilisation and load, memory and swap, and disk space of the platform's own host."
                + " Returns the numbers and standard findings (severity by the configured thresholds)."
                + " Read-only.";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{\"resource\":{\"type\":\"string\","
                + "\"enum\":[\"cpu\",\"memory\",\"disk\",\"all\"],\"description\":\"what to measure (default all)\"}},"
                + "\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) {
        String resource = args.path("resource").asString("all");
        String host = hostName();
        ObjectNode out = json.createObjectNode();
        out.put("host", host);
        ArrayNode findings = json.createArrayNode();
        if (resource.equals("cpu") || resource.equals("all")) {
            CentralProcessor cpu = system.getHardware().getProcessor();
            double load = cpu.getSystemCpuLoad(limits.sampleMillis());
            double[] avg = cpu.getSystemLoadAverage(3);
            int cores = cpu.getLogicalProcessorCount();
            ObjectNode c = out.putObject("cpu");
            c.put("utilisation", round(load));
            c.put("logicalCores", cores);
            c.put("load1", round(avg[0]));
            c.put("load5", round(avg[1]));
            c.put("load15", round(avg[2]));
            c.put("load1PerCore", round(avg[0] < 0 ? -1 : avg[0] / Math.max(1, cores)));
            finding(
                    findings,
                    "cpu",
                    host,
                    load,
                    limits.cpuWarn(),
                    limits.cpuCritical(),
                    String.format(
                            Locale.ROOT,
                            "CPU utilisation %.0f%% over %d ms (load1 %.2f on %d cores)",
                            load * 100,
                            limits.sampleMillis(),
                            avg[0],
                            cores),
                    "find the processes using the CPU before changing anything; restart or scale only with approval");
        }
        if (resource.equals("memory") || resource.equals("all")) {
            GlobalMemory mem = system.getHardware().getMemory();
            double used = 1.0 - (double) mem.getAvailable() / Math.max(1, mem.getTotal());
            ObjectNode m = out.putObject("memory");
            m.put("totalBytes", mem.getTotal());
            m.put("availableBytes", mem.getAvailable());
            m.put("usedRatio", round(used));
            m.put("swapTotalBytes", mem.getVirtualMemory().getSwapTotal());
            m.put("swapUsedBytes", mem.getVirtualMemory().getSwapUsed());
            finding(
                    findings,
                    "memory",
                    host,
                    used,
                    limits.memoryWarn(),
                    limits.memoryCritical(),
                    String.format(
                            Locale.ROOT,
                            "memory %.0f%% used (%d MiB available of %d MiB)",
                            used * 100,
                            mem.getAvailable() >> 20,
                            mem.getTotal() >> 20),
                    "look for leaking or oversized processes; add memory or move load");
        }
        if (resource.equals("disk") || resource.equals("all")) {
            ArrayNode disks = out.putArray("disks");
            for (OSFileStore fs : system.getOperatingSystem().getFileSystem().getFileStores(true)) {
                if (fs.getTotalSpace() <= 0 || PSEUDO_FS.contains(fs.getType())) {
                    continue;
                }
                double used = 1.0 - (double) fs.getUsableSpace() / fs.getTotalSpace();
                disks.addObject()
                        .put("mount", fs.getMount())
                        .put("type", fs.getType())
                        .put("totalBytes", fs.getTotalSpace())
                        .put("usableBytes", fs.getUsableSpace())
                        .put("usedRatio", round(used));
                finding(
                        findings,
                        "disk",
                        host + ":" + fs.getMount(),
                        used,
                        limits.diskWarn(),
                        limits.diskCritical(),
                        String.format(
                                Locale.ROOT,
                                "file system %s %.0f%% used (%d MiB free)",
                                fs.getMount(),
                                used * 100,
                                fs.getUsableSpace() >> 20),
                        "remove what is safe to remove (never business caches) or grow the volume");
            }
        }
        out.set("findings", findings);
        return out.toString();
    }

    private static void finding(
            ArrayNode findings,
            String category,
            String target,
            double value,
            double warn,
            double critical,
            String description,
            String suggestion) {
        String severity = value >= critical ? "critical" : value >= warn ? "high" : "info";
        findings.addObject()
                .put("id", category + "@" + target)
                .put("severity", severity)
                .put("category", category)
                .put("target", target)
                .put("description", description)
                .put("suggestion", severity.equals("info") ? "none needed" : suggestion)
                .put("confidence", 0.9);
    }

    private String hostName() {
        String name = system.getOperatingSystem().getNetworkParams().getHostName();
        return name == null || name.isBlank() ? "localhost" : name;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
