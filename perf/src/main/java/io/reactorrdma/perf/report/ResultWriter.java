package io.reactorrdma.perf.report;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.Locale;

/** Prints results as CSV or as a readable table, one line per transport as each finishes. */
public final class ResultWriter {

    public static final String CSV_HEADER = "scenario,transport,size_bytes,ops,mean_us,p50_us,p99_us,p999_us,mib_per_s,"
            + "client_cpu_us_per_op,server_cpu_us_per_op";

    private static final String TABLE_FORMAT = "%-9s %-14s %10s %11s %10s %10s %10s %10s %10s %9s %9s%n";

    private final PrintStream out;
    private final boolean csv;

    public ResultWriter(PrintStream out, boolean csv) {
        this.out = out;
        this.csv = csv;
    }

    public void header() {
        if (csv) {
            out.println(CSV_HEADER);
        } else {
            out.printf(Locale.ROOT, TABLE_FORMAT, "scenario", "transport", "size", "ops", "mean us", "p50 us", "p99 us",
                    "p99.9 us", "MiB/s", "cli us/op", "srv us/op");
        }
        out.flush();
    }

    public void row(Result r) {
        Histogram h = r.latency();
        String mean = h == null ? "" : us(h.getMean());
        String p50 = h == null ? "" : us(h.getValueAtPercentile(50));
        String p99 = h == null ? "" : us(h.getValueAtPercentile(99));
        String p999 = h == null ? "" : us(h.getValueAtPercentile(99.9));
        String bw = fixed(r.mibPerSecond(), 1);
        String cli = fixed(r.clientCpuUsPerOp(), 3);
        String srv = fixed(r.serverCpuUsPerOp(), 3);
        if (csv) {
            out.println(String.join(",", r.scenario().id(), r.transport().id(), Integer.toString(r.sizeBytes()),
                    Long.toString(r.ops()), mean, p50, p99, p999, bw, cli, srv));
        } else {
            out.printf(Locale.ROOT, TABLE_FORMAT, r.scenario().id(), r.transport().id(), Integer.toString(r.sizeBytes()),
                    Long.toString(r.ops()), dash(mean), dash(p50), dash(p99), dash(p999), dash(bw), dash(cli), dash(srv));
        }
        out.flush();
    }

    /** Nanoseconds as microseconds with three decimals. */
    private static String us(double nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e3);
    }

    private static String fixed(double v, int decimals) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String dash(String s) {
        return s.isEmpty() ? "-" : s;
    }
}
