package io.reactorrdma.perf.report;

/**
 * Round-trip figures that an outside tool reported in place of its samples: the mean, and the value at one percentile
 * (ucx_perftest prints one, {@code -R}'s rank, 50 by default). Every other percentile is unknown (NaN), never guessed.
 *
 * @param meanNanos         the mean round trip in nanoseconds, or NaN
 * @param percentile        the rank of the one percentile given, e.g. 50.0
 * @param atPercentileNanos the round trip at that percentile in nanoseconds, or NaN
 */
public record ReportedLatency(double meanNanos, double percentile, double atPercentileNanos) {

    /** In microseconds: the mean for {@code percentile < 0}, else the value at {@code percentile} if it is the one given, else NaN. */
    public double micros(double p) {
        if (p < 0) {
            return meanNanos / 1e3;
        }
        return p == percentile ? atPercentileNanos / 1e3 : Double.NaN;
    }
}
