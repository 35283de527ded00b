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
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();
    // A run is queued here at most once, however often recovery or a client hands it in.
    private final java.util.Set<String> pending = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public InProcessRunQueue(ExecutionSlots slots, BiConsumer<String, ExecutionSlots.Slot> executor) {
        this.slots = slots;
        this.executor = executor;
    }

    @Override
    public void enqueue(String runId) {
        if (!pending.add(runId)) {
            return;
        }
        waiting.incrementAndGet();
        threads.execute(() -> {
            ExecutionSlots.Slot slot = null;
            try {
                slot = slots.acquire();
                waiting.decrementAndGet();
                running.incrementAndGet();
                executor.accept(runId, slot);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.error("Run {} could not be executed", runId, e);
            } finally {
                pending.remove(runId);
                if (slot != null) {
                    running.decrementAndGet();
                    slot.close();
                } else {
                    waiting.decrementAndGet();
                }
            }
        });
    }

    @Override
    public int queued() {
        return waiting.get();
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
