package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The wake-up a stream reader relies on when a run ends: a signal that comes after the reader took
 * the generation but before it waits must not be lost (the benchmark saw such streams end a whole
 * poll interval, 1 s, late).
 */
class RunEventsWakeUpTest {

    // The wake-up logic touches neither the database nor JSON.
    private final RunEvents events = new RunEvents(null, null, null, java.time.Duration.ZERO, null, null);

    @Test
    void awaitChange_returnsAtOnce_whenASignalCameAfterTheGenerationWasTaken() throws InterruptedException {
        long seen = events.generation();
        events.signal(); // e.g. the run ended while the reader was sending its events

        long t0 = System.nanoTime();
        events.awaitChange(seen, 5_000);

        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1_000);
    }

    @Test
    void awaitChange_waitsUpToItsTimeout_whenNothingHappened() throws InterruptedException {
        long seen = events.generation();

        long t0 = System.nanoTime();
        events.awaitChange(seen, 200);

        assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(190);
    }

    @Test
    void awaitChange_wakesUp_whenSignalledWhileWaiting() throws InterruptedException {
        long seen = events.generation();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                events.awaitChange(seen, 60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        // Signal only once the reader is parked in its wait, rather than after a guessed delay.
        await("the reader to wait")
                .atMost(Duration.ofSeconds(60))
                .until(() -> reader.getState() == Thread.State.TIMED_WAITING);

        events.signal();

        // Sooner than its 60 s timeout (a loaded machine may take seconds to schedule the reader).
        await("the reader to wake up").atMost(Duration.ofSeconds(30)).until(() -> !reader.isAlive());
    }
}
