package dev.cadre.agent.run.internal;

import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A node of the run's cancellation tree: stopping it interrupts the threads working inside it and
 * stops its children, which is how cancel and timeouts reach blocking model calls, tools and
 * approval waits without polling.
 */
public final class CancelScope {

    private final @Nullable CancelScope parent;
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final Set<CancelScope> children = ConcurrentHashMap.newKeySet();
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

    /** Stops this scope (first reason wins), interrupting its threads and stopping its children. */
    public void stop(StopReason reason) {
        synchronized (this) {
            if (stop != null) {
                return;
            }
            stop = reason;
        }
        threads.forEach(Thread::interrupt);
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

    /** Registers the current thread so a stop interrupts it; close the result when leaving. */
    public Entered enter() {
        Thread thread = Thread.currentThread();
        threads.add(thread);
        if (stop != null) {
            thread.interrupt();
        }
        return new Entered(this, thread);
    }

    /** Detaches this scope from its parent once its work has ended. */
    public void close() {
        if (parent != null) {
            parent.children.remove(this);
        }
    }

    /** A registration of a thread in a scope. */
    public record Entered(CancelScope scope, Thread thread) implements AutoCloseable {
        @Override
        public void close() {
            scope.threads.remove(thread);
            // A stop that raced with the end of the work must not leak into whatever the thread does next.
            Thread.interrupted();
        }
    }
}
