package io.reactorrdma.incast;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventQueueTest {

    @Test
    void popsInTimeOrderAndTiesInInsertionOrder() {
        EventQueue queue = new EventQueue(2);
        SplittableRandom random = new SplittableRandom(7);
        List<long[]> pushed = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            long t = random.nextInt(50);
            queue.push(t, i % 5, i, -i);
            pushed.add(new long[] {t, i});
        }
        pushed.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
        for (long[] expected : pushed) {
            assertThat(queue.pop()).isTrue();
            assertThat(queue.time()).isEqualTo(expected[0]);
            assertThat(queue.a()).isEqualTo((int) expected[1]);
            assertThat(queue.b()).isEqualTo((int) -expected[1]);
            assertThat(queue.kind()).isEqualTo((int) (expected[1] % 5));
        }
        assertThat(queue.pop()).isFalse();
        assertThat(queue.peekTime()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void allocatesNothingPerEventAfterWarmUp() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        EventQueue queue = new EventQueue();
        long sink = churn(queue, 100_000);
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        int events = 1_000_000;
        sink += churn(queue, events);
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(sink).isNotZero();
        // a steady 4096 events in the queue, one pop and one push per event; the measurement itself costs a few bytes
        assertThat((double) allocated / events).as("bytes allocated per event").isLessThan(0.01);
    }

    private static long churn(EventQueue queue, int events) {
        long t = 0;
        while (queue.size() < 4096) {
            queue.push(t++, 0, 0, 0);
        }
        long sum = 0;
        for (int i = 0; i < events; i++) {
            queue.pop();
            sum += queue.a() + queue.time();
            queue.push(queue.time() + 1 + (i & 1023), 1, i, 0);
        }
        return sum;
    }

    @Test
    void rejectsANonPositiveCapacityAndAKindOutOfRange() {
        assertThatThrownBy(() -> new EventQueue(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity 0");
        assertThatThrownBy(() -> new EventQueue().push(0, 1 << EventQueue.KIND_BITS, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("event kind 16");
    }
}
