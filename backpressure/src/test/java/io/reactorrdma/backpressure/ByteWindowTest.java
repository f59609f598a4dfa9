package io.reactorrdma.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class ByteWindowTest {

    @Test
    void startsEmpty() {
        ByteWindow w = new ByteWindow(1024);
        assertThat(w.capacity()).isEqualTo(1024);
        assertThat(w.inFlight()).isZero();
        assertThat(w.room()).isEqualTo(1024);
        assertThat(w.isEmpty()).isTrue();
    }

    @Test
    void rejectsBadCapacity() {
        assertThatThrownBy(() -> new ByteWindow(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity");
        assertThatThrownBy(() -> new ByteWindow(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void acquiresUpToCapacity() {
        ByteWindow w = new ByteWindow(100);
        assertThat(w.tryAcquire(60)).isTrue();
        assertThat(w.tryAcquire(40)).isTrue();
        assertThat(w.inFlight()).isEqualTo(100);
        assertThat(w.room()).isZero();
        assertThat(w.tryAcquire(1)).isFalse();
        w.release(30);
        assertThat(w.tryAcquire(31)).as("a failed acquire takes nothing").isFalse();
        assertThat(w.inFlight()).isEqualTo(70);
        assertThat(w.tryAcquire(30)).isTrue();
        w.release(100);
        assertThat(w.isEmpty()).isTrue();
    }

    @Test
    void anOversizeRequestGoesAloneWhenTheWindowIsEmpty() {
        ByteWindow w = new ByteWindow(100);
        assertThat(w.tryAcquire(10)).isTrue();
        assertThat(w.tryAcquire(250)).as("oversize waits while anything is in flight").isFalse();
        w.release(10);
        assertThat(w.tryAcquire(250)).as("oversize granted on an empty window").isTrue();
        assertThat(w.inFlight()).isEqualTo(250);
        assertThat(w.room()).isZero();
        assertThat(w.tryAcquire(1)).as("nothing else while the oversize request is in flight").isFalse();
        assertThat(w.tryAcquire(250)).isFalse();
        w.release(250);
        assertThat(w.tryAcquire(100)).isTrue();
    }

    @Test
    void hugeRequestsDoNotOverflow() {
        ByteWindow w = new ByteWindow(100);
        assertThat(w.tryAcquire(Long.MAX_VALUE - 5)).isTrue();
        assertThat(w.tryAcquire(Long.MAX_VALUE)).isFalse();
        assertThat(w.tryAcquire(10)).isFalse();
        assertThat(w.inFlight()).isEqualTo(Long.MAX_VALUE - 5);
        w.release(Long.MAX_VALUE - 5);
        assertThat(w.isEmpty()).isTrue();
    }

    @Test
    void zeroIsANoOp() {
        ByteWindow w = new ByteWindow(10);
        AtomicInteger calls = new AtomicInteger();
        w.onRelease(calls::incrementAndGet);
        assertThat(w.tryAcquire(10)).isTrue();
        assertThat(w.tryAcquire(0)).isTrue();
        w.release(0);
        assertThat(w.inFlight()).isEqualTo(10);
        assertThat(calls).hasValue(0);
    }

    @Test
    void negativeSizesAreRejected() {
        ByteWindow w = new ByteWindow(10);
        assertThatThrownBy(() -> w.tryAcquire(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        assertThatThrownBy(() -> w.release(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
    }

    @Test
    void overReleaseIsAnError() {
        ByteWindow w = new ByteWindow(100);
        assertThatThrownBy(() -> w.release(1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("over-release").hasMessageContaining("only 0 in flight");
        assertThat(w.tryAcquire(40)).isTrue();
        assertThatThrownBy(() -> w.release(41))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("releasing 41 bytes");
        assertThat(w.inFlight()).as("a failed release changes nothing").isEqualTo(40);
    }

    @Test
    void listenerRunsAfterRelease() {
        ByteWindow w = new ByteWindow(10);
        AtomicInteger seen = new AtomicInteger(-1);
        w.onRelease(() -> seen.set((int) w.room()));
        assertThat(w.tryAcquire(10)).isTrue();
        w.release(4);
        assertThat(seen).hasValue(4);
        w.onRelease(null);
        w.release(6);
        assertThat(seen).hasValue(4);
    }

    @Test
    void describesItself() {
        assertThat(new ByteWindow(64)).hasToString("ByteWindow[inFlight=0/64]");
    }
}
