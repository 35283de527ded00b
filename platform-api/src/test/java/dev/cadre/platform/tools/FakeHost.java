package dev.cadre.platform.tools;

import dev.cadre.agent.tool.Tool;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.hardware.GlobalMemory;
import oshi.hardware.HardwareAbstractionLayer;
import oshi.hardware.VirtualMemory;
import oshi.software.os.FileSystem;
import oshi.software.os.NetworkParams;
import oshi.software.os.OSFileStore;
import oshi.software.os.OperatingSystem;
import tools.jackson.databind.json.JsonMapper;

/**
 * A host whose numbers a test sets: the real {@code host_metrics} tool (its thresholds, findings and
 * output format) reading a fake OSHI {@link SystemInfo} instead of the machine the tests run on, so
 * a recorded incident case does not depend on the build machine's load.
 */
public final class FakeHost {

    /** One file system: its mount, type and sizes in bytes. */
    public record Disk(String mount, String type, long totalBytes, long usableBytes) {}

    /** What the host shows: CPU utilisation over the sample, load averages, cores, memory, swap, disks. */
    public record State(
            String hostName,
            double cpuLoad,
            double[] loadAverage,
            int cores,
            long memoryTotal,
            long memoryAvailable,
            long swapTotal,
            long swapUsed,
            List<Disk> disks) {}

    private static final long GIB = 1L << 30;

    /** A quiet host {@code name}: 12% CPU, 35% memory, its root file system 40% used. */
    public static State quiet(String name) {
        return new State(
                name,
                0.12,
                new double[] {0.4, 0.5, 0.45},
                4,
                16 * GIB,
                Math.round(16 * GIB * 0.65),
                2 * GIB,
                0,
                List.of(new Disk("/", "ext4", 100 * GIB, 60 * GIB)));
    }

    private final AtomicReference<State> state;

    public FakeHost(State initial) {
        this.state = new AtomicReference<>(initial);
    }

    /** What the host shows from now on. */
    public void set(State next) {
        state.set(next);
    }

    /** The real {@code host_metrics} over this host, with {@code limits}. */
    public Tool hostMetrics(OpsToolsProperties.HostMetrics limits, JsonMapper json) {
        return new HostMetricsTool(new Info(), limits, json);
    }

    /** The OSHI entry point, answering from {@link #state}. */
    private final class Info extends SystemInfo {
        @Override
        public HardwareAbstractionLayer getHardware() {
            State s = state.get();
            CentralProcessor cpu = proxy(
                    CentralProcessor.class,
                    Map.of(
                            "getSystemCpuLoad", s.cpuLoad(),
                            "getSystemLoadAverage", s.loadAverage().clone(),
                            "getLogicalProcessorCount", s.cores()));
            VirtualMemory swap =
                    proxy(VirtualMemory.class, Map.of("getSwapTotal", s.swapTotal(), "getSwapUsed", s.swapUsed()));
            GlobalMemory memory = proxy(
                    GlobalMemory.class,
                    Map.of(
                            "getTotal", s.memoryTotal(),
                            "getAvailable", s.memoryAvailable(),
                            "getVirtualMemory", swap));
            return proxy(HardwareAbstractionLayer.class, Map.of("getProcessor", cpu, "getMemory", memory));
        }

        @Override
        public OperatingSystem getOperatingSystem() {
            State s = state.get();
            List<OSFileStore> stores = s.disks().stream()
                    .map(d -> proxy(
                            OSFileStore.class,
                            Map.of(
                                    "getMount", d.mount(),
                                    "getType", d.type(),
                                    "getTotalSpace", d.totalBytes(),
                                    "getUsableSpace", d.usableBytes())))
                    .toList();
            FileSystem fs = proxy(FileSystem.class, Map.of("getFileStores", stores));
            NetworkParams net = proxy(NetworkParams.class, Map.of("getHostName", s.hostName()));
            return proxy(OperatingSystem.class, Map.of("getFileSystem", fs, "getNetworkParams", net));
        }
    }

    /** An implementation of {@code type} answering each named method with its value (any arguments). */
    private static <T> T proxy(Class<T> type, Map<String, Object> answers) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, method, args) -> {
            if (method.getName().equals("toString")) {
                return "fake " + type.getSimpleName();
            }
            Object answer = answers.get(method.getName());
            if (answer == null) {
                throw new UnsupportedOperationException("fake " + type.getSimpleName() + "." + method.getName());
            }
            return answer;
        }));
    }
}
