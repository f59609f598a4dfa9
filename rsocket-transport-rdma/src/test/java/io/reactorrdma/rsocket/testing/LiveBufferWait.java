package io.reactorrdma.rsocket.testing;

import io.reactorrdma.RdmaResources;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Test helpers: wait boundedly for a condition and for registered allocators to hold no live buffer; check a flood's arrivals. */
public final class LiveBufferWait {

    private LiveBufferWait() {
    }

    /** Polls {@code condition} until it holds; fails after {@code timeout} (tests never assert on speed). */
    public static void until(Duration timeout, BooleanSupplier condition) {
        awaitOrFail(timeout, condition, "condition not met within " + timeout.toMillis() + " ms");
    }

    /** As {@link #until(Duration, BooleanSupplier)}, failing with "timed out waiting for: {@code what}". */
    public static void until(Duration timeout, BooleanSupplier condition, String what) {
        awaitOrFail(timeout, condition, "timed out waiting for: " + what);
    }

    private static void awaitOrFail(Duration timeout, BooleanSupplier condition, String failure) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(failure);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    /**
     * What a flood's receiver got ({@code received}, in arrival order) is what its sender sent
     * ({@code sent}: the sequence numbers of the requests that went out), each once, in increasing
     * order. Not necessarily a prefix: cancelling a flood cancels its waiting requests in no
     * particular order, so a later one may go while an earlier one is cancelled.
     */
    public static void assertInOrderWithoutLoss(List<Integer> received, Collection<Integer> sent) {
        for (int i = 1; i < received.size(); i++) {
            if (received.get(i) <= received.get(i - 1)) {
                throw new AssertionError("arrival " + i + " is " + received.get(i) + " after " + received.get(i - 1)
                        + ": out of order or twice");
            }
        }
        List<Integer> expected = new ArrayList<>(sent);
        Collections.sort(expected);
        assertThat(received).as("what arrived is exactly what was sent").isEqualTo(expected);
    }

    /**
     * After the resources are disposed: RSocket releases what it holds as its connections close, on
     * their threads, just after; wait for it (30 s at most), then assert every allocator is empty.
     */
    public static void awaitZero(RdmaResources... resources) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (RdmaResources r : resources) {
            while (r.allocator().liveBuffers() != 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                Thread.yield();
            }
            assertThat(r.allocator().liveBuffers()).as("live buffers of %s", r).isZero();
        }
    }
}
