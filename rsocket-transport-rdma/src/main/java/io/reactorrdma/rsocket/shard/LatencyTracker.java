package io.reactorrdma.rsocket.shard;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * A latency quantile of a shard's recent successful calls, the hedge delay. Callers record into an
 * HdrHistogram {@link Recorder} (wait-free, microsecond resolution, 2 significant digits); the
 * quantile is recomputed at most once per slice over the last {@code slices} slices (the window),
 * so old latencies age out and readers pay only a volatile read. Until the window holds
 * {@code minSamples} latencies the delay is {@code initialDelay}; it never falls below
 * {@code floor}.
 */
final class LatencyTracker {

    private static final long HIGHEST_MICROS = Duration.ofMinutes(1).toNanos() / 1000;

    private final double quantile;
    private final long floorNanos;
    private final long initialNanos;
    private final long minSamples;
    private final long sliceNanos;
    private final LongSupplier nanoClock;
    private final Recorder recorder = new Recorder(HIGHEST_MICROS, 2);
    private final Histogram[] slices;
    private final Histogram window = new Histogram(HIGHEST_MICROS, 2);
    /** Taken (compare-and-set) by the one caller that rolls; the others go on with the current delay, never waiting. */
    private final AtomicBoolean rolling = new AtomicBoolean();
    private Histogram recycled;  // recycled, next: only the caller holding rolling; lastRoll: written only by it
    private int next;
    private volatile long lastRoll;
    private volatile long delayNanos;

    LatencyTracker(double quantile, Duration floor, Duration initialDelay, long minSamples, Duration window, int slices,
                   LongSupplier nanoClock) {
        if (!(quantile > 0.0 && quantile < 1.0)) {
            throw new IllegalArgumentException("hedge quantile must be within (0, 1), e.g. 0.95, got " + quantile);
        }
        if (floor.isNegative()) {
            throw new IllegalArgumentException("hedge delay floor must be >= 0, got " + floor);
        }
        if (initialDelay.isNegative()) {
            throw new IllegalArgumentException("initial hedge delay must be >= 0, got " + initialDelay);
        }
        this.quantile = quantile;
        this.floorNanos = floor.toNanos();
        this.initialNanos = Math.max(floorNanos, initialDelay.toNanos());
        this.minSamples = minSamples;
        this.sliceNanos = Math.max(1, window.toNanos() / slices);
        this.nanoClock = nanoClock;
        this.slices = new Histogram[slices];
        for (int i = 0; i < slices; i++) {
            this.slices[i] = new Histogram(HIGHEST_MICROS, 2);
        }
        this.lastRoll = nanoClock.getAsLong();
        this.delayNanos = initialNanos;
    }

    /** Records one successful call's latency. */
    void record(long nanos) {
        recorder.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1000)));
    }

    /**
     * The current hedge delay in nanoseconds. Called as calls start, also on a transport's I/O
     * thread (a retry after a connection loss): a caller that finds another one rolling the window
     * does not wait for it but takes the delay of the slice before.
     */
    long delayNanos() {
        long now = nanoClock.getAsLong();
        if (now - lastRoll >= sliceNanos && rolling.compareAndSet(false, true)) {
            try {
                roll(now);
            } finally {
                rolling.set(false);
            }
        }
        return delayNanos;
    }

    /** Holding {@link #rolling}. */
    private void roll(long now) {
        if (now - lastRoll < sliceNanos) {
            return; // another caller rolled it
        }
        // a quiet spell of several slices empties them all, so old latencies age out on time
        long steps = Math.min(slices.length, (now - lastRoll) / sliceNanos);
        lastRoll = now;
        recycled = recorder.getIntervalHistogram(recycled);
        for (long k = 0; k < steps; k++) {
            Histogram slot = slices[next];
            slot.reset();
            if (k == steps - 1) {
                slot.add(recycled);
            }
            next = (next + 1) % slices.length;
        }
        window.reset();
        for (Histogram h : slices) {
            window.add(h);
        }
        delayNanos = window.getTotalCount() < minSamples
                ? initialNanos
                : Math.max(floorNanos, window.getValueAtPercentile(quantile * 100.0) * 1000);
    }
}
