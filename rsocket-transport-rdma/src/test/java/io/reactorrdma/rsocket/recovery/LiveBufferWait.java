package io.reactorrdma.rsocket.recovery;

import io.reactorrdma.RdmaResources;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Test helpers: wait boundedly for a condition, and for registered allocators to hold no live buffer. */
final class LiveBufferWait {

    private LiveBufferWait() {
    }

    /** Polls {@code condition} until it holds; fails after {@code timeout} (tests never assert on speed). */
    static void until(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + timeout.toMillis() + " ms");
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
     * After the resources are disposed: RSocket releases what it holds as its connections close, on
     * their threads, just after; wait for it (30 s at most), then assert every allocator is empty.
     */
    static void awaitZero(RdmaResources... resources) {
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
