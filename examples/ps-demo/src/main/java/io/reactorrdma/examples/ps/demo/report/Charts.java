package io.reactorrdma.examples.ps.demo.report;

import io.reactorrdma.examples.ps.demo.measure.MemorySampler;
import io.reactorrdma.examples.ps.demo.measure.Timeline;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The report's PNG charts, drawn headless with XChart. */
public final class Charts {

    /** Chart size in pixels: 1000 x 560. */
    public static final int DEFAULT_WIDTH = 1000;
    /** Chart height in pixels. */
    public static final int DEFAULT_HEIGHT = 560;
    /** Points per halving of the distance to 100 % in the CDF (HdrHistogram's percentile iteration). */
    private static final int TICKS_PER_HALF_DISTANCE = 5;

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {
    }

    /** The fetch latency CDF, one line per transport: x = latency (ms, log), y = fraction of fetches at or below it (%). */
    public static void fetchCdf(Path file, Map<String, Histogram> byTransport) {
        XYChart chart = xy("Fetch latency CDF (whole fan-out to every shard)", "fetch latency, ms (log scale)", "fetches at or below, %");
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisMax(100.0);
        chart.getStyler().setYAxisMin(0.0);
        for (Map.Entry<String, Histogram> e : byTransport.entrySet()) {
            Histogram h = e.getValue();
            if (h.getTotalCount() == 0) {
                continue;
            }
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (HistogramIterationValue v : h.percentiles(TICKS_PER_HALF_DISTANCE)) {
                x.add(Math.max(0.001, h.highestEquivalentValue(v.getValueIteratedTo()) / 1e6));
                y.add(v.getPercentileLevelIteratedTo());
                if (v.getPercentileLevelIteratedTo() >= 100.0) {
                    break;
                }
            }
            line(chart.addSeries(String.format(java.util.Locale.ROOT, "%s (p50 %.2f ms, p99 %.2f ms)", e.getKey(),
                    h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6), x, y));
        }
        save(chart, file);
    }

    /** Push latency p50 and p99 per training arm (window on, window off, TCP), as bars. */
    public static void pushLatency(Path file, Map<String, Histogram> byArm) {
        CategoryChart chart = new CategoryChartBuilder().width(DEFAULT_WIDTH).height(DEFAULT_HEIGHT)
                .title("Push latency (send to ack) per training arm").xAxisTitle("arm").yAxisTitle("push latency, ms").build();
        style(chart);
        List<String> arms = new ArrayList<>(byArm.keySet());
        List<Double> p50 = new ArrayList<>();
        List<Double> p99 = new ArrayList<>();
        for (Histogram h : byArm.values()) {
            p50.add(h.getValueAtPercentile(50) / 1e6);
            p99.add(h.getValueAtPercentile(99) / 1e6);
        }
        chart.addSeries("p50", arms, p50);
        chart.addSeries("p99", arms, p99);
        save(chart, file);
    }

    /** User requests answered per second and their mean latency in 100 ms buckets, with the kill and the restart marked. */
    public static void recoveryTimeline(Path file, Timeline t) {
        XYChart chart = xy("User requests around the kill (100 ms buckets)", "seconds since the recovery run began",
                "user requests answered per second");
        int n = t.buckets();
        List<Double> at = new ArrayList<>();
        List<Double> rate = new ArrayList<>();
        List<Double> latAt = new ArrayList<>();
        List<Double> lat = new ArrayList<>();
        double maxRate = 1;
        for (int i = 0; i < n; i++) {
            at.add(t.at(i));
            rate.add(t.rate(i));
            maxRate = Math.max(maxRate, t.rate(i));
            double m = t.meanMillis(i);
            if (!Double.isNaN(m)) {
                latAt.add(t.at(i));
                lat.add(m);
            }
        }
        if (at.isEmpty()) {
            at.add(0.0);
            rate.add(0.0);
        }
        line(chart.addSeries("requests/s", at, rate));
        if (!lat.isEmpty()) {
            XYSeries s = chart.addSeries("mean latency, ms (right axis)", latAt, lat);
            line(s);
            s.setYAxisGroup(1);
            chart.setYAxisGroupTitle(1, "mean user-request latency, ms");
            chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        }
        for (Timeline.Mark m : t.marks()) {
            line(chart.addSeries(m.label(), List.of(m.seconds(), m.seconds()), List.of(0.0, maxRate)));
        }
        save(chart, file);
    }

    /** Registered memory of the demo JVM over the whole run, with where each phase began (the paper's Figure 5). */
    public static void registeredMemory(Path file, List<MemorySampler.Sample> samples, List<MemorySampler.Phase> phases) {
        XYChart chart = xy("Registered memory of the demo JVM (client side), sampled every 100 ms", "seconds since the demo began",
                "registered bytes, MiB");
        List<Double> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        double max = 1;
        for (MemorySampler.Sample s : samples) {
            x.add(s.seconds());
            y.add(s.bytes() / 1048576.0);
            max = Math.max(max, s.bytes() / 1048576.0);
        }
        if (x.isEmpty()) {
            x.add(0.0);
            y.add(0.0);
        }
        line(chart.addSeries("registered", x, y));
        Map<String, Integer> seen = new LinkedHashMap<>();
        for (MemorySampler.Phase p : phases) {
            String name = seen.merge(p.name(), 1, Integer::sum) == 1 ? p.name() : p.name() + " (" + seen.get(p.name()) + ")";
            line(chart.addSeries("start: " + name, List.of(p.seconds(), p.seconds()), List.of(0.0, max)));
        }
        save(chart, file);
    }

    private static XYChart xy(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder().width(DEFAULT_WIDTH).height(DEFAULT_HEIGHT).title(title)
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        style(chart);
        return chart;
    }

    private static void style(Chart<?, ?> chart) {
        Styler s = chart.getStyler();
        s.setLegendPosition(Styler.LegendPosition.OutsideS);
        s.setChartBackgroundColor(Color.WHITE);
    }

    private static XYSeries line(XYSeries s) {
        s.setMarker(SeriesMarkers.NONE);
        return s;
    }

    private static void save(Chart<?, ?> chart, Path file) {
        try {
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the chart " + file + ": " + e.getMessage(), e);
        }
    }
}
