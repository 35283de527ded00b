package dev.cadre.platform.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.runs.ExecutionSlots;
import io.lettuce.core.RedisClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Found by the fault suite: while Redis was down, every run submission waited for it to come back
 * (Lettuce's 60 s default, commands queued while reconnecting). A Redis that does not answer must
 * not hold a submission: enqueue gives up after {@link RedisRunQueue#COMMAND_TIMEOUT} and runs the
 * run on this instance. The unanswering Redis is a proxy to the machine's Redis that swallows bytes.
 */
class RedisRunQueueTest {

    private final ExternalServices.Redis redis = ExternalServices.redis();
    private final String prefix = "rrqtest-" + UUID.randomUUID().toString().substring(0, 8);
    private final AtomicBoolean blackHole = new AtomicBoolean();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private ServerSocket proxy;
    private RedisClient client;
    private RedisRunQueue queue;

    @AfterEach
    void tearDown() throws IOException {
        if (queue != null) {
            queue.close();
        }
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        proxy.close();
        for (Socket s : sockets) {
            s.close();
        }
        RedisClient direct = RedisClient.create(redis.uri());
        try (var c = direct.connect()) {
            c.sync().del(prefix + ":runs", prefix + ":runs:p-1", prefix + ":runs:p1", prefix + ":runs:p2");
        } finally {
            direct.shutdown();
        }
    }

    @Test
    void enqueue_whenRedisStopsAnswering_runsTheRunHereWithinTheCommandTimeout() throws Exception {
        startProxy();
        client = RedisClient.create("redis://127.0.0.1:" + proxy.getLocalPort());
        List<String> executed = new CopyOnWriteArrayList<>();
        queue = new RedisRunQueue(
                client, prefix, "c1", new ExecutionSlots(4), Duration.ofSeconds(30), (id, slot) -> executed.add(id));
        queue.enqueue("run-before");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> executed.contains("run-before"));

        blackHole.set(true);
        long t0 = System.nanoTime();
        queue.enqueue("run-during");
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        // Generous for a loaded 2-core machine; the bug made this 60 s.
        assertThat(took).isLessThan(RedisRunQueue.COMMAND_TIMEOUT.toMillis() + 8_000);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> executed.contains("run-during"));
    }

    /**
     * The stream kept every run forever (XADD without a limit, entries kept after XACK). Now an
     * acknowledged run's entry is deleted, while runs not yet acknowledged — executing, or never
     * read — stay in the stream for another instance to claim.
     */
    @Test
    void acknowledgedRunsLeaveTheStream_unacknowledgedOnesStay() throws Exception {
        client = RedisClient.create(redis.uri());
        proxy = new ServerSocket(0);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<String> executed = new CopyOnWriteArrayList<>();
        queue = new RedisRunQueue(client, prefix, "c1", new ExecutionSlots(2), Duration.ofMinutes(5), (id, slot) -> {
            executed.add(id);
            if (id.startsWith("slow")) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        for (int i = 0; i < 20; i++) {
            queue.enqueue("fast-" + i);
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> executed.size() == 20);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queue.streamLength() == 0);

        queue.enqueue("slow-1");
        queue.enqueue("slow-2");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> executed.contains("slow-2"));
        queue.enqueue("waiting"); // both slots busy: read by nobody yet
        assertThat(queue.streamLength()).isEqualTo(3);
        RedisClient direct = RedisClient.create(redis.uri());
        try (var c = direct.connect()) {
            assertThat(c.sync().xpending(prefix + ":runs", "cadre-executors").getCount())
                    .isEqualTo(2);
        } finally {
            direct.shutdown();
        }

        release.countDown();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> executed.contains("waiting"));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queue.streamLength() == 0);
    }

    @Test
    void runsWaitingInRedis_areTakenHighestPriorityFirst_inArrivalOrderWithinAPriority() throws Exception {
        startProxy(); // tearDown closes it
        client = RedisClient.create(redis.uri());
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<String> executed = new CopyOnWriteArrayList<>();
        queue = new RedisRunQueue(client, prefix, "c1", new ExecutionSlots(1), Duration.ofSeconds(30), (id, slot) -> {
            executed.add(id);
            if (id.equals("blocker")) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        queue.enqueue("blocker", 0);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> executed.contains("blocker"));
        // The only slot is taken: these wait in Redis, each in its priority's stream.
        queue.enqueue("low", -1);
        queue.enqueue("normal-1", 0);
        queue.enqueue("high-1", 1);
        queue.enqueue("urgent", 2);
        queue.enqueue("high-2", 1);
        queue.enqueue("normal-2");
        release.countDown();

        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> executed.size() == 7);
        assertThat(executed).containsExactly("blocker", "urgent", "high-1", "high-2", "normal-1", "normal-2", "low");
    }

    /**
     * A run removed while it waits in Redis (its deadline passed) leaves its stream and is never read
     * by an instance; the runs around it still are.
     */
    @Test
    void aRemovedRun_leavesItsStream_andIsNeverExecuted() throws Exception {
        startProxy(); // tearDown closes it
        client = RedisClient.create(redis.uri());
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<String> executed = new CopyOnWriteArrayList<>();
        queue = new RedisRunQueue(client, prefix, "c1", new ExecutionSlots(1), Duration.ofMinutes(5), (id, slot) -> {
            executed.add(id);
            if (id.equals("blocker")) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        queue.enqueue("blocker", 0);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> executed.contains("blocker"));
        queue.enqueue("expired", 1);
        queue.enqueue("next", 0);
        assertThat(queue.streamLength()).isEqualTo(3);

        assertThat(queue.remove("expired", 1)).isTrue();
        assertThat(queue.remove("expired", 1)).isFalse();
        assertThat(queue.streamLength()).isEqualTo(2);
        release.countDown();

        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> executed.contains("next"));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queue.streamLength() == 0);
        assertThat(executed).containsExactly("blocker", "next");
    }

    /** Forwards to the real Redis until {@link #blackHole} is set; then requests go nowhere. */
    private void startProxy() throws IOException {
        proxy = new ServerSocket(0);
        Thread.ofVirtual().start(() -> {
            while (!proxy.isClosed()) {
                try {
                    Socket down = proxy.accept();
                    Socket up = new Socket(redis.host(), redis.port());
                    sockets.add(down);
                    sockets.add(up);
                    Thread.ofVirtual().start(() -> pump(down, up, true));
                    Thread.ofVirtual().start(() -> pump(up, down, false));
                } catch (IOException closed) {
                    return;
                }
            }
        });
    }

    private void pump(Socket from, Socket to, boolean request) {
        byte[] buf = new byte[8192];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (request && blackHole.get()) {
                    continue; // swallowed: the client waits for an answer that never comes
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException closed) {
            // torn down
        }
    }
}
