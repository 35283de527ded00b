package dev.cadre.platform.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * What the platform benchmark adds to memory's {@link dev.cadre.memory.bench.ClosedLoop}: CPU time
 * of a process, the load average, and formatting.
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

    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
