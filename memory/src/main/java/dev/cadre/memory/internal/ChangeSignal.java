package dev.cadre.memory.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** A counter that writers bump and waiters block on, so background work wakes at once on a local write. */
public final class ChangeSignal {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long generation;

    public void signal() {
        lock.lock();
        try {
            generation++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the generation differs from {@code seen} or {@code max} passes; returns the generation. */
    public long await(long seen, Duration max) throws InterruptedException {
        lock.lock();
        try {
            long nanos = max.toNanos();
            while (generation == seen && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return generation;
        } finally {
            lock.unlock();
        }
    }

    public static void sleepQuietly(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
