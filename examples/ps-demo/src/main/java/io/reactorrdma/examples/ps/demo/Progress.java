package io.reactorrdma.examples.ps.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * One progress line per phase: on a terminal ({@code System.console() != null}) a bar redrawn in place
 * every {@link #DEFAULT_REDRAW} until the phase ends; otherwise (a pipe, a log, a test) a plain line
 * when the phase starts and one when it ends.
 */
public final class Progress {

    /** How often a terminal's bar is redrawn: 250 ms. */
    public static final Duration DEFAULT_REDRAW = Duration.ofMillis(250);
    private static final int BAR_WIDTH = 20;
    /** The bar's line stays within 80 columns: a wrapped line cannot be redrawn with a carriage return. */
    private static final int BAR_LABEL_WIDTH = 48;

    private final PrintStream out;
    private final boolean bar;
    private final int phases;
    private int phase;

    /** Progress of {@code phases} phases on {@code out}; {@code bar}: redraw a bar in place. */
    public Progress(PrintStream out, boolean bar, int phases) {
        this.out = out;
        this.bar = bar;
        this.phases = phases;
    }

    /** For the console: a bar when there is a terminal. */
    public static Progress console(int phases) {
        return new Progress(System.out, System.console() != null, phases);
    }

    /** Starts the next phase, expected to take about {@code expected}; close the step when it ends. */
    public Step start(String what, Duration expected) {
        phase++;
        return new Step(String.format(Locale.ROOT, "[%d/%d] %s", phase, phases, what), expected);
    }

    /** A line of its own (a note between phases). */
    public void note(String line) {
        synchronized (out) {
            out.println(line);
        }
    }

    /** The phase in progress. */
    public final class Step implements AutoCloseable {
        private final String label;
        private final String barLabel;
        private final long start = System.nanoTime();
        private final long expectedNanos;
        private final Thread redraw;
        private volatile String result = "done";

        private Step(String label, Duration expected) {
            this.label = label;
            int colon = label.indexOf(':');
            String shortLabel = colon > 0 ? label.substring(0, colon) : label;
            this.barLabel = shortLabel.length() > BAR_LABEL_WIDTH ? shortLabel.substring(0, BAR_LABEL_WIDTH) : shortLabel;
            this.expectedNanos = Math.max(1, expected.toNanos());
            if (bar) {
                redraw = new Thread(this::redrawLoop, "ps-demo-progress");
                redraw.setDaemon(true);
                redraw.start();
            } else {
                redraw = null;
                note(label + " (about " + Math.max(1, Math.round(expected.toMillis() / 1000.0)) + " s) ...");
            }
        }

        private void redrawLoop() {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    draw();
                    Thread.sleep(DEFAULT_REDRAW.toMillis());
                }
            } catch (InterruptedException e) {
                // the phase ended
            }
        }

        private void draw() {
            long elapsed = System.nanoTime() - start;
            int filled = (int) Math.min(BAR_WIDTH, BAR_WIDTH * elapsed / expectedNanos);
            synchronized (out) {
                out.print("\r" + barLabel + " [" + "#".repeat(filled) + " ".repeat(BAR_WIDTH - filled) + "] "
                        + String.format(Locale.ROOT, "%.0f s", elapsed / 1e9));
                out.flush();
            }
        }

        /** What the closing line says after the time taken, e.g. "1,234 requests, 0 failed". */
        public void result(String text) {
            this.result = text;
        }

        @Override
        public void close() {
            double seconds = (System.nanoTime() - start) / 1e9;
            if (redraw != null) {
                redraw.interrupt();
                try {
                    redraw.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                synchronized (out) {
                    out.print("\r" + " ".repeat(barLabel.length() + BAR_WIDTH + 12) + "\r");
                }
            }
            note(String.format(Locale.ROOT, "%s: %.1f s, %s", label, seconds, result));
        }
    }
}
