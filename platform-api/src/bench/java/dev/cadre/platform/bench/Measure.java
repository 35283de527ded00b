package dev.cadre.platform.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * What the platform benchmark adds to memory's {@link dev.cadre.memory.bench.ClosedLoop}: CPU time
 * and RSS of a process, one scrape of the platform's metrics, the load average, and formatting.
 */
final class Measure {

    private Measure() {}

    /** User + system CPU time of a process in clock ticks (10 ms on Linux), from /proc; -1 elsewhere. */
    static long cpuTicks(long pid) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
            // Fields after the command name in parentheses: state is field 3, utime 14, stime 15.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Resident set size of a process in MB, from /proc/PID/status (VmRSS); 0 where there is none. */
    static double rssMb(long pid) {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // Not Linux, or the process has gone: no figure rather than a failed benchmark.
        }
        return 0;
    }

    /**
     * The platform's metrics that the benchmarks follow, from one scrape of {@code
     * /actuator/prometheus}: heap used in MB (all heap pools), the live data after the last full
     * collection in MB ({@code jvm_gc_live_data_size_bytes}), live platform threads, the run
     * queue's gauges (NaN for a metric the scrape does not have), and {@code cadre_runs_total}: runs
     * that ended, by "agent status".
     */
    record Scrape(
            double heapMb,
            double liveDataMb,
            double threads,
            double queued,
            double executing,
            double oldestSubmittedAge,
            java.util.Map<String, Double> runsEnded) {

        private static final java.util.regex.Pattern RUNS_TOTAL = java.util.regex.Pattern.compile(
                "^cadre_runs_total\\{.*?agent=\"([^\"]*)\".*?status=\"([^\"]*)\".*} (\\S+)$");

        /** Runs of {@code agent} that ended (any status). */
        double ended(String agent) {
            return runsEnded.entrySet().stream()
                    .filter(e -> e.getKey().startsWith(agent + " "))
                    .mapToDouble(java.util.Map.Entry::getValue)
                    .sum();
        }

        static Scrape of(Http admin) throws java.io.IOException, InterruptedException {
            double heap = 0;
            double live = Double.NaN;
            double threads = Double.NaN;
            double queued = Double.NaN;
            double executing = Double.NaN;
            double age = Double.NaN;
            java.util.Map<String, Double> ended = new java.util.TreeMap<>();
            for (String line : admin.get("/actuator/prometheus").body().split("\n")) {
                if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                    heap += value(line) / (1024 * 1024);
                } else if (line.startsWith("jvm_gc_live_data_size_bytes ")) {
                    live = value(line) / (1024 * 1024);
                } else if (line.startsWith("jvm_threads_live_threads ")) {
                    threads = value(line);
                } else if (line.startsWith("cadre_runs_queued ")) {
                    queued = value(line);
                } else if (line.startsWith("cadre_runs_executing ")) {
                    executing = value(line);
                } else if (line.startsWith("cadre_runs_oldest_submitted_age_seconds ")) {
                    age = value(line);
                } else if (line.startsWith("cadre_runs_total{")) {
                    java.util.regex.Matcher m = RUNS_TOTAL.matcher(line);
                    if (m.matches()) {
                        ended.merge(m.group(1) + " " + m.group(2), Double.parseDouble(m.group(3)), Double::sum);
                    }
                }
            }
            return new Scrape(heap, live, threads, queued, executing, age, ended);
        }

        private static double value(String line) {
            return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
    }

    /** The p-th percentile (0–1, nearest rank) of ascending microseconds, in ms; NaN when empty. */
    static double percentileMs(long[] sortedMicros, double p) {
        if (sortedMicros.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.min(sortedMicros.length - 1, Math.ceil(p * sortedMicros.length) - 1);
        return sortedMicros[Math.max(0, i)] / 1e3;
    }

    /** 0 for a metric the scrape did not have (NaN). */
    static double orZero(double value) {
        return Double.isNaN(value) ? 0 : value;
    }

    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
