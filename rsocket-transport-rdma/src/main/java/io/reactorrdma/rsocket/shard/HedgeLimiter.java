package io.reactorrdma.rsocket.shard;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Caps hedges at a fraction of the calls of a sliding window: with the default 5 % a hedge is
 * allowed only while the window's hedges (this one included) stay at most 5 % of its calls, so
 * hedging can never more than add that fraction to a shard's load (and nothing before the window
 * has seen 1 / fraction calls).
 */
final class HedgeLimiter {

    private final double fraction;
    private final SlidingWindowCounter calls;
    private final SlidingWindowCounter hedges;

    HedgeLimiter(double fraction, Duration window, LongSupplier nanoClock) {
        if (!(fraction >= 0.0 && fraction <= 1.0)) {
            throw new IllegalArgumentException("hedge fraction must be within [0, 1], got " + fraction);
        }
        this.fraction = fraction;
        int buckets = (int) Math.max(1, Math.min(window.toSeconds(), 60));
        this.calls = new SlidingWindowCounter(window, buckets, nanoClock);
        this.hedges = new SlidingWindowCounter(window, buckets, nanoClock);
    }

    /** A hedgeable call started. */
    void onCall() {
        calls.add(1);
    }

    /** Takes one hedge; false when hedges would exceed the fraction of the window's calls. */
    synchronized boolean tryHedge() {
        if (hedges.sum() + 1 > fraction * calls.sum()) {
            return false;
        }
        hedges.add(1);
        return true;
    }
}
