package io.reactorrdma.perf.report;

import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The figures of a result row as numbers — what the table and the CSV print per transport — and the ones that
 * {@code --repeat} takes medians and ratios of. NaN where a figure does not apply.
 */
public enum Figure {
    OPS("ops", "ops", null, null, 0, r -> r.ops()),
    MEAN("mean_us", "mean us", "mean_x", "mean", 3, r -> latencyUs(r, -1)),
    P50("p50_us", "p50 us", "p50_x", "p50", 3, r -> latencyUs(r, 50)),
    P99("p99_us", "p99 us", "p99_x", "p99", 3, r -> latencyUs(r, 99)),
    P999("p999_us", "p99.9 us", "p999_x", "p99.9", 3, r -> latencyUs(r, 99.9)),
    MIB_PER_S("mib_per_s", "MiB/s", "mib_per_s_x", "MiB/s", 1, Result::mibPerSecond),
    CLIENT_CPU("client_cpu_us_per_op", "cli us/op", "client_cpu_x", "cli cpu", 3, Result::clientCpuUsPerOp),
    SERVER_CPU("server_cpu_us_per_op", "srv us/op", "server_cpu_x", "srv cpu", 3, Result::serverCpuUsPerOp),
    /** Client plus server CPU per op, where both are measured: only as a ratio (the targets compare both ends together). */
    CPU("cpu_us_per_op", "cpu us/op", "cpu_x", "cli+srv cpu", 3, r -> r.clientCpuUsPerOp() + r.serverCpuUsPerOp());

    /** The columns of a row, in the CSV's order. */
    public static final List<Figure> COLUMNS = List.of(OPS, MEAN, P50, P99, P999, MIB_PER_S, CLIENT_CPU, SERVER_CPU);
    /** The figures {@code --repeat} reports the median per-run ratio of, in the CSV's order. */
    public static final List<Figure> RATIOS = List.of(MEAN, P50, P99, P999, MIB_PER_S, CLIENT_CPU, SERVER_CPU, CPU);

    private final String csvName;
    private final String tableName;
    private final String ratioName;
    private final String ratioHeading;
    private final int decimals;
    private final ToDoubleFunction<Result> value;

    Figure(String csvName, String tableName, String ratioName, String ratioHeading, int decimals, ToDoubleFunction<Result> value) {
        this.csvName = csvName;
        this.tableName = tableName;
        this.ratioName = ratioName;
        this.ratioHeading = ratioHeading;
        this.decimals = decimals;
        this.value = value;
    }

    /** The CSV column's name. */
    public String csvName() {
        return csvName;
    }

    /** The text table's column heading. */
    public String tableName() {
        return tableName;
    }

    /** The CSV column of its median per-run ratio ({@code p50_x}); null for ops. */
    public String ratioName() {
        return ratioName;
    }

    /** The text table's heading of its median per-run ratio; null for ops. */
    public String ratioHeading() {
        return ratioHeading;
    }

    /** {@code r}'s value of this figure; NaN where it does not apply (a sum is NaN when either part is). */
    public double of(Result r) {
        return value.applyAsDouble(r);
    }

    /** The value as printed: fixed decimals, empty for NaN. */
    public String format(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /** A ratio as printed: three decimals, empty for NaN. */
    public String ratioFormat(double ratio) {
        return Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.3f", ratio);
    }

    /**
     * Round-trip times in microseconds: the mean ({@code percentile < 0}) or a percentile; from the samples, else from
     * what a tool reported (NaN for the percentiles it did not); NaN without latencies.
     */
    private static double latencyUs(Result r, double percentile) {
        Histogram h = r.latency();
        if (h == null) {
            return r.reported() == null ? Double.NaN : r.reported().micros(percentile);
        }
        return (percentile < 0 ? h.getMean() : h.getValueAtPercentile(percentile)) / 1e3;
    }
}
