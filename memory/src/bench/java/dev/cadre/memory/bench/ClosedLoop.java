package dev.cadre.memory.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Closed-loop measuring shared by the benchmarks (memory's and the platform's): N client threads
 * repeat one operation for a while; operations that take turns in half-second slices see the same
 * background load, so ratios taken within one run stay fair on a shared machine.
 */
public final class ClosedLoop {

    public static final long SLICE_MILLIS = 500;

    private ClosedLoop() {}

    /** One operation of one client; returns normally when it succeeded. */
    @FunctionalInterface
    public interface Op {
        void run(int client) throws Exception;
    }

    /** Throughput and latency of one measurement. */
    public record Figures(double opsPerSecond, double p50Micros, double p99Micros, long count) {}

    /** Operations and latencies gathered over one or more slices. */
    public static final class Sample {

        public Sample() {}

        private long[] latencies = new long[1 << 12];
        private int count;
        private double seconds;

        synchronized void add(long[] lat, int n) {
            while (count + n > latencies.length) {
                latencies = Arrays.copyOf(latencies, latencies.length * 2);
            }
            System.arraycopy(lat, 0, latencies, count, n);
            count += n;
        }

        synchronized void addTime(double elapsed) {
            seconds += elapsed;
        }

        public synchronized Figures figures() {
            long[] all = Arrays.copyOf(latencies, count);
            Arrays.sort(all);
            return new Figures(count / seconds, percentile(all, 0.50) / 1e3, percentile(all, 0.99) / 1e3, count);
        }
    }

    /**
     * Runs {@code op} on {@code clients} threads for {@code millis}; every call started in the
     * window is finished and counted, and the elapsed time runs until the last one ends.
     */
    public static void runFor(int clients, Op op, long millis, Sample sample) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        Throwable[] failures = new Throwable[clients];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            int client = i;
            threads.add(Thread.ofPlatform().name("bench-client-" + i).start(() -> {
                long[] lat = new long[1 << 10];
                int n = 0;
                try {
                    start.await();
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
                        op.run(client);
                        long dt = System.nanoTime() - t0;
                        if (n == lat.length) {
                            lat = Arrays.copyOf(lat, lat.length * 2);
                        }
                        lat[n++] = dt;
                    }
                } catch (Throwable e) {
                    failures[client] = e;
                }
                sample.add(lat, n);
            }));
        }
        long begin = System.nanoTime();
        start.countDown();
        Thread.sleep(millis);
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        sample.addTime((System.nanoTime() - begin) / 1e9);
        for (Throwable f : failures) {
            if (f != null) {
                throw new IllegalStateException("benchmark client failed: " + f.getMessage(), f);
            }
        }
    }

    /** Warms every op up, then runs them in turn, slice by slice, for {@code seconds} each. */
    public static Map<String, Figures> rotate(int clients, Map<String, Op> ops, int seconds, int warmupSeconds)
            throws Exception {
        for (Op op : ops.values()) {
            runFor(clients, op, warmupSeconds * 1000L, new Sample());
        }
        Map<String, Sample> samples = new LinkedHashMap<>();
        ops.keySet().forEach(name -> samples.put(name, new Sample()));
        long slices = Math.max(1, seconds * 1000L / SLICE_MILLIS);
        for (long i = 0; i < slices; i++) {
            for (var e : ops.entrySet()) {
                runFor(clients, e.getValue(), SLICE_MILLIS, samples.get(e.getKey()));
            }
        }
        Map<String, Figures> out = new LinkedHashMap<>();
        samples.forEach((name, sample) -> out.put(name, sample.figures()));
        return out;
    }

    public static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    public static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    public static double median(List<Double> values) {
        return median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }
}
