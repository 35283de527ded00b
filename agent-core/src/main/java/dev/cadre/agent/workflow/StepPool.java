package dev.cadre.agent.workflow;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/** Runs a workflow's concurrent steps (fan-out, map-reduce, split, debate rounds) on virtual threads. */
final class StepPool {

    private StepPool() {}

    interface StepFn<T> {
        StepOutcome apply(T item) throws InterruptedException;
    }

    /** Runs one step per item on virtual threads, at most {@code parallelism} at once, results in item order. */
    static <T> List<StepOutcome> concurrently(List<T> items, int parallelism, StepFn<T> fn)
            throws InterruptedException {
        Semaphore slots = new Semaphore(parallelism);
        List<Future<StepOutcome>> futures = new ArrayList<>();
        try (var executor = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (T item : items) {
                futures.add(executor.submit(() -> {
                    slots.acquire();
                    try {
                        return fn.apply(item);
                    } finally {
                        slots.release();
                    }
                }));
            }
            List<StepOutcome> out = new ArrayList<>(items.size());
            for (Future<StepOutcome> f : futures) {
                try {
                    out.add(f.get());
                } catch (ExecutionException e) {
                    throw new IllegalStateException("a workflow step failed unexpectedly", e.getCause());
                } catch (InterruptedException e) {
                    // Cancelled: interrupt the running steps (each cancels its run) instead of waiting for them.
                    executor.shutdownNow();
                    throw e;
                }
            }
            return out;
        }
    }
}
