package io.reactorrdma.rsocket.shard;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Retry throttling as Finagle's {@code RetryBudget} and gRPC's retry throttling do it: over a
 * sliding window, retries may add at most {@code ratio} of the calls made in it, plus a small
 * allowance of {@code minPerSecond} retries per second of window so a quiet client can still
 * retry. A sick cluster therefore sees at most (1 + ratio) times its normal load plus the
 * allowance, never a retry storm.
 */
final class RetryBudget {

    private final double ratio;
    private final long minRetries;
    private final SlidingWindowCounter calls;
    private final SlidingWindowCounter retries;

    RetryBudget(double ratio, int minPerSecond, Duration window, LongSupplier nanoClock) {
        if (!(ratio >= 0.0)) {
            throw new IllegalArgumentException("retry budget ratio must be >= 0, got " + ratio);
        }
        if (minPerSecond < 0) {
            throw new IllegalArgumentException("minimum retries per second must be >= 0, got " + minPerSecond);
        }
        if (window.toMillis() < 1000) {
            throw new IllegalArgumentException("retry budget window must be at least 1 s, got " + window);
        }
        this.ratio = ratio;
        this.minRetries = (long) minPerSecond * window.toSeconds();
        int buckets = (int) Math.min(window.toSeconds(), 60);
        this.calls = new SlidingWindowCounter(window, buckets, nanoClock);
        this.retries = new SlidingWindowCounter(window, buckets, nanoClock);
    }

    /** A call (not a retry) started: it deposits {@code ratio} of a retry. */
    void onCall() {
        calls.add(1);
    }

    /** Takes one retry from the budget; false when the window's retries are used up. */
    synchronized boolean tryRetry() {
        if (retries.sum() + 1 > minRetries + ratio * calls.sum()) {
            return false;
        }
        retries.add(1);
        return true;
    }
}
