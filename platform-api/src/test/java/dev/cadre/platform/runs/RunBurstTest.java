package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.TestTools;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Issue 27, item 2: a burst submitted through the API to one embedded instance with few execution
 * slots keeps thousands of runs queued for longer than the lease TTL. The recovery sweep took every
 * one of them for a run whose executor went silent and handed it to the queue again, every few
 * seconds (reading each run's whole row to do so). Runs waiting in this instance's queue are held by
 * a live executor: none is re-enqueued, none executes twice, and priority order holds.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-burst;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;"
                    + "DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:test-agents/*.yaml,classpath:burst-agents/*.yaml",
            "cadre.approvals.separation-of-duties=false",
            "cadre.retention.enabled=false",
            "cadre.runs.max-concurrent=1",
            // A short lease and a frequent sweep, so queued runs outlive the lease many times over.
            "cadre.runs.lease-ttl=PT1S",
            "cadre.runs.heartbeat-interval=PT0.2S",
            "cadre.runs.sweep-interval=PT0.2S"
        })
@Import({TestTools.class, RunBurstTest.Observers.class})
class RunBurstTest {

    /** 300 by default (a shared CI machine); {@code -Dcadre.test.burst-runs=20000} for the burst. */
    private static final int RUNS = Integer.getInteger("cadre.test.burst-runs", 300);

    private static final int CLIENTS = 16;
    private static final int SLOTS = 1;

    /** Counts every hand-over to the queue, and every execution start, per run. */
    static final class Counts implements RunExecutor.RunLifecycleListener {
        final Map<String, AtomicInteger> enqueued = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> started = new ConcurrentHashMap<>();
        final List<String> startOrder = new CopyOnWriteArrayList<>();
        /** Runs handed to the queue again before they had started: re-enqueued while queued. */
        final Set<String> reEnqueuedWhileQueued = ConcurrentHashMap.newKeySet();

        @Override
        public void started(RunRecord run) {
            started.computeIfAbsent(run.id(), id -> new AtomicInteger()).incrementAndGet();
            startOrder.add(run.id());
        }

        void enqueued(String runId) {
            int n = enqueued.computeIfAbsent(runId, id -> new AtomicInteger()).incrementAndGet();
            if (n > 1 && !started.containsKey(runId)) {
                reEnqueuedWhileQueued.add(runId);
            }
        }
    }

    /** The instance's queue, seen through a counter. */
    record CountingQueue(RunQueue delegate, Counts counts) implements RunQueue, AutoCloseable {
        @Override
        public void enqueue(String runId) {
            counts.enqueued(runId);
            delegate.enqueue(runId);
        }

        @Override
        public void enqueue(String runId, int priority) {
            counts.enqueued(runId);
            delegate.enqueue(runId, priority);
        }

        @Override
        public boolean remove(String runId, int priority) {
            return delegate.remove(runId, priority);
        }

        @Override
        public boolean holds(String runId) {
            return delegate.holds(runId);
        }

        @Override
        public int queued() {
            return delegate.queued();
        }

        @Override
        public int executing() {
            return delegate.executing();
        }

        @Override
        public void close() throws Exception {
            if (delegate instanceof AutoCloseable c) {
                c.close();
            }
        }
    }

    @TestConfiguration
    static class Observers {
        @Bean
        Counts counts() {
            return new Counts();
        }

        @Bean
        static BeanPostProcessor countingQueue(org.springframework.beans.factory.ObjectProvider<Counts> counts) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    return bean instanceof RunQueue q && !(bean instanceof CountingQueue)
                            ? new CountingQueue(q, counts.getObject())
                            : bean;
                }
            };
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    Counts counts;

    @Autowired
    io.micrometer.core.instrument.MeterRegistry registry;

    /** Recovery sweeps finished so far (the scheduled task's own timer, which the alerts read too). */
    private double sweeps() {
        return registry
                .find("tasks.scheduled.execution")
                .tag("code.namespace", RunMaintenance.class.getName())
                .tag("code.function", "sweep")
                .timers()
                .stream()
                .mapToDouble(io.micrometer.core.instrument.Timer::count)
                .sum();
    }

    @Test
    void aBurstQueuedLongerThanTheLease_isNeitherReEnqueuedNorRunTwice_andKeepsPriorityOrder() throws Exception {
        Api api = new Api(port);
        // Both slots held until the whole burst waits behind them.
        List<String> blockers = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            blockers.add(api.submitRun("holder", "hold slot " + i).get("id").asString());
        }
        Await.until("every slot to be taken", () -> counts.startOrder, o -> o.containsAll(blockers));

        List<String> high = new CopyOnWriteArrayList<>();
        List<String> normal = new CopyOnWriteArrayList<>();
        try (ExecutorService clients = Executors.newFixedThreadPool(CLIENTS)) {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                done.add(clients.submit(() -> {
                    for (int i = client; i < RUNS; i += CLIENTS) {
                        boolean urgent = i % 10 == 0;
                        var r = api.post(
                                "/api/v1/runs",
                                Api.ADMIN_KEY,
                                Api.json(Map.of(
                                        "agent",
                                        "echoer",
                                        "input",
                                        "burst " + i,
                                        "priority",
                                        urgent ? "high" : "normal")));
                        assertThat(r.status()).as(r.body()).isEqualTo(202);
                        (urgent ? high : normal).add(r.json().get("id").asString());
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        // The burst now waits longer than the lease TTL (1 s): that takes time, not an event. Then
        // the sweep (every 0.2 s) must have gone over the aged burst several times: wait for those
        // sweeps to finish, since on a loaded machine a fixed sleep may see none of them.
        Thread.sleep(2_500);
        double swept = sweeps();
        Await.until("three recovery sweeps over the aged burst", this::sweeps, n -> n >= swept + 3);
        assertThat(counts.startOrder)
                .as("no burst run started while the slots were held")
                .hasSize(SLOTS);

        for (String b : blockers) {
            assertThat(api.post("/api/v1/runs/" + b + "/cancel", Api.ADMIN_KEY, "{}")
                            .status())
                    .isEqualTo(202);
        }
        // Longer than Await's 30 s: two slots drain thousands of runs on a busy machine.
        long deadline = System.nanoTime() + java.time.Duration.ofMinutes(10).toNanos();
        while (counts.startOrder.size() < RUNS + blockers.size()) {
            assertThat(System.nanoTime())
                    .as("every run of the burst to start (%d of %d did)", counts.startOrder.size(), RUNS + SLOTS)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
        for (String id : List.of(high.getLast(), normal.getLast())) {
            api.awaitRunEnd(id);
        }

        assertThat(counts.reEnqueuedWhileQueued)
                .as("runs handed to the queue again while they waited in it")
                .isEmpty();
        assertThat(counts.started.entrySet().stream()
                        .filter(e -> e.getValue().get() > 1)
                        .map(Map.Entry::getKey)
                        .toList())
                .as("runs executed more than once")
                .isEmpty();
        // Every high-priority run started before the normal ones; with several slots, the first normal
        // runs may record their start just before the last high ones.
        List<String> burstOrder =
                counts.startOrder.stream().filter(id -> !blockers.contains(id)).toList();
        int lastHigh = high.stream().mapToInt(burstOrder::indexOf).max().orElseThrow();
        assertThat(lastHigh).isLessThan(high.size() + SLOTS - 1);
    }
}
