package io.reactorrdma.examples.ps.demo;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.concurrent.atomic.LongAdder;

/**
 * Records the applications' observations (a fetch's fan-out time and reply bytes, a push's time to
 * its ack and bytes) while {@link #recording}; off during the warm-up. Thread-safe: observers are
 * called from whichever thread completed the call.
 */
final class Recorder {

    private final Histogram nanos = new ConcurrentHistogram(Lanes.MAX_RECORDED_NANOS, 3);
    private final LongAdder bytes = new LongAdder();
    private volatile boolean recording;

    /** One observation; ignored while not recording. */
    void record(long elapsedNanos, long size) {
        if (recording) {
            nanos.recordValue(Math.max(0, Math.min(elapsedNanos, Lanes.MAX_RECORDED_NANOS)));
            bytes.add(size);
        }
    }

    /** Starts recording (after the warm-up). */
    void start() {
        recording = true;
    }

    /** Stops recording. */
    void stop() {
        recording = false;
    }

    /** The times recorded, ns. */
    Histogram nanos() {
        return nanos;
    }

    /** The bytes recorded. */
    long bytes() {
        return bytes.sum();
    }
}
