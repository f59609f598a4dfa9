package io.reactorrdma.perf.report;

import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfException;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code --chart FILE.png}: the latency distributions of one invocation, one line per transport, drawn
 * as HdrHistogram plots them — round trip (µs, log scale) against percentile, the x axis being
 * {@code 1 / (1 - percentile)} on a log scale, so that p90, p99, p99.9 are equally spaced.
 */
public final class LatencyChart {

    /** Points per halving of the distance to 100% (HdrHistogram's percentile iteration). */
    private static final int TICKS_PER_HALF_DISTANCE = 5;

    private LatencyChart() {
    }

    /**
     * Writes the chart of every result with latencies to {@code file} (PNG), each line named by its transport; does
     * nothing when none has any.
     */
    public static void write(Path file, String title, List<Result> results) {
        List<String> names = new ArrayList<>();
        for (Result r : results) {
            names.add(r.transport().id());
        }
        write(file, title, results, names);
    }

    /**
     * Writes the chart of every result with latencies to {@code file} (PNG), result {@code i}'s line named {@code names.get(i)}
     * (its p50 and p99 are added); does nothing when none has any.
     */
    public static void write(Path file, String title, List<Result> results, List<String> names) {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(1000).height(560).title(title)
                .xAxisTitle("percentile (x = 1/(1-p): 10 = p90, 100 = p99, 1000 = p99.9)").yAxisTitle("round trip, µs").build();
        XYStyler s = chart.getStyler();
        s.setLegendPosition(Styler.LegendPosition.OutsideS);
        s.setChartBackgroundColor(java.awt.Color.WHITE);
        s.setXAxisLogarithmic(true);
        s.setYAxisLogarithmic(true);
        s.setYAxisDecimalPattern("#,##0.#");
        s.setXAxisDecimalPattern("#,##0");
        int series = 0;
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            Histogram h = r.latency();
            if (h == null || h.getTotalCount() == 0) {
                continue;
            }
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            double maxX = h.getTotalCount();
            for (HistogramIterationValue v : h.percentiles(TICKS_PER_HALF_DISTANCE)) {
                double p = v.getPercentileLevelIteratedTo() / 100.0;
                double at = p >= 1 ? maxX : Math.min(maxX, 1 / (1 - p));
                x.add(at);
                y.add(Math.max(0.001, h.highestEquivalentValue(v.getValueIteratedTo()) / 1e3));
                if (p >= 1) {
                    break;
                }
            }
            XYSeries line = chart.addSeries(String.format(Locale.ROOT, "%s (p50 %.1f µs, p99 %.1f µs)", names.get(i),
                    h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3), x, y);
            line.setMarker(SeriesMarkers.NONE);
            series++;
        }
        if (series == 0) {
            Log.info("no latencies to chart; " + file + " not written");
            return;
        }
        try {
            Path dir = file.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            Log.info("latency chart written to " + file);
        } catch (IOException e) {
            throw new PerfException("cannot write the chart " + file + ": " + e.getMessage(), e);
        }
    }
}
