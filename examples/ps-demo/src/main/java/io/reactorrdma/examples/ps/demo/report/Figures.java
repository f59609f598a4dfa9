package io.reactorrdma.examples.ps.demo.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Every figure of a run, one row each: {@code phase,arm,metric,value,unit}; written as {@code figures.csv}. */
public final class Figures {

    /** One figure. */
    public record Figure(String phase, String arm, String metric, double value, String unit) {
    }

    private final List<Figure> rows = new ArrayList<>();

    /** Adds a figure; NaN values (unknown) are written as empty cells. */
    public synchronized void add(String phase, String arm, String metric, double value, String unit) {
        rows.add(new Figure(phase, arm, metric, value, unit));
    }

    /** The figures so far, in the order added. */
    public synchronized List<Figure> all() {
        return List.copyOf(rows);
    }

    /** The value of one figure; NaN when absent. */
    public synchronized double value(String phase, String arm, String metric) {
        for (Figure f : rows) {
            if (f.phase.equals(phase) && f.arm.equals(arm) && f.metric.equals(metric)) {
                return f.value;
            }
        }
        return Double.NaN;
    }

    /** Writes the CSV (header line first). */
    public synchronized void write(Path file) {
        StringBuilder sb = new StringBuilder("phase,arm,metric,value,unit\n");
        for (Figure f : rows) {
            sb.append(cell(f.phase)).append(',').append(cell(f.arm)).append(',').append(cell(f.metric)).append(',')
                    .append(Double.isNaN(f.value) ? "" : number(f.value)).append(',').append(cell(f.unit)).append('\n');
        }
        try {
            Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.6g", v);
    }

    private static String cell(String s) {
        return s.contains(",") || s.contains("\"") ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }
}
