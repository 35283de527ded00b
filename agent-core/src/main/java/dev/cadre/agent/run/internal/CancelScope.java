package dev.cadre.agent.run.internal;

import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A node of the run's cancellation tree. Stopping is cooperative: a stop is recorded (the loop checks
 * it between steps) and it interrupts only the threads that are waiting inside {@link #await} — a
 * model call, a tool, a human decision, a free worker slot — never a thread between waits. Between
 * waits the loop writes events, checkpoints and journal entries; an interrupt there would land in
 * that I/O, and an interrupted file write makes an embedded database (H2) close itself for good
 * (issue 23, finding 1).
 */
public final class CancelScope {

    private final @Nullable CancelScope parent;
    private final Set<CancelScope> children = ConcurrentHashMap.newKeySet();
    // Guards stop and waiting together: a thread is interrupted only while it is registered as
    // waiting, and once it has left its wait no interrupt of this scope can reach it any more.
    private final Object lock = new Object();
    private final Set<Thread> waiting = new HashSet<>();
    private volatile @Nullable StopReason stop;

    public CancelScope(@Nullable CancelScope parent) {
        this.parent = parent;
    }

    /** The run's root scope: stopping it stops the whole run. */
    public CancelScope root() {
        CancelScope s = this;
        while (s.parent != null) {
            s = s.parent;
        }
        return s;
    }

    /** A child scope that stops when this one does. */
    public CancelScope child() {
        CancelScope child = new CancelScope(this);
        children.add(child);
        StopReason current = stop;
        if (current != null) {
            child.stop(inherited(current));
        }
        return child;
    }

    /** Stops this scope (first reason wins), interrupting its waiting threads and stopping its children. */
    public void stop(StopReason reason) {
        synchronized (lock) {
            if (stop != null) {
                return;
            }
            stop = reason;
            waiting.forEach(Thread::interrupt);
        }
        StopReason forChildren = inherited(reason);
        children.forEach(c -> c.stop(forChildren));
    }

    private static StopReason inherited(StopReason reason) {
        if (reason.status() == OutcomeStatus.CANCELLED) {
            return reason;
        }
        return new StopReason(
                OutcomeStatus.CANCELLED,
                FailureCode.PARENT_STOPPED.failure(
                        reason.failure().category(),
                        "parent stopped: " + reason.failure().message()));
    }

    /** Why it was stopped, or null while it runs. */
    public @Nullable StopReason stopReason() {
        return stop;
    }

    /** The stop reason, or a cancellation if the thread was interrupted for another reason. */
    public StopReason stopReasonOrCancelled() {
        StopReason s = stop;
        return s != null ? s : new StopReason(OutcomeStatus.CANCELLED, FailureCode.INTERRUPTED.failure("interrupted"));
    }

    /**
     * Runs a blocking wait that a stop of this scope interrupts. Only waits belong here, never work that
     * writes to a shared resource: the interrupt status is cleared when the wait ends, so a stop that
     * raced with its end cannot leak into what the thread does next.
     *
     * @throws InterruptedException at once when the scope is already stopped, or when a stop interrupts
     *     the wait
     */
    public <T, E extends Exception> T await(Wait<T, E> wait) throws InterruptedException, E {
        Thread thread = Thread.currentThread();
        synchronized (lock) {
            if (stop != null) {
                throw new InterruptedException("stopped");
            }
            waiting.add(thread);
        }
        try {
            return wait.call();
        } finally {
            synchronized (lock) {
                waiting.remove(thread);
                Thread.interrupted();
            }
        }
    }

    /** A blocking wait: a model call, a tool, a future, a semaphore. */
    @FunctionalInterface
    public interface Wait<T, E extends Exception> {
        T call() throws InterruptedException, E;
    }

    /** Detaches this scope from its parent once its work has ended. */
    public void close() {
        if (parent != null) {
            parent.children.remove(this);
        }
    }
}
