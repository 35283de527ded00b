package dev.cadre.platform.support;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls a condition until it holds; a bounded wait for asynchronous outcomes, not a timing assertion. */
public final class Await {

    private Await() {}

    public static <T> T until(String what, Supplier<T> probe, java.util.function.Predicate<T> done) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
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
