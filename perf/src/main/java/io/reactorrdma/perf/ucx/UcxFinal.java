package io.reactorrdma.perf.ucx;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code Final:} line of a ucx_perftest client (UCX 1.13.1's plain format, as its table heads it):
 *
 * <pre>
 * |    Stage     | # iterations | 50.0%ile | average | overall |  average |  overall |  average  |  overall  |
 * Final:                100000      0.566     2.133     2.133       28.62      28.62      468920      468920
 * </pre>
 *
 * <p>The three latency columns are microseconds: the percentile ({@code -R}, 50 by default) of the last iterations
 * only (ucx_perftest keeps the times of the last 2048 in a ring), the average of the last report interval, and the
 * average of the whole run ("overall"). For a ping-pong test (tag_lat) every latency is half an iteration's time:
 * one way, not the round trip. Bandwidth is MB/s of 2^20 bytes (MiB/s), times 2 for a ping-pong (both directions'
 * bytes); message rate is messages per second, also times 2 for a ping-pong.
 *
 * <p>The last report interval's columns can be empty at the end of a run, which ucx_perftest prints as {@code inf}
 * (latency) and zeros (bandwidth, rate); the latency then reads as NaN here. The tool uses only the percentile and
 * the whole run's columns.
 *
 * @param iterations           iterations of the measured phase
 * @param percentileRank       the rank of {@code percentileUs}, read from the table's heading (50.0 if absent)
 * @param percentileUs         latency at that percentile, microseconds
 * @param averageUs            latency, average of the last report interval, microseconds (NaN: that interval was empty)
 * @param overallUs            latency, average over the whole measured phase, microseconds
 * @param bandwidthAverage     MiB/s of the last report interval
 * @param bandwidthOverall     MiB/s over the whole measured phase
 * @param messageRateAverage   messages per second of the last report interval
 * @param messageRateOverall   messages per second over the whole measured phase
 */
public record UcxFinal(long iterations, double percentileRank, double percentileUs, double averageUs, double overallUs,
                       double bandwidthAverage, double bandwidthOverall, double messageRateAverage, double messageRateOverall) {

    /** The prefix of the line. */
    static final String PREFIX = "Final:";
    /** ucx_perftest's percentile rank unless {@code -R} changes it. */
    static final double DEFAULT_RANK = 50.0;

    private static final Pattern RANK = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)%ile");
    private static final int COLUMNS = 8;
    /** The columns of the last report interval (averages), which the tool does not use. */
    private static final boolean[] LAST_INTERVAL = {false, false, true, false, true, false, true, false};
    /** What those columns read when that interval was empty. */
    private static final List<String> EMPTY_INTERVAL = List.of("inf", "-inf", "nan", "-nan");

    /**
     * The last {@code Final:} line of a client's output.
     *
     * @throws IllegalArgumentException saying what is missing or malformed
     */
    public static UcxFinal parse(List<String> lines) {
        String last = null;
        double rank = DEFAULT_RANK;
        for (String line : lines) {
            String s = line.trim();
            if (s.startsWith(PREFIX)) {
                last = s;
            } else if (s.startsWith("|")) {
                Matcher m = RANK.matcher(s);
                if (m.find()) {
                    rank = Double.parseDouble(m.group(1));
                }
            }
        }
        if (last == null) {
            throw new IllegalArgumentException("no '" + PREFIX + "' line");
        }
        String[] cells = last.substring(PREFIX.length()).trim().split("\\s+");
        if (cells.length != COLUMNS) {
            throw new IllegalArgumentException("'" + last + "' has " + cells.length + " columns, not " + COLUMNS);
        }
        double[] v = new double[COLUMNS];
        for (int i = 0; i < COLUMNS; i++) {
            if (LAST_INTERVAL[i] && EMPTY_INTERVAL.contains(cells[i].toLowerCase(Locale.ROOT))) {
                v[i] = Double.NaN; // the last report interval held no iteration: ucx_perftest divided by zero
                continue;
            }
            try {
                v[i] = Double.parseDouble(cells[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + last + "': column " + (i + 1) + " '" + cells[i] + "' is not a number");
            }
            if (!(v[i] >= 0) || Double.isInfinite(v[i])) {
                throw new IllegalArgumentException("'" + last + "': column " + (i + 1) + " '" + cells[i] + "' is not a figure");
            }
        }
        if (v[0] < 1 || v[0] != Math.rint(v[0])) {
            throw new IllegalArgumentException("'" + last + "': no whole number of iterations");
        }
        return new UcxFinal((long) v[0], rank, v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }

    /** The line again, for the log. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s %d iterations, latency %.3f us (p%s) / %.3f / %.3f, %.2f / %.2f MiB/s, %.0f / %.0f msg/s",
                PREFIX, iterations, percentileUs, rankLabel(), averageUs, overallUs, bandwidthAverage, bandwidthOverall,
                messageRateAverage, messageRateOverall);
    }

    private String rankLabel() {
        return percentileRank == Math.rint(percentileRank) ? Long.toString((long) percentileRank) : Double.toString(percentileRank);
    }
}
