package io.reactorrdma.incast.report;

import io.reactorrdma.incast.sweep.Arm;
import io.reactorrdma.incast.sweep.ArmResult;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * {@code --chart FILE.png}: two panels, one above the other, against the send window W (KiB, log scale): the p99 push
 * latency, and the PFC pause time summed over every port. The window arms are the line; the PFC-only and the DCQCN
 * arm (no window) are horizontal reference lines across the sweep.
 */
public final class IncastChart {

    /** Each panel's size in pixels; the PNG is one panel wide and two high. */
    public static final int DEFAULT_PANEL_WIDTH = 800;
    public static final int DEFAULT_PANEL_HEIGHT = 340;

    private IncastChart() {
    }

    /**
     * Writes the chart of {@code results} to {@code file}.
     *
     * @throws IllegalArgumentException when no arm has a window (nothing to draw against W)
     * @throws IOException              when the file cannot be written
     */
    public static void write(Path file, String title, List<ArmResult> results) throws IOException {
        List<ArmResult> windows = new ArrayList<>();
        for (ArmResult r : results) {
            if (r.arm().windowed()) {
                windows.add(r);
            }
        }
        if (windows.isEmpty()) {
            throw new IllegalArgumentException("--chart draws the window arms against W, and this sweep ran none; "
                    + "add window to --arms with at least one window size in --window, or leave --chart out");
        }
        System.setProperty("java.awt.headless", "true");
        XYChart latency = panel(title, "p99 push latency, us", windows, results, ArmResult::p99Us);
        XYChart pauses = panel(null, "PFC paused time, all ports, us", windows, results, ArmResult::pausedTotalUs);
        BufferedImage top = BitmapEncoder.getBufferedImage(latency);
        BufferedImage bottom = BitmapEncoder.getBufferedImage(pauses);
        BufferedImage both = new BufferedImage(DEFAULT_PANEL_WIDTH, 2 * DEFAULT_PANEL_HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = both.createGraphics();
        try {
            g.drawImage(top, 0, 0, null);
            g.drawImage(bottom, 0, DEFAULT_PANEL_HEIGHT, null);
        } finally {
            g.dispose();
        }
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        if (!ImageIO.write(both, "png", file.toFile())) {
            throw new IOException("no PNG writer in this JVM");
        }
    }

    private static XYChart panel(String title, String yTitle, List<ArmResult> windows, List<ArmResult> all,
                                 ToDoubleFunction<ArmResult> y) {
        XYChart chart = new XYChartBuilder().width(DEFAULT_PANEL_WIDTH).height(DEFAULT_PANEL_HEIGHT)
                .title(title == null ? "" : title).xAxisTitle("send window W per engine, KiB").yAxisTitle(yTitle).build();
        XYStyler s = chart.getStyler();
        s.setLegendPosition(Styler.LegendPosition.OutsideS);
        s.setChartBackgroundColor(Color.WHITE);
        s.setXAxisLogarithmic(true);
        s.setXAxisDecimalPattern("#,##0");
        s.setYAxisDecimalPattern("#,##0.#");
        s.setChartTitleVisible(title != null);
        List<Double> x = new ArrayList<>();
        List<Double> v = new ArrayList<>();
        for (ArmResult r : windows) {
            x.add(r.arm().windowBytes() / 1024.0);
            v.add(y.applyAsDouble(r));
        }
        XYSeries line = chart.addSeries("DCQCN + window W", x, v);
        line.setMarker(SeriesMarkers.CIRCLE);
        double lo = x.stream().mapToDouble(Double::doubleValue).min().orElse(1);
        double hi = x.stream().mapToDouble(Double::doubleValue).max().orElse(1);
        if (hi == lo) {
            lo /= 2;
            hi *= 2;
        }
        for (ArmResult r : all) {
            if (r.arm().kind() == Arm.Kind.WINDOW) {
                continue;
            }
            double level = y.applyAsDouble(r);
            String name = String.format(Locale.ROOT, "%s (%s)", r.arm().kind() == Arm.Kind.PFC ? "PFC only" : "DCQCN, no window",
                    level >= 100 ? String.format(Locale.ROOT, "%,.0f", level) : String.format(Locale.ROOT, "%.1f", level));
            XYSeries ref = chart.addSeries(name, List.of(lo, hi), List.of(level, level));
            ref.setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }
}
