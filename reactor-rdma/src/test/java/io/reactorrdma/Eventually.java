package io.reactorrdma;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a generous timeout passes (tests never assert on speed). */
final class Eventually {

    private Eventually() {
    }

    static void until(BooleanSupplier condition) {
        until(Duration.ofSeconds(30), condition);
    }

    static void until(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + timeout.toSeconds() + " s");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }
}
