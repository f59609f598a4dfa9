package io.reactorrdma.verbs.disni;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands out a device's completion vectors ({@code comp_vector}, 0 .. {@code num_comp_vectors}-1,
 * each usually its own interrupt and CPU) round robin, so the completion queues of different
 * engine domains raise their events on different vectors instead of all on vector 0.
 */
final class CompVectors {

    private final int count;
    private final AtomicInteger next = new AtomicInteger();

    /** {@code count}: the device's {@code num_comp_vectors}; below 1 (unknown) means vector 0 only. */
    CompVectors(int count) {
        this.count = Math.max(1, count);
    }

    int count() {
        return count;
    }

    /** The vector for the next completion queue. */
    int next() {
        return Math.floorMod(next.getAndIncrement(), count);
    }
}
