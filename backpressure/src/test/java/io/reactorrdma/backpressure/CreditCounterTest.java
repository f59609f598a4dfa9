package io.reactorrdma.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class CreditCounterTest {

    @Test
    void startsAtTheInitialCredits() {
        CreditCounter c = new CreditCounter(32, 2);
        assertThat(c.available()).isEqualTo(32);
        assertThat(c.availableForData()).isEqualTo(30);
        assertThat(c.inUse()).isZero();
        assertThat(c.initialCredits()).isEqualTo(32);
        assertThat(c.reserved()).isEqualTo(2);
    }

    @Test
    void rejectsBadConstruction() {
        assertThatThrownBy(() -> new CreditCounter(0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initialCredits");
        assertThatThrownBy(() -> new CreditCounter(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CreditCounter(4, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reservedForControl");
        assertThatThrownBy(() -> new CreditCounter(4, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reservedForControl");
    }

    @Test
    void acquireAndReleaseMoveTheCount() {
        CreditCounter c = new CreditCounter(8, 0);
        assertThat(c.tryAcquire()).isTrue();
        assertThat(c.tryAcquire(3)).isTrue();
        assertThat(c.available()).isEqualTo(4);
        assertThat(c.inUse()).isEqualTo(4);
        c.release(2);
        assertThat(c.available()).isEqualTo(6);
        c.release(2);
        assertThat(c.available()).isEqualTo(8);
    }

    @Test
    void aFailedAcquireTakesNothing() {
        CreditCounter c = new CreditCounter(8, 0);
        assertThat(c.tryAcquire(6)).isTrue();
        assertThat(c.tryAcquire(3)).isFalse();
        assertThat(c.available()).isEqualTo(2);
        assertThat(c.tryAcquire(2)).isTrue();
        assertThat(c.tryAcquire()).isFalse();
        assertThat(c.tryAcquireControl()).isFalse();
        assertThat(c.available()).isZero();
    }

    @Test
    void zeroIsANoOp() {
        CreditCounter c = new CreditCounter(2, 0);
        AtomicInteger calls = new AtomicInteger();
        c.onCreditsReturned(calls::incrementAndGet);
        assertThat(c.tryAcquire(0)).isTrue();
        c.release(0);
        assertThat(c.available()).isEqualTo(2);
        assertThat(calls).hasValue(0);
    }

    @Test
    void dataNeverTakesTheControlReserve() {
        CreditCounter c = new CreditCounter(4, 1);
        assertThat(c.tryAcquireData()).isTrue();
        assertThat(c.tryAcquireData()).isTrue();
        assertThat(c.tryAcquireData()).isTrue();
        assertThat(c.tryAcquireData()).as("the last credit is reserved").isFalse();
        assertThat(c.tryAcquire()).as("tryAcquire is the data path").isFalse();
        assertThat(c.availableForData()).isZero();
        assertThat(c.available()).isEqualTo(1);
        assertThat(c.tryAcquireControl()).as("control may use the reserve").isTrue();
        assertThat(c.tryAcquireControl()).isFalse();
        assertThat(c.available()).isZero();
    }

    @Test
    void dataMultiAcquireRespectsTheReserve() {
        CreditCounter c = new CreditCounter(8, 2);
        assertThat(c.tryAcquireData(1)).isTrue();
        assertThat(c.tryAcquireData(6)).as("would eat into the reserve").isFalse();
        assertThat(c.available()).isEqualTo(7);
        c.release(1);
        assertThat(c.tryAcquireData(6)).isTrue();
        assertThat(c.tryAcquireData(1)).isFalse();
        c.release(1);
        assertThat(c.tryAcquireData(1)).isTrue();
    }

    @Test
    void controlWorksWhileDataIsStarved() {
        CreditCounter c = new CreditCounter(4, 2);
        assertThat(c.tryAcquireData(2)).isTrue();
        assertThat(c.availableForData()).isZero();
        assertThat(c.tryAcquireControl()).isTrue();
        c.release(1);
        assertThat(c.availableForData()).as("one control credit back; still within the reserve").isZero();
        c.release(2);
        assertThat(c.availableForData()).isEqualTo(2);
        assertThat(c.available()).isEqualTo(4);
    }

    @Test
    void acquireUpToTakesWhatIsThereOutsideTheReserve() {
        CreditCounter c = new CreditCounter(10, 2);
        assertThat(c.tryAcquireUpTo(3)).isEqualTo(3);
        assertThat(c.tryAcquireUpTo(100)).isEqualTo(5);
        assertThat(c.tryAcquireUpTo(100)).isZero();
        assertThat(c.tryAcquireUpTo(0)).isZero();
        assertThat(c.available()).isEqualTo(2);
        assertThatThrownBy(() -> c.tryAcquireUpTo(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void negativeArgumentsAreRejected() {
        CreditCounter c = new CreditCounter(4, 0);
        assertThatThrownBy(() -> c.tryAcquire(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        assertThatThrownBy(() -> c.tryAcquireData(-5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.release(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        assertThat(c.available()).isEqualTo(4);
    }

    @Test
    void anAcquireThatCouldNeverSucceedIsAnError() {
        CreditCounter c = new CreditCounter(4, 1);
        assertThatThrownBy(() -> c.tryAcquireData(4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("could never succeed");
        assertThat(c.tryAcquireData(3)).isTrue();
    }

    @Test
    void overReleaseIsAProtocolError() {
        CreditCounter c = new CreditCounter(8, 0);
        assertThatThrownBy(() -> c.release(1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("over-release")
                .hasMessageContaining("8 of 8");
        assertThat(c.tryAcquire(3)).isTrue();
        assertThatThrownBy(() -> c.release(4))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("receive-queue depth");
        assertThat(c.available()).as("a failed release changes nothing").isEqualTo(5);
        c.release(3);
        assertThat(c.available()).isEqualTo(8);
    }

    @Test
    void listenerRunsAfterTheCreditsAreBack() {
        CreditCounter c = new CreditCounter(2, 0);
        AtomicInteger seen = new AtomicInteger(-1);
        c.onCreditsReturned(() -> seen.set(c.available()));
        assertThat(c.tryAcquire(2)).isTrue();
        c.release(1);
        assertThat(seen).hasValue(1);
        c.onCreditsReturned(null);
        c.release(1);
        assertThat(seen).as("removed listener does not run").hasValue(1);
    }

    @Test
    void failedOverReleaseDoesNotRunTheListener() {
        CreditCounter c = new CreditCounter(2, 0);
        AtomicInteger calls = new AtomicInteger();
        c.onCreditsReturned(calls::incrementAndGet);
        assertThatThrownBy(() -> c.release(1)).isInstanceOf(IllegalStateException.class);
        assertThat(calls).hasValue(0);
    }

    @Test
    void describesItself() {
        assertThat(new CreditCounter(4, 1)).hasToString("CreditCounter[available=4/4, reserved=1]");
    }
}
