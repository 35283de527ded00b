package dev.cadre.platform.runs;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded default's queue: a virtual thread per run waiting for one of the instance's
 * {@link ExecutionSlots} — bounded concurrency without a thread pool to size.
 */
public final class InProcessRunQueue implements RunQueue, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InProcessRunQueue.class);

    private final ExecutionSlots slots;
    private final BiConsumer<String, ExecutionSlots.Slot> executor;
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("cadre-run-slot-", 0).factory());
    private final AtomicInteger running = new AtomicInteger();
    // A run is queued here at most once, however often recovery or a client hands it in.
    private final java.util.Set<String> pending = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public InProcessRunQueue(ExecutionSlots slots, BiConsumer<String, ExecutionSlots.Slot> executor) {
        this.slots = slots;
        this.executor = executor;
    }

    /** A waiting run: higher priority first, then in the order they came. */
    private record Waiting(String runId, int priority, long order) implements Comparable<Waiting> {
        @Override
        public int compareTo(Waiting o) {
            return priority != o.priority ? Integer.compare(o.priority, priority) : Long.compare(order, o.order);
        }
    }

    private final java.util.concurrent.PriorityBlockingQueue<Waiting> byPriority =
            new java.util.concurrent.PriorityBlockingQueue<>();
    private final java.util.concurrent.atomic.AtomicLong arrivals = new java.util.concurrent.atomic.AtomicLong();

    @Override
    public void enqueue(String runId) {
        enqueue(runId, 0);
    }

    /**
     * One waiting thread per run; whichever gets a slot takes the best run waiting at that moment
     * (not necessarily its own), so a free slot always goes to the highest priority, FIFO within one.
     */
    @Override
    public void enqueue(String runId, int priority) {
        if (!pending.add(runId)) {
            return;
        }
        byPriority.add(new Waiting(runId, priority, arrivals.incrementAndGet()));
        threads.execute(() -> {
            ExecutionSlots.Slot slot = null;
            Waiting next = null;
            try {
                slot = slots.acquire();
                // Null when the entry was removed (its run ended while waiting): the slot goes back.
                next = byPriority.poll();
                if (next == null) {
                    return;
                }
                running.incrementAndGet();
                executor.accept(next.runId(), slot);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.error("Run {} could not be executed", next == null ? null : next.runId(), e);
            } finally {
                if (next != null) {
                    pending.remove(next.runId());
                    running.decrementAndGet();
                }
                if (slot != null) {
                    slot.close();
                }
            }
        });
    }

    /** Removes a waiting run's entry; the thread that would have taken it finds one entry fewer. */
    @Override
    public boolean remove(String runId, int priority) {
        boolean removed = byPriority.removeIf(w -> w.runId().equals(runId));
        if (removed) {
            pending.remove(runId);
        }
        return removed;
    }

    /** Queued here (or executing: an entry leaves {@code pending} when its execution ends). */
    @Override
    public boolean holds(String runId) {
        return pending.contains(runId);
    }

    @Override
    public int queued() {
        return byPriority.size();
    }

    @Override
    public int executing() {
        return running.get();
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
