package io.reactorrdma.perf.report;

import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Transport;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints results as CSV or as a readable table, one line per run as each finishes, and {@code --repeat}'s medians.
 * Every row names its poll mode and its run: {@code 1..N} for a run, {@code median} for the medians of a poll mode's
 * runs, which alone carry the baseline and the median per-run ratios against it.
 */
public final class ResultWriter {

    /** The {@code run} column of a median row. */
    public static final String MEDIAN = "median";

    public static final String CSV_HEADER = csvHeader();

    private static final String TABLE_FORMAT = "%-14s %-14s %-8s %-6s %10s %11s %10s %10s %10s %10s %10s %9s %9s%n";
    private static final String RATIO_FORMAT = "%-14s %-14s %-8s %-6s %10s %11s %10s %10s %10s %10s %10s %9s %9s %11s%n";

    private final PrintStream out;
    private final boolean csv;
    private boolean headerDone;

    public ResultWriter(PrintStream out, boolean csv) {
        this.out = out;
        this.csv = csv;
    }

    /** The CSV's header (once: later calls print nothing), or the table's column headings (again for each poll mode's block). */
    public void header() {
        if (csv) {
            if (headerDone) {
                return;
            }
            out.println(CSV_HEADER);
        } else {
            if (headerDone) {
                out.println();
            }
            List<Object> cells = new ArrayList<>(List.of("scenario", "transport", "poll", "run", "size"));
            for (Figure f : Figure.COLUMNS) {
                cells.add(f.tableName());
            }
            out.printf(Locale.ROOT, TABLE_FORMAT, cells.toArray());
        }
        headerDone = true;
        out.flush();
    }

    /** One run's row: {@code run} is its round, 1-based. */
    public void row(Result r, PollMode poll, int run) {
        double[] figures = new double[Figure.values().length];
        for (Figure f : Figure.values()) {
            figures[f.ordinal()] = f.of(r);
        }
        line(r.scenario().id(), r.transport().id(), poll, Integer.toString(run), r.sizeBytes(), figures, null, null);
    }

    /**
     * A poll mode's medians: as CSV, one {@code median} row per transport with the baseline and the ratio columns; as
     * text, a caption, the median rows and a table of the median per-run ratios against the baseline.
     */
    public void medians(RepeatSummary summary, PollMode poll, int rounds) {
        List<RepeatSummary.Median> medians = summary.medians();
        if (!csv) {
            out.printf(Locale.ROOT, "medians of %d runs, --poll %s; ratios: the median over the runs of each run's figure / %s's "
                    + "(the baseline) in the same round%n", rounds, poll.id(), summary.baseline() == null ? "-" : summary.baseline().id());
        }
        for (RepeatSummary.Median m : medians) {
            if (!csv && m.runs() < rounds) {
                out.printf(Locale.ROOT, "(%s: %d of %d runs succeeded; its medians are of those)%n", m.transport().id(), m.runs(), rounds);
            }
            line(m.scenario().id(), m.transport().id(), poll, MEDIAN, m.sizeBytes(), m.figures(), m.baseline(), m.ratios());
        }
        if (!csv && !medians.isEmpty()) {
            List<Object> head = new ArrayList<>(List.of("ratio to", "transport", "poll", "run", "", ""));
            for (Figure f : Figure.RATIOS) {
                head.add(f.ratioHeading());
            }
            out.printf(Locale.ROOT, RATIO_FORMAT, head.toArray());
            for (RepeatSummary.Median m : medians) {
                List<Object> cells = new ArrayList<>(List.of(m.baseline() == null ? "-" : m.baseline().id(), m.transport().id(),
                        poll.id(), MEDIAN, "", ""));
                for (Figure f : Figure.RATIOS) {
                    String v = f.ratioFormat(m.ratio(f));
                    cells.add(v.isEmpty() ? "-" : v + "x");
                }
                out.printf(Locale.ROOT, RATIO_FORMAT, cells.toArray());
            }
        }
        out.flush();
    }

    private void line(String scenario, String transport, PollMode poll, String run, int size, double[] figures,
                      Transport baseline, double[] ratios) {
        if (csv) {
            List<String> cells = new ArrayList<>(List.of(scenario, transport, Integer.toString(size)));
            for (Figure f : Figure.COLUMNS) {
                cells.add(f.format(figures[f.ordinal()]));
            }
            cells.add(poll.id());
            cells.add(run);
            cells.add(baseline == null ? "" : baseline.id());
            for (Figure f : Figure.RATIOS) {
                cells.add(ratios == null ? "" : f.ratioFormat(ratios[f.ordinal()]));
            }
            out.println(String.join(",", cells));
        } else {
            List<Object> cells = new ArrayList<>(List.of(scenario, transport, poll.id(), run, Integer.toString(size)));
            for (Figure f : Figure.COLUMNS) {
                String v = f.format(figures[f.ordinal()]);
                cells.add(v.isEmpty() ? "-" : v);
            }
            out.printf(Locale.ROOT, TABLE_FORMAT, cells.toArray());
        }
        out.flush();
    }

    private static String csvHeader() {
        List<String> names = new ArrayList<>(List.of("scenario", "transport", "size_bytes"));
        for (Figure f : Figure.COLUMNS) {
            names.add(f.csvName());
        }
        names.addAll(List.of("poll", "run", "baseline"));
        for (Figure f : Figure.RATIOS) {
            names.add(f.ratioName());
        }
        return String.join(",", names);
    }
}
