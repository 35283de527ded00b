package dev.cadre.platform.cluster;

import dev.cadre.platform.runs.ExecutionSlots;
import dev.cadre.platform.runs.RunQueue;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Distributes runs over the instances of a cluster through a Redis Streams consumer group: each
 * instance reads as many runs as it has free slots, acknowledges a run when it ended, and claims
 * (XAUTOCLAIM) runs whose consumer has been silent too long — a dead instance's work.
 *
 * <p>Redis only distributes; it is not the authority. An instance executes a run only while it
 * holds the run's lease in PostgreSQL, so a message read twice, claimed while its owner still
 * works, or lost with a Redis restart (no persistence) never makes a run execute twice or never:
 * the database sweep re-enqueues runs nobody holds. If Redis cannot take a run, it runs here.
 */
public final class RedisRunQueue implements RunQueue, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisRunQueue.class);
    private static final String FIELD = "run";

    /** Limit of one command on the shared connection; a healthy Redis answers in milliseconds. */
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

    private final RedisClient client;
    private final String stream;
    private final String group;
    private final String consumer;
    private final java.util.function.BiConsumer<String, ExecutionSlots.Slot> executor;
    private final Duration claimIdle;
    private final ExecutionSlots slots;
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("cadre-run-", 0).factory());
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger executing = new AtomicInteger();
    private final AtomicInteger localWaiting = new AtomicInteger();
    private final Set<String> local = ConcurrentHashMap.newKeySet();
    private final StatefulRedisConnection<String, String> commands;
    private final Thread reader;

    public RedisRunQueue(
            RedisClient client,
            String keyPrefix,
            String consumer,
            ExecutionSlots slots,
            Duration claimIdle,
            java.util.function.BiConsumer<String, ExecutionSlots.Slot> executor) {
        this.client = client;
        this.stream = keyPrefix + ":runs";
        this.group = "cadre-executors";
        this.consumer = consumer;
        this.executor = executor;
        this.claimIdle = claimIdle;
        this.slots = slots;
        this.commands = client.connect();
        // Lettuce's default (60 s, commands queued while reconnecting) made every submission wait for
        // a Redis outage to end (fault suite, docs/reliability.md); failing fast lets enqueue() fall
        // back to running the run here.
        this.commands.setTimeout(COMMAND_TIMEOUT);
        this.reader = Thread.ofPlatform().daemon().name("cadre-run-reader").start(this::readLoop);
    }

    /** Priorities with a stream of their own, highest first (normal, 0, keeps the original key). */
    static final List<Integer> PRIORITIES = List.of(2, 1, 0, -1);

    /** The stream of a priority: higher priorities are read first. */
    String streamOf(int priority) {
        int p = Math.max(-1, Math.min(2, priority));
        return p == 0 ? stream : stream + ":p" + p;
    }

    @Override
    public void enqueue(String runId) {
        enqueue(runId, 0);
    }

    @Override
    public void enqueue(String runId, int priority) {
        try {
            commands.sync().xadd(streamOf(priority), Map.of(FIELD, runId));
        } catch (RuntimeException e) {
            // Redis down: run it here rather than not at all (the lease still guards exclusivity).
            log.warn("Redis did not take run {} ({}); executing it on this instance", runId, e.getMessage());
            runLocally(runId);
        }
    }

    private void runLocally(String runId) {
        if (!local.add(runId)) {
            return;
        }
        localWaiting.incrementAndGet();
        threads.execute(() -> {
            ExecutionSlots.Slot slot;
            try {
                slot = slots.acquire();
            } catch (InterruptedException e) {
                localWaiting.decrementAndGet();
                local.remove(runId);
                return;
            }
            localWaiting.decrementAndGet();
            try {
                execute(runId, slot);
            } finally {
                local.remove(runId);
                slot.close();
            }
        });
    }

    private void execute(String runId, ExecutionSlots.Slot slot) {
        executing.incrementAndGet();
        try {
            executor.accept(runId, slot);
        } catch (RuntimeException e) {
            log.error("Run {} could not be executed", runId, e);
        } finally {
            executing.decrementAndGet();
        }
    }

    private void readLoop() {
        StatefulRedisConnection<String, String> blocking = null;
        long lastClaim = 0;
        while (running.get()) {
            try {
                if (blocking == null || !blocking.isOpen()) {
                    blocking = client.connect();
                    for (int p : PRIORITIES) {
                        ensureGroup(blocking.sync(), streamOf(p));
                    }
                }
                RedisCommands<String, String> redis = blocking.sync();
                int free = slots.available();
                if (free == 0) {
                    Thread.sleep(100);
                    continue;
                }
                if (System.currentTimeMillis() - lastClaim > claimIdle.toMillis() / 2) {
                    lastClaim = System.currentTimeMillis();
                    boolean claimedAny = false;
                    for (int p : PRIORITIES) {
                        var claimed = redis.xautoclaim(
                                streamOf(p),
                                XAutoClaimArgs.Builder.xautoclaim(Consumer.from(group, consumer), claimIdle, "0-0")
                                        .count(Math.min(free, 16)));
                        if (claimed != null && !claimed.getMessages().isEmpty()) {
                            log.info(
                                    "Claimed {} runs from silent executors",
                                    claimed.getMessages().size());
                            dispatch(claimed.getMessages());
                            claimedAny = true;
                            break;
                        }
                    }
                    if (claimedAny) {
                        continue;
                    }
                }
                // Highest priority first: the first stream with waiting runs fills the free slots.
                List<StreamMessage<String, String>> messages = null;
                for (int p : PRIORITIES) {
                    messages = redis.xreadgroup(
                            Consumer.from(group, consumer),
                            XReadArgs.Builder.count(free),
                            XReadArgs.StreamOffset.lastConsumed(streamOf(p)));
                    if (messages != null && !messages.isEmpty()) {
                        break;
                    }
                }
                if (messages == null || messages.isEmpty()) {
                    // Nothing waiting: block on every stream for the next run, whichever priority.
                    messages = redis.xreadgroup(
                            Consumer.from(group, consumer),
                            XReadArgs.Builder.block(Duration.ofSeconds(1)).count(1),
                            PRIORITIES.stream()
                                    .map(p -> XReadArgs.StreamOffset.lastConsumed(streamOf(p)))
                                    .toArray(XReadArgs.StreamOffset[]::new));
                }
                if (messages != null && !messages.isEmpty()) {
                    dispatch(messages);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                if (!running.get()) {
                    return;
                }
                log.warn("Run queue on Redis unavailable ({}); retrying", e.getMessage());
                if (blocking != null) {
                    blocking.closeAsync();
                    blocking = null;
                }
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        if (blocking != null) {
            blocking.close();
        }
    }

    private void dispatch(List<StreamMessage<String, String>> messages) throws InterruptedException {
        for (StreamMessage<String, String> m : messages) {
            String runId = m.getBody().get(FIELD);
            ExecutionSlots.Slot slot = slots.acquire();
            threads.execute(() -> {
                try {
                    if (runId != null) {
                        execute(runId, slot);
                    }
                } finally {
                    slot.close();
                    try {
                        acknowledge(m.getStream(), m.getId());
                    } catch (RuntimeException e) {
                        // Unacknowledged: another instance may claim it; the lease makes that harmless.
                        log.debug("Could not acknowledge run {}: {}", runId, e.getMessage());
                    }
                }
            });
        }
    }

    /**
     * Acknowledges a run's entry and deletes it from the stream in one script, so the stream holds
     * only runs not yet acknowledged (it grew by one entry per run, forever). Only entries this
     * group acknowledged go — never one still pending or not yet read — and the group is the
     * stream's only reader, so nothing else needed it. (Not MAXLEN: that trims by count and could
     * drop a run nobody read yet.)
     */
    void acknowledge(String entryStream, String entryId) {
        commands.sync()
                .eval(
                        "local n = redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])"
                                + " if n == 1 then redis.call('XDEL', KEYS[1], ARGV[2]) end return n",
                        io.lettuce.core.ScriptOutputType.INTEGER,
                        new String[] {entryStream},
                        group,
                        entryId);
    }

    /**
     * Takes a run that ended while it waited (its deadline passed) out of the streams: its entries
     * are acknowledged and deleted, so no instance reads or claims it later. Every priority's stream
     * is searched (a resumed run may have been re-enqueued under another); each holds only runs not
     * yet acknowledged, so the scan is as long as the queue. An entry an instance has already read
     * is acknowledged too: that instance finds the run ended and does not execute it.
     */
    @Override
    public boolean remove(String runId, int priority) {
        long removed = 0;
        try {
            for (int p : PRIORITIES) {
                Long n = commands.sync()
                        .eval(
                                "local n = 0"
                                        + " for _, e in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do"
                                        + "  local f = e[2]"
                                        + "  for i = 1, #f, 2 do"
                                        + "   if f[i] == ARGV[2] and f[i + 1] == ARGV[3] then"
                                        + "    redis.call('XACK', KEYS[1], ARGV[1], e[1])"
                                        + "    redis.call('XDEL', KEYS[1], e[1])"
                                        + "    n = n + 1"
                                        + "   end"
                                        + "  end"
                                        + " end return n",
                                io.lettuce.core.ScriptOutputType.INTEGER,
                                new String[] {streamOf(p)},
                                group,
                                FIELD,
                                runId);
                removed += n == null ? 0 : n;
            }
        } catch (RuntimeException e) {
            // Left in the stream: whoever reads it finds the run ended and only acknowledges it.
            log.debug("Could not remove run {} from the queue: {}", runId, e.getMessage());
        }
        return removed > 0;
    }

    /** Entries in the run streams (every priority): runs enqueued and not yet acknowledged. */
    public long streamLength() {
        return PRIORITIES.stream()
                .mapToLong(p -> commands.sync().xlen(streamOf(p)))
                .sum();
    }

    private void ensureGroup(RedisCommands<String, String> redis, String key) {
        try {
            redis.xgroupCreate(XReadArgs.StreamOffset.from(key, "0"), group, XGroupCreateArgs.Builder.mkstream());
        } catch (RedisBusyException exists) {
            // BUSYGROUP: another instance created it first.
        }
    }

    /** Runs this instance queued for itself while Redis could not take them; the stream's are nobody's. */
    @Override
    public boolean holds(String runId) {
        return local.contains(runId);
    }

    @Override
    public int queued() {
        return localWaiting.get();
    }

    @Override
    public int executing() {
        return executing.get();
    }

    public int capacity() {
        return slots.capacity();
    }

    @Override
    public void close() {
        running.set(false);
        reader.interrupt();
        threads.shutdownNow();
        commands.close();
    }
}
