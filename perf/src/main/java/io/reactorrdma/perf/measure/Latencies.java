package io.reactorrdma.perf.measure;

import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;

/** The latency histogram every latency scenario records into: nanoseconds, 3 significant digits, up to 60 s. */
public final class Latencies {

    static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

    private Latencies() {
    }

    /** A histogram sized once: recording never resizes or allocates. */
    public static Histogram newHistogram() {
        return new Histogram(HIGHEST_NANOS, 3);
    }

    public static void record(Histogram h, long nanos) {
        h.recordValue(nanos < HIGHEST_NANOS ? nanos : HIGHEST_NANOS);
    }
}
