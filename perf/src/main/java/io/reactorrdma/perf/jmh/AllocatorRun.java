package io.reactorrdma.perf.jmh;

import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.jmh.AllocatorReport.Cell;
import io.reactorrdma.perf.measure.HostLoad;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The measurement of {@code allocator-report}: every cell of the matrix ({@link AllocatorReportOptions}) in its own JMH
 * forks through JMH's Java API, after waiting for the machine to go idle, again when other processes disturbed it;
 * {@link AllocatorReport} writes the tables and charts of the cells.
 */
final class AllocatorRun {

    private AllocatorRun() {
    }

    static List<Cell> measure(AllocatorReportOptions o) throws RunnerException, IOException {
        int total = o.allocators.size() * o.workloads.size() * o.threads.size();
        double perCell = o.forks * (o.warmupIterations * o.warmupMillis / 1000.0
                + o.measurementIterations * o.measurementMillis / 1000.0 + 2.5);
        Log.info(String.format(Locale.ROOT, "%d cells, %d fork(s) each of %d x %d ms warm-up + %d x %d ms measured: about %.1f min "
                        + "(plus waits for other processes)",
                total, o.forks, o.warmupIterations, o.warmupMillis, o.measurementIterations, o.measurementMillis, total * perCell / 60));
        Path peaks = Files.createTempFile("allocator-peaks", ".txt");
        List<Cell> cells = new ArrayList<>();
        int n = 0;
        long start = System.nanoTime();
        try {
            for (String w : o.workloads) {
                for (int t : o.threads) {
                    for (String a : o.allocators) {
                        n++;
                        Cell best = null;
                        for (int attempt = 0; attempt <= o.retries; attempt++) {
                            waitForIdle(o);
                            Cell c = null;
                            long lockDeadline = System.nanoTime() + Math.max(60, o.waitIdleSeconds) * 1_000_000_000L;
                            while (c == null) {
                                try {
                                    c = measureCell(o, a, w, t, peaks);
                                } catch (RunnerException e) {
                                    String why = rootMessage(e);
                                    if (why.contains("JMH lock") && System.nanoTime() < lockDeadline) {
                                        // another JMH run (someone else's) holds /tmp/jmh.lock: never measure alongside it
                                        Log.info("another JMH instance is running; waiting for it");
                                        sleep(10_000);
                                        waitForIdle(o);
                                        continue;
                                    }
                                    // one cell failing (e.g. an allocator running out of direct memory) does not end the matrix
                                    Log.info(a + " " + w + " t=" + t + " failed: " + why);
                                    c = new Cell(a, w, t, Double.NaN, Double.NaN, Double.NaN, Double.NaN, -1, -1, 0, "FAILED: " + why);
                                }
                            }
                            Log.info(String.format(Locale.ROOT,
                                    "[%d/%d %.0fs] %-14s %-5s t=%d  %,12.0f ± %,10.0f ops/s  peak direct %s, own %s;"
                                            + " other processes %.2f cores%s",
                                    n, total, (System.nanoTime() - start) / 1e9, a, w, t, c.opsPerSec(), c.opsError(),
                                    AllocatorReport.mib(c.peakDirectDelta()), AllocatorReport.mib(c.peakOwn()), c.othersCores(),
                                    c.disturbed() ? " (DISTURBED" + (attempt < o.retries ? ": again)" : ")") : ""));
                            if (failed(c)) {
                                best = c;
                                break;
                            }
                            if (best == null || c.othersCores() < best.othersCores()) {
                                best = c;
                            }
                            if (!c.disturbed()) {
                                break;
                            }
                        }
                        cells.add(best);
                        AllocatorReport.write(o.csv, AllocatorReport.csv(cells)); // so far: a killed run keeps what it measured
                    }
                }
            }
        } finally {
            Files.deleteIfExists(peaks);
        }
        return cells;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        String m = e.toString();
        for (int depth = 0; t != null && depth < 10; depth++) {
            if (t.getMessage() != null) {
                m = t.getClass().getSimpleName() + ": " + t.getMessage();
            }
            for (Throwable s : t.getSuppressed()) {
                if (s.getMessage() != null) {
                    return s.getClass().getSimpleName() + ": " + s.getMessage();
                }
            }
            t = t.getCause();
        }
        return m;
    }

    /** Whether the cell ran to the end. */
    static boolean failed(Cell c) {
        return Double.isNaN(c.opsPerSec());
    }

    /** One JMH run of one cell, in its own fork. */
    private static Cell measureCell(AllocatorReportOptions o, String a, String w, int t, Path peaks) throws RunnerException, IOException {
        HostLoad.Reading before = HostLoad.read();
        Files.writeString(peaks, "");
        ChainedOptionsBuilder b = new OptionsBuilder()
                .include("^" + Pattern.quote(AllocatorBenchmark.class.getName()) + "\\.")
                .param("allocator", a)
                .param("workload", w)
                .threads(t)
                .forks(o.forks)
                .warmupIterations(o.warmupIterations)
                .warmupTime(TimeValue.milliseconds(o.warmupMillis))
                .measurementIterations(o.measurementIterations)
                .measurementTime(TimeValue.milliseconds(o.measurementMillis))
                .jvmArgsAppend(jvmArgs(o, peaks))
                .shouldFailOnError(true)
                .verbosity(o.verbose ? VerboseMode.NORMAL : VerboseMode.SILENT);
        for (String p : o.profilers) {
            int colon = p.indexOf(':');
            if (colon < 0) {
                b.addProfiler(p);
            } else {
                b.addProfiler(p.substring(0, colon), p.substring(colon + 1));
            }
        }
        Collection<RunResult> results = new Runner(b.build()).run();
        double others = HostLoad.othersCores(before, HostLoad.read());
        if (results.size() != 1) {
            throw new IllegalStateException("expected one JMH result for " + a + "/" + w + "/" + t + ", got " + results.size());
        }
        RunResult r = results.iterator().next();
        double min = Double.MAX_VALUE;
        double max = 0;
        for (BenchmarkResult br : r.getBenchmarkResults()) {
            for (IterationResult ir : br.getIterationResults()) {
                min = Math.min(min, ir.getPrimaryResult().getScore());
                max = Math.max(max, ir.getPrimaryResult().getScore());
            }
        }
        // one line per fork; the cell's peak is the highest of its forks'
        long peakDirect = -1;
        long peakOwn = -1;
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(peaks)) {
            if (line.isBlank()) {
                continue;
            }
            lines.add(line.trim());
            Map<String, String> f = fields(line.trim());
            peakDirect = Math.max(peakDirect, Long.parseLong(f.getOrDefault("peakDirectDelta", "-1")));
            peakOwn = Math.max(peakOwn, Long.parseLong(f.getOrDefault("peakOwn", "-1")));
        }
        return new Cell(a, w, t, r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError(), min, max,
                peakDirect, peakOwn, others, String.join(" | ", lines));
    }

    private static String[] jvmArgs(AllocatorReportOptions o, Path peaks) {
        List<String> args = new ArrayList<>(List.of(AllocatorBenchmark.XMS, AllocatorBenchmark.XMX, AllocatorBenchmark.MAX_DIRECT,
                AllocatorBenchmark.NO_LEAK_DETECTION, "-Dallocbench.out=" + peaks.toAbsolutePath()));
        args.addAll(o.jvmArgs);
        return args.toArray(new String[0]);
    }

    /** Waits until other processes leave the machine (nearly) idle, at most --wait-idle seconds. */
    private static void waitForIdle(AllocatorReportOptions o) {
        if (o.waitIdleSeconds <= 0) {
            return;
        }
        long deadline = System.nanoTime() + o.waitIdleSeconds * 1_000_000_000L;
        boolean said = false;
        while (true) {
            double others = HostLoad.sampleOthers(1000);
            if (others < 0 || others <= AllocatorReport.DISTURBED_CORES) {
                if (said) {
                    Log.info(String.format(Locale.ROOT, "machine idle again (others %.2f cores)", others));
                }
                return;
            }
            if (System.nanoTime() > deadline) {
                Log.info(String.format(Locale.ROOT, "other processes still use %.2f cores after %d s; measuring anyway (flagged)",
                        others, o.waitIdleSeconds));
                return;
            }
            if (!said) {
                Log.info(String.format(Locale.ROOT, "other processes use %.2f cores; waiting up to %d s for them",
                        others, o.waitIdleSeconds));
                said = true;
            }
        }
    }

    private static Map<String, String> fields(String line) {
        Map<String, String> m = new HashMap<>();
        for (String kv : line.split(" ")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return m;
    }
}
