package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Await;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The embedded queue honours priority: of the runs waiting, the highest goes first, FIFO within one. */
class RunQueuePriorityTest {

    @Test
    void aFreedSlot_goesToTheHighestPriorityWaiting_inArrivalOrderWithinAPriority() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<String> order = new CopyOnWriteArrayList<>();
        try (InProcessRunQueue queue = new InProcessRunQueue(new ExecutionSlots(1), (id, slot) -> {
            order.add(id);
            if (id.equals("blocker")) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        })) {
            queue.enqueue("blocker", 0);
            Await.until("the blocker to hold the only slot", () -> order, o -> o.contains("blocker"));
            queue.enqueue("low", -1);
            queue.enqueue("normal-1", 0);
            queue.enqueue("high-1", 1);
            queue.enqueue("normal-2");
            queue.enqueue("urgent", 2);
            queue.enqueue("high-2", 1);
            Await.until("every run to wait", queue::queued, n -> n == 6);

            release.countDown();

            Await.until("every run to execute", () -> order, o -> o.size() == 7);
            assertThat(order).containsExactly("blocker", "urgent", "high-1", "high-2", "normal-1", "normal-2", "low");
        }
    }

    /** A run removed while it waits (its deadline passed) is never executed; the others still are. */
    @Test
    void aRemovedRun_isNeverExecuted_andItsSlotGoesToTheNext() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<String> order = new CopyOnWriteArrayList<>();
        try (InProcessRunQueue queue = new InProcessRunQueue(new ExecutionSlots(1), (id, slot) -> {
            order.add(id);
            if (id.equals("blocker")) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        })) {
            queue.enqueue("blocker", 0);
            Await.until("the blocker to hold the only slot", () -> order, o -> o.contains("blocker"));
            queue.enqueue("expired", 1);
            queue.enqueue("next", 0);
            Await.until("both runs to wait", queue::queued, n -> n == 2);

            assertThat(queue.remove("expired", 1)).isTrue();
            assertThat(queue.remove("expired", 1)).isFalse();
            assertThat(queue.queued()).isEqualTo(1);
            release.countDown();

            Await.until("the next run to execute", () -> order, o -> o.contains("next"));
            Await.until("no run to execute any more", queue::executing, n -> n == 0);
            assertThat(order).containsExactly("blocker", "next");
            assertThat(queue.queued()).isZero();
        }
    }
}
