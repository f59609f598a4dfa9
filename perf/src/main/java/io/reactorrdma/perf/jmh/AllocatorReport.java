package io.reactorrdma.perf.jmh;

import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.tools.cli.UsageException;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;
import org.openjdk.jmh.runner.RunnerException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code java -jar reactor-rdma-perf.jar allocator-report [--quick] [options]}: reads its options
 * ({@link AllocatorReportOptions}), has {@link AllocatorRun} measure {@link AllocatorBenchmark} over the whole matrix
 * (allocators × workloads × thread counts, each cell in its own JMH forks), then prints markdown tables of ops/s and
 * peak memory with the registered / netty-pooled ratios against the targets, writes them (and a CSV of every figure)
 * to files, and draws the charts with XChart.
 */
public final class AllocatorReport {

    static final String BASELINE = "netty-pooled";
    static final String SUBJECT = "registered";
    /** Targets: registered ops/s at least this times netty-pooled's, peak memory at most this times. */
    static final double TARGET_OPS_RATIO = 1.0;
    static final double TARGET_PEAK_RATIO = 1.5;

    private AllocatorReport() {
    }

    /** One cell of the matrix. */
    record Cell(String allocator, String workload, int threads, double opsPerSec, double opsError, double minIteration,
                double maxIteration, long peakDirectDelta, long peakOwn, double othersCores, String raw) {

        /** Whether the rest of the machine took enough CPU during the cell to disturb it. */
        boolean disturbed() {
            return othersCores > DISTURBED_CORES;
        }
    }

    /** Average cores other processes may use during a cell before it is flagged (the box has 2). */
    static final double DISTURBED_CORES = 0.15;

    /** Entry point from {@code PerfMain}; returns the exit status. */
    public static int run(String[] args) {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            System.out.print(AllocatorReportOptions.help());
            return ExitStatus.OK;
        }
        AllocatorReportOptions o;
        try {
            o = AllocatorReportOptions.parse(args);
        } catch (UsageException e) {
            System.err.println("error: " + e.getMessage());
            return ExitStatus.USAGE;
        }
        System.setProperty("java.awt.headless", "true");
        try {
            List<Cell> cells = AllocatorRun.measure(o);
            String md = markdown(cells, o);
            System.out.println(md);
            write(o.table, md);
            write(o.csv, csv(cells));
            Files.createDirectories(o.images);
            Path throughput = o.images.resolve("allocator-throughput.png");
            Path peak = o.images.resolve("allocator-peak-memory.png");
            charts(cells, o, throughput, peak);
            Log.info("wrote " + o.table + ", " + o.csv + ", " + throughput + ", " + peak);
            return ExitStatus.OK;
        } catch (RunnerException | IOException | RuntimeException e) {
            Log.failure("allocator-report failed", e);
            return ExitStatus.FAILED;
        }
    }

    static void write(Path file, String text) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    static Cell find(List<Cell> cells, String a, String w, int t) {
        for (Cell c : cells) {
            if (c.allocator.equals(a) && c.workload.equals(w) && c.threads == t) {
                return c;
            }
        }
        return null;
    }

    static String markdown(List<Cell> cells, AllocatorReportOptions o) {
        StringBuilder sb = new StringBuilder();
        String nl = System.lineSeparator();
        sb.append(String.format(Locale.ROOT, "JMH: %d fork(s) per cell, each %d x %d ms warm-up, %d x %d ms measured; "
                        + "ops/s = allocations (each with one free) per second, summed over threads; "
                        + "± is JMH's 99.9%% confidence half-width (Student t over the measured iterations).%s",
                o.forks, o.warmupIterations, o.warmupMillis, o.measurementIterations, o.measurementMillis, nl));
        long disturbed = cells.stream().filter(Cell::disturbed).count();
        double maxOthers = cells.stream().mapToDouble(Cell::othersCores).max().orElse(-1);
        sb.append(String.format(Locale.ROOT, "Other processes on the machine: at most %.2f cores on average during any cell; "
                + "%d of %d cells above %.2f cores (flagged ⚠).%s%s", maxOthers, disturbed, cells.size(), DISTURBED_CORES, nl, nl));
        for (String w : o.workloads) {
            sb.append("### Throughput, ").append(w).append(" workload (Mops/s)").append(nl).append(nl);
            header(sb, o, nl);
            for (String a : o.allocators) {
                sb.append("| ").append(a).append(" |");
                for (int t : o.threads) {
                    Cell c = find(cells, a, w, t);
                    sb.append(c == null ? " – |" : AllocatorRun.failed(c) ? " failed† |" : String.format(Locale.ROOT, " %.2f ± %.2f%s |",
                            c.opsPerSec / 1e6, c.opsError / 1e6, c.disturbed() ? " ⚠" : ""));
                }
                sb.append(nl);
            }
            if (o.allocators.contains(SUBJECT) && o.allocators.contains(BASELINE)) {
                sb.append("| **").append(SUBJECT).append(" / ").append(BASELINE).append("** (target ≥ ")
                        .append(fmt(TARGET_OPS_RATIO)).append(") |");
                for (int t : o.threads) {
                    Cell s = find(cells, SUBJECT, w, t);
                    Cell b = find(cells, BASELINE, w, t);
                    if (s == null || b == null || AllocatorRun.failed(s) || AllocatorRun.failed(b)) {
                        sb.append(" – |");
                    } else {
                        double ratio = s.opsPerSec / b.opsPerSec;
                        sb.append(String.format(Locale.ROOT, " **%.2f×** %s |", ratio, ratio >= TARGET_OPS_RATIO ? "✅" : "❌"));
                    }
                }
                sb.append(nl);
                sb.append("| ").append(SUBJECT).append("'s slowest iteration / ").append(BASELINE).append("'s fastest |");
                for (int t : o.threads) {
                    Cell s = find(cells, SUBJECT, w, t);
                    Cell b = find(cells, BASELINE, w, t);
                    sb.append(s == null || b == null || AllocatorRun.failed(s) || AllocatorRun.failed(b) || b.maxIteration <= 0 ? " – |"
                            : String.format(Locale.ROOT, " %.2f× |", s.minIteration / b.maxIteration));
                }
                sb.append(nl);
            }
            sb.append(nl);
        }
        for (String w : o.workloads) {
            sb.append("### Peak memory, ").append(w).append(" workload (MiB)").append(nl).append(nl);
            sb.append("Highest of the cell's forks. registered: peakRegisteredBytes (exact, kept by the allocator); the others: peak of "
                    + "the JDK's direct-memory pool minus its value at setup, sampled every 1 ms. In brackets the cross-check: "
                    + "registered's direct-memory pool peak (which also counts deregistered loopback blocks the GC has not yet "
                    + "freed), the Netty allocators' own usedDirectMemory peak.").append(nl).append(nl);
            header(sb, o, nl);
            for (String a : o.allocators) {
                sb.append("| ").append(a).append(" |");
                for (int t : o.threads) {
                    Cell c = find(cells, a, w, t);
                    if (c == null) {
                        sb.append(" – |");
                    } else if (AllocatorRun.failed(c)) {
                        sb.append(" failed† |");
                    } else {
                        long cross = a.equals(SUBJECT) ? c.peakDirectDelta : c.peakOwn;
                        sb.append(String.format(Locale.ROOT, " %.1f", primaryPeak(c) / 1048576.0));
                        sb.append(cross >= 0 ? String.format(Locale.ROOT, " (%.1f)", cross / 1048576.0) : "").append(" |");
                    }
                }
                sb.append(nl);
            }
            if (o.allocators.contains(SUBJECT) && o.allocators.contains(BASELINE)) {
                sb.append("| **").append(SUBJECT).append(" / ").append(BASELINE)
                        .append("** (brackets: direct pool / direct pool) (target ≤ ")
                        .append(fmt(TARGET_PEAK_RATIO)).append(") |");
                for (int t : o.threads) {
                    Cell s = find(cells, SUBJECT, w, t);
                    Cell b = find(cells, BASELINE, w, t);
                    if (s == null || b == null || AllocatorRun.failed(s) || AllocatorRun.failed(b) || primaryPeak(b) <= 0) {
                        sb.append(" – |");
                    } else {
                        double ratio = (double) primaryPeak(s) / primaryPeak(b);
                        String both = b.peakDirectDelta > 0
                                ? String.format(Locale.ROOT, " (%.2f×)", (double) s.peakDirectDelta / b.peakDirectDelta) : "";
                        sb.append(String.format(Locale.ROOT, " **%.2f×**%s %s |", ratio, both, ratio <= TARGET_PEAK_RATIO ? "✅" : "❌"));
                    }
                }
                sb.append(nl);
            }
            sb.append(nl);
        }
        for (Cell c : cells) {
            if (AllocatorRun.failed(c)) {
                sb.append("† ").append(c.allocator).append(", ").append(c.workload).append(", ").append(c.threads)
                        .append(c.threads == 1 ? " thread: " : " threads: ").append(c.raw).append(nl);
            }
        }
        return sb.toString();
    }

    /** The peak figure compared: registered's exact peakRegisteredBytes, the others' direct-pool peak delta. */
    static long primaryPeak(Cell c) {
        return c.allocator.equals(SUBJECT) && c.peakOwn >= 0 ? c.peakOwn : c.peakDirectDelta;
    }

    private static void header(StringBuilder sb, AllocatorReportOptions o, String nl) {
        sb.append("| allocator |");
        for (int t : o.threads) {
            sb.append(" ").append(t).append(t == 1 ? " thread |" : " threads |");
        }
        sb.append(nl).append("|---|");
        for (int ignored : o.threads) {
            sb.append("---:|");
        }
        sb.append(nl);
    }

    private static String fmt(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }

    static String csv(List<Cell> cells) {
        StringBuilder sb = new StringBuilder("allocator,workload,threads,ops_per_s,ops_error_999,min_iteration_ops_per_s,"
                + "max_iteration_ops_per_s,peak_direct_delta_bytes,peak_own_bytes,others_cores,raw\n");
        for (Cell c : cells) {
            sb.append(String.format(Locale.ROOT, "%s,%s,%d,%.1f,%.1f,%.1f,%.1f,%d,%d,%.3f,\"%s\"%n", c.allocator, c.workload, c.threads,
                    c.opsPerSec, c.opsError, c.minIteration, c.maxIteration, c.peakDirectDelta, c.peakOwn, c.othersCores,
                    c.raw.replace("\"", "'")));
        }
        return sb.toString();
    }

    static void charts(List<Cell> cells, AllocatorReportOptions o, Path throughput, Path peak) throws IOException {
        List<CategoryChart> ops = new ArrayList<>();
        List<CategoryChart> mem = new ArrayList<>();
        List<String> x = new ArrayList<>();
        for (int t : o.threads) {
            x.add(t + (t == 1 ? " thread" : " threads"));
        }
        for (String w : o.workloads) {
            String range = w.equals("small") ? "16 B–16 KiB, uniform" : "64 KiB–1 MiB, exponential dropoff";
            CategoryChart c = chart("Allocation + free throughput, " + w + " (" + range + ")", "JMH threads (2-core machine)",
                    "million ops/s (± 99.9% CI)");
            CategoryChart m = chart("Peak memory, " + w + " (" + range + ")", "JMH threads (2-core machine)",
                    "MiB (registered: peak registered; others: peak direct memory)");
            for (String a : o.allocators) {
                List<Double> y = new ArrayList<>();
                List<Double> err = new ArrayList<>();
                List<Double> mb = new ArrayList<>();
                for (int t : o.threads) {
                    Cell cell = find(cells, a, w, t);
                    boolean none = cell == null || AllocatorRun.failed(cell);
                    y.add(none ? 0.0 : cell.opsPerSec / 1e6);
                    err.add(none || Double.isNaN(cell.opsError) ? 0.0 : cell.opsError / 1e6);
                    mb.add(none ? 0.0 : Math.max(0, primaryPeak(cell)) / 1048576.0);
                }
                c.addSeries(a, x, y, err);
                m.addSeries(a, x, mb);
            }
            ops.add(c);
            mem.add(m);
        }
        BitmapEncoder.saveBitmap(ops, ops.size(), 1, throughput.toString(), BitmapEncoder.BitmapFormat.PNG);
        BitmapEncoder.saveBitmap(mem, mem.size(), 1, peak.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private static CategoryChart chart(String title, String xTitle, String yTitle) {
        CategoryChart c = new CategoryChartBuilder().width(1000).height(480).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setPlotGridVerticalLinesVisible(false);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setErrorBarsColor(java.awt.Color.DARK_GRAY);
        c.getStyler().setYAxisDecimalPattern("#,##0.#");
        return c;
    }
}
