package io.reactorrdma.perf.report;

import java.util.Map;
import java.util.TreeMap;

/**
 * Round-trip figures that an outside tool reported in place of its samples: the mean, and the values at the
 * percentiles it printed (ucx_perftest prints one per run, {@code -R}'s rank, 50 by default). Every other percentile
 * is unknown (NaN), never guessed.
 *
 * @param meanNanos          the mean round trip in nanoseconds, or NaN
 * @param atPercentileNanos  the round trip in nanoseconds at each percentile given (rank, e.g. 50.0, to value)
 */
public record ReportedLatency(double meanNanos, Map<Double, Double> atPercentileNanos) {

    public ReportedLatency {
        atPercentileNanos = Map.copyOf(atPercentileNanos);
    }

    /** The mean and one percentile. */
    public ReportedLatency(double meanNanos, double percentile, double atPercentileNanos) {
        this(meanNanos, Map.of(percentile, atPercentileNanos));
    }

    /** These figures with the value at one more percentile (replacing what was given for that rank). */
    public ReportedLatency with(double percentile, double nanos) {
        Map<Double, Double> m = new TreeMap<>(atPercentileNanos);
        m.put(percentile, nanos);
        return new ReportedLatency(meanNanos, m);
    }

    /** In microseconds: the mean for {@code percentile < 0}, else the value at {@code percentile} if it was given, else NaN. */
    public double micros(double p) {
        if (p < 0) {
            return meanNanos / 1e3;
        }
        Double v = atPercentileNanos.get(p);
        return v == null ? Double.NaN : v / 1e3;
    }
}
