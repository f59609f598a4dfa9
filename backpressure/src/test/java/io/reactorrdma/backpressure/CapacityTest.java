package io.reactorrdma.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class CapacityTest {

    @Test
    void minIsTheSmallestSource() {
        CreditCounter credits = new CreditCounter(8, 1);
        ByteWindow window = new ByteWindow(4096);
        AtomicInteger freeSlots = new AtomicInteger(32);
        Capacity c = Capacity.min(freeSlots::get, credits::availableForData,
                () -> window.room() >= 1024 || window.isEmpty() ? window.room() / 1024 : 0);
        assertThat(c.available()).isEqualTo(4); // window: 4 fragments of 1 KiB
        assertThat(window.tryAcquire(3072)).isTrue();
        assertThat(c.available()).isEqualTo(1);
        window.release(3072);
        assertThat(credits.tryAcquire(5)).isTrue();
        assertThat(c.available()).isEqualTo(2); // credits
        freeSlots.set(0);
        assertThat(c.available()).isZero();
    }

    @Test
    void minStopsAtTheFirstEmptySource() {
        AtomicInteger reads = new AtomicInteger();
        Capacity c = Capacity.min(() -> 0, () -> {
            reads.incrementAndGet();
            return 5;
        });
        assertThat(c.available()).isZero();
        assertThat(reads).hasValue(0);
    }

    @Test
    void minOfOneIsItself() {
        Capacity one = () -> 3;
        assertThat(Capacity.min(one)).isSameAs(one);
        assertThatThrownBy(() -> Capacity.min(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Capacity.min(one, (Capacity) null)).isInstanceOf(NullPointerException.class);
    }
}
