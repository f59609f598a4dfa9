package io.reactorrdma.rsocket.shard;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Counts events over a sliding window of fixed-width buckets (the last {@code buckets} bucket
 * widths, the current one included): enough for budgets of a few seconds, with O(buckets) work
 * per read and no allocation. Thread-safe (synchronized: these counters see one update per call).
 */
final class SlidingWindowCounter {

    private final long bucketNanos;
    private final long[] counts;
    private final long[] bucketOf;
    private final LongSupplier nanoClock;

    SlidingWindowCounter(Duration window, int buckets, LongSupplier nanoClock) {
        if (buckets < 1) {
            throw new IllegalArgumentException("buckets must be at least 1, got " + buckets);
        }
        this.bucketNanos = Math.max(1, window.toNanos() / buckets);
        this.counts = new long[buckets];
        this.bucketOf = new long[buckets];
        this.nanoClock = nanoClock;
        java.util.Arrays.fill(bucketOf, Long.MIN_VALUE);
    }

    synchronized void add(long n) {
        long bucket = Math.floorDiv(nanoClock.getAsLong(), bucketNanos);
        int i = (int) Math.floorMod(bucket, (long) counts.length);
        if (bucketOf[i] != bucket) {
            bucketOf[i] = bucket;
            counts[i] = 0;
        }
        counts[i] += n;
    }

    synchronized long sum() {
        long bucket = Math.floorDiv(nanoClock.getAsLong(), bucketNanos);
        long sum = 0;
        for (int i = 0; i < counts.length; i++) {
            if (bucketOf[i] > bucket - counts.length) {
                sum += counts[i];
            }
        }
        return sum;
    }
}
