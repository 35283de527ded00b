package dev.cadre.platform.outbox;

import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Enqueues outbound deliveries and delivers them. {@link #enqueue} stores a row (inside the caller's
 * transaction when there is one) and wakes the worker after the commit; the worker ({@link #start})
 * claims due rows under a lease, makes one attempt of each and stores its outcome, then tells the
 * {@link OutboxListener}s. A transient failure (5xx, 408, 429, timeout, connection error) is tried
 * again after the backoff or the receiver's {@code Retry-After}; any other answer but 2xx fails the
 * delivery at once; {@code max-attempts} attempts fail it too. A crash between an attempt and its
 * record makes the attempt again when the lease ends (at once for a restarted instance with a
 * stable name): at least once, with the same {@code Idempotency-Key}, so a receiver that
 * de-duplicates on it sees the message once.
 */
public final class Outbox implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Outbox.class);

    /** Delivered and failed rows are pruned at most this often. */
    private static final Duration PRUNE_EVERY = Duration.ofMinutes(10);

    private final OutboxStore store;
    private final Map<String, OutboxChannel> channels;
    private final OutboxProperties settings;
    private final HttpAttempts attempts;
    private final Clock clock;
    private final RandomGenerator random;
    private final String owner;
    private final Backoff backoff;
    private final OutboxMetrics metrics;
    private final List<OutboxListener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService attemptThreads = Executors.newVirtualThreadPerTaskExecutor();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wakeUp = lock.newCondition();
    private boolean woken;
    private volatile boolean running;
    private @Nullable Thread worker;
    private Instant lastPrune = Instant.EPOCH;

    /**
     * @param owner the name this instance holds leases under: a stable one (the instance id) lets a
     *     restarted instance resume its predecessor's deliveries at once
     */
    public Outbox(
            OutboxStore store,
            List<OutboxChannel> channels,
            OutboxProperties settings,
            HttpClient http,
            Clock clock,
            RandomGenerator random,
            String owner,
            MeterRegistry registry) {
        this.store = store;
        Map<String, OutboxChannel> byName = new LinkedHashMap<>();
        for (OutboxChannel c : channels) {
            if (byName.put(c.name(), c) != null) {
                throw new IllegalArgumentException("outbox channel " + c.name() + " is declared twice");
            }
            if (settings.lease().compareTo(c.timeout().plusSeconds(5)) < 0) {
                throw new IllegalArgumentException("cadre.outbox.lease (" + settings.lease()
                        + ") must outlast an attempt: channel " + c.name() + " waits up to " + c.timeout());
            }
        }
        this.channels = Map.copyOf(byName);
        this.settings = settings;
        this.attempts = new HttpAttempts(http, clock);
        this.clock = clock;
        this.random = random;
        this.owner = owner;
        this.backoff = new Backoff(settings.initialBackoff(), settings.maxBackoff(), settings.maxRetryAfter());
        this.metrics = new OutboxMetrics(registry, byName.keySet(), store::countByState);
    }

    public void addListener(OutboxListener listener) {
        listeners.add(listener);
    }

    /** Whether {@code channel} is registered and has somewhere to deliver to. */
    public boolean configured(String channel) {
        OutboxChannel c = channels.get(channel);
        return c != null && c.url() != null;
    }

    /** A delivery and whether this call stored it (false: one with the same idempotency key exists). */
    public record Enqueued(OutboxDelivery delivery, boolean created) {}

    /**
     * Stores a delivery, due at once; the worker attempts it after the caller's transaction commits
     * (at once without one). Refuses a channel that is unknown or has no URL configured.
     */
    public Enqueued enqueue(OutboundMessage message) {
        if (!configured(message.channel())) {
            throw new IllegalArgumentException("outbox channel " + message.channel() + " is not configured");
        }
        OutboxStore.Enqueued e = store.insert(message, settings.maxAttempts(), clock.instant());
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    wake();
                }
            });
        } else {
            wake();
        }
        return new Enqueued(e.delivery(), e.created());
    }

    public java.util.Optional<OutboxDelivery> find(String id) {
        return store.find(id);
    }

    /**
     * The deliveries of {@code kind} about {@code subject} still in the table (delivered and failed
     * ones are kept for {@code cadre.outbox.keep}), oldest first.
     */
    public List<OutboxDelivery> about(String subject, String kind) {
        return store.about(subject, kind);
    }

    /** Whether a delivery of {@code kind} about {@code subject} still waits to be delivered. */
    public boolean pending(String subject, String kind) {
        return store.pending(subject, kind);
    }

    /** Starts the worker thread (after releasing the leases a predecessor of this name left). */
    public synchronized void start() {
        if (running) {
            return;
        }
        int released = store.releaseLeases(owner);
        if (released > 0) {
            log.info("Outbox: resuming {} deliveries an earlier run of instance {} had claimed", released, owner);
        }
        running = true;
        worker = Thread.ofPlatform().daemon().name("cadre-outbox").start(this::loop);
    }

    /** Asks the worker to look for due deliveries now. */
    public void wake() {
        lock.lock();
        try {
            woken = true;
            wakeUp.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void loop() {
        while (running) {
            int done = 0;
            try {
                done = runDue();
                maybePrune();
            } catch (RuntimeException e) {
                log.warn("Outbox: a round of deliveries failed; trying again in {}", settings.pollInterval(), e);
            } catch (InterruptedException e) {
                return;
            }
            if (done >= settings.batchSize()) {
                continue; // more may be due
            }
            lock.lock();
            try {
                if (!woken && running) {
                    wakeUp.await(settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
                }
                woken = false;
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Claims the deliveries due now, makes one attempt of each (in parallel) and stores the outcomes.
     * Returns how many were attempted. The worker calls it in a loop; tests call it directly.
     */
    public int runDue() throws InterruptedException {
        Instant now = clock.instant();
        List<OutboxDelivery> claimed = store.claim(owner, now, now.plus(settings.lease()), settings.batchSize());
        List<Future<?>> running = new ArrayList<>();
        for (OutboxDelivery d : claimed) {
            running.add(attemptThreads.submit(() -> {
                attemptOne(d);
                return null;
            }));
        }
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                log.warn("Outbox: an attempt failed unexpectedly", e.getCause());
            }
        }
        return claimed.size();
    }

    private void attemptOne(OutboxDelivery d) throws InterruptedException {
        OutboxChannel channel = channels.get(d.channel());
        AttemptResult result = channel == null
                ? new AttemptResult.Refused(0, "channel " + d.channel() + " is no longer configured")
                : attempts.attempt(d, channel);
        Instant now = clock.instant();
        OutboxListener.Settlement settlement;
        boolean recorded;
        switch (result) {
            case AttemptResult.Delivered ok -> {
                metrics.attempt(d.channel(), "delivered");
                recorded = store.delivered(d.id(), owner, ok.status(), now);
                settlement =
                        new OutboxListener.Settlement(DeliveryState.DELIVERED, d.attempts(), ok.status(), null, null);
            }
            case AttemptResult.Refused no -> {
                metrics.attempt(d.channel(), "refused");
                String error = "refused: " + no.error();
                recorded = store.failed(d.id(), owner, no.status(), error, now);
                settlement =
                        new OutboxListener.Settlement(DeliveryState.FAILED, d.attempts(), no.status(), error, null);
            }
            case AttemptResult.Transient t -> {
                metrics.attempt(d.channel(), "retry");
                if (d.attempts() >= d.maxAttempts()) {
                    String error = "failed after " + d.attempts() + " attempts: " + t.error();
                    recorded = store.failed(d.id(), owner, t.status(), error, now);
                    settlement =
                            new OutboxListener.Settlement(DeliveryState.FAILED, d.attempts(), t.status(), error, null);
                } else {
                    Instant next = now.plus(backoff.delay(d.attempts(), t.retryAfter(), random));
                    recorded = store.retryLater(d.id(), owner, t.status(), t.error(), next, now);
                    settlement = new OutboxListener.Settlement(
                            DeliveryState.PENDING, d.attempts(), t.status(), t.error(), next);
                }
            }
        }
        if (!recorded) {
            // The lease ran out during the attempt and another instance took the row over: its record wins.
            log.warn("Outbox: delivery {} was taken over by another instance before its outcome was stored", d.id());
            return;
        }
        if (settlement.state() != DeliveryState.PENDING) {
            metrics.settled(d.channel(), settlement.state());
        }
        if (settlement.state() == DeliveryState.FAILED) {
            log.warn("Outbox: delivery {} ({} {}) failed: {}", d.id(), d.channel(), d.kind(), settlement.error());
        }
        for (OutboxListener l : listeners) {
            try {
                l.settled(d, settlement);
            } catch (RuntimeException e) {
                log.warn("Outbox: a listener failed on delivery {}", d.id(), e);
            }
        }
    }

    private void maybePrune() {
        Instant now = clock.instant();
        if (Duration.between(lastPrune, now).compareTo(PRUNE_EVERY) < 0) {
            return;
        }
        lastPrune = now;
        int removed = store.prune(now.minus(settings.keep()));
        if (removed > 0) {
            log.info("Outbox: removed {} delivered or failed deliveries older than {}", removed, settings.keep());
        }
    }

    /**
     * Stops the worker thread; {@link #start} starts it again. A stopped lifecycle is not a closed one:
     * Spring stops and restarts the lifecycle of a paused test context, and the attempt threads shut
     * down here left every later round failing with RejectedExecutionException (nothing delivered).
     */
    public void stop() throws InterruptedException {
        Thread w;
        synchronized (this) {
            running = false;
            w = worker;
            worker = null;
        }
        wake();
        if (w != null) {
            w.interrupt();
            w.join(10_000);
        }
    }

    /** Stops the worker for good and ends the attempt threads. */
    @Override
    public void close() throws InterruptedException {
        stop();
        attemptThreads.shutdownNow();
    }
}
