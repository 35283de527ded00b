package dev.cadre.platform.support;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Polls a condition until it holds; a bounded wait for asynchronous outcomes, not a timing assertion.
 *
 * <p>The condition must be one the awaited action causes, never one the state before the action
 * already satisfies (a status set holding the current status, a count already reached, "not
 * pending" read before the change): such a wait returns at once and the test reads the old state
 * (issue 27). The bound is generous (a loaded two-core machine) because the wait returns as soon as
 * the condition holds. See docs/testing.md.
 */
public final class Await {

    /** How long any wait may take before the test fails: generous, since it ends as soon as it can. */
    public static final Duration PATIENCE = Duration.ofSeconds(60);

    private Await() {}

    public static <T> T until(String what, Supplier<T> probe, java.util.function.Predicate<T> done) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        T last = probe.get();
        while (!done.test(last)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; last seen: " + last);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            last = probe.get();
        }
        return last;
    }
}
