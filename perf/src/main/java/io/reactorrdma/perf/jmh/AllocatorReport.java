package io.reactorrdma.perf.jmh;

import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.tools.cli.UsageException;
import io.reactorrdma.perf.measure.HostLoad;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code java -jar reactor-rdma-perf.jar allocator-report [--quick] [options]}: runs
 * {@link AllocatorBenchmark} over the whole matrix (allocators × workloads × thread counts, each
 * cell in its own JMH forks) through JMH's Java API, then prints markdown tables of ops/s and peak memory with
 * the registered / netty-pooled ratios against the targets, writes them (and a CSV of every figure)
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

    static final class Options {
        List<String> allocators = AllocatorSubject.KINDS;
        List<String> workloads = List.of("small", "large");
        List<Integer> threads = List.of(1, 2, 4, 8);
        /* Throughput keeps climbing for about 4 s of a fresh fork on the 2-core box (C2 compiling the
           inlined allocate/free paths while the pools fill): 4 warm-up seconds. Two forks per cell:
           the same cell differs by up to 2x from one fork to the next (JIT decisions), more than
           between iterations of one fork, so one fork is not enough. 40 cells x 2 x ~9.5 s: ~13 min. */
        int forks = 2;
        int warmupIterations = 4;
        long warmupMillis = 1000;
        int measurementIterations = 3;
        long measurementMillis = 1000;
        Path images = Path.of("docs", "images");
        /** perf/target when run from the repository root (where docs/images is), else target. */
        Path table = outDir().resolve("allocator-report.md");
        Path csv = outDir().resolve("allocator-report.csv");
        boolean verbose;
        boolean quick;
        /** Seconds to wait, before each cell, for the rest of the machine to go idle; 0: do not wait. */
        int waitIdleSeconds = 180;
        /** Extra JVM flags for every fork (e.g. -Dallocbench.registered.retainedBytes=...). */
        List<String> jvmArgs = new ArrayList<>();
        /** JMH profilers ("gc", "stack:lines=3", ...); their output shows with --verbose. */
        List<String> profilers = new ArrayList<>();
        /** Extra attempts for a cell that other processes disturbed; the least disturbed attempt is kept. */
        int retries = 2;
    }

    private static Path outDir() {
        return Files.isDirectory(Path.of("perf")) ? Path.of("perf", "target") : Path.of("target");
    }

    static String help() {
        return String.join(System.lineSeparator(),
                "usage: java -jar reactor-rdma-perf.jar allocator-report [--quick] [options]",
                "",
                "Runs the AllocatorBenchmark matrix (each cell in its own JMH forks), prints markdown tables of ops/s and peak",
                "memory with the registered / netty-pooled ratios, writes charts and data files.",
                "",
                "  --quick             smoke run: 1 fork, 1 x 200 ms warm-up, 2 x 300 ms measured per cell",
                "                      (default: 2 forks, each 4 x 1 s warm-up, 3 x 1 s measured)",
                "  --forks N           JMH forks per cell (default 2)",
                "  --allocators LIST   default " + String.join(",", AllocatorSubject.KINDS) + " (also: "
                        + String.join(",", AllocatorSubject.EXTRA_KINDS) + ")",
                "  --workloads LIST    default small,large",
                "  --threads LIST      default 1,2,4,8",
                "  --warmup N:MS       warm-up iterations and milliseconds each",
                "  --measure N:MS      measured iterations and milliseconds each",
                "  --images DIR        where allocator-throughput.png and allocator-peak-memory.png go (default docs/images)",
                "  --table FILE        markdown tables (default perf/target/allocator-report.md from the repository root)",
                "  --csv FILE          every figure, one line per cell (default perf/target/allocator-report.csv)",
                "  --wait-idle SECS    before each cell, wait up to SECS (default 180; 0: no wait) until other processes use",
                "                      under " + DISTURBED_CORES + " cores; cells they disturbed anyway are flagged ⚠ in the tables",
                "  --retries N         run a disturbed cell again, up to N more times (default 2), keeping the least disturbed",
                "  --jvm-arg ARG       one more flag for every fork (repeatable), e.g. -Dallocbench.registered.retainedBytes=268435456",
                "  --prof NAME[:OPTS]  a JMH profiler for every cell (repeatable), e.g. gc; its output shows with --verbose",
                "  --verbose           JMH's own output for every cell");
    }

    static Options parse(String[] args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                v = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            switch (a) {
                case "--quick":
                    o.quick = true;
                    o.forks = 1;
                    o.warmupIterations = 1;
                    o.warmupMillis = 200;
                    o.measurementIterations = 2;
                    o.measurementMillis = 300;
                    break;
                case "--verbose":
                    o.verbose = true;
                    break;
                case "--allocators":
                case "--workloads":
                case "--threads":
                case "--warmup":
                case "--measure":
                case "--images":
                case "--table":
                case "--csv":
                case "--wait-idle":
                case "--retries":
                case "--jvm-arg":
                case "--prof":
                case "--forks":
                    if (v == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException(a + " needs a value; see --help");
                        }
                        v = args[++i];
                    }
                    apply(o, a, v);
                    break;
                default:
                    throw new UsageException("unknown option '" + args[i] + "'; see --help");
            }
        }
        return o;
    }

    private static void apply(Options o, String name, String v) {
        switch (name) {
            case "--allocators":
                o.allocators = list(v);
                for (String k : o.allocators) {
                    if (!AllocatorSubject.KINDS.contains(k) && !AllocatorSubject.EXTRA_KINDS.contains(k)) {
                        throw new UsageException("unknown allocator '" + k + "'; use " + AllocatorSubject.allKinds());
                    }
                }
                break;
            case "--workloads":
                o.workloads = list(v);
                for (String w : o.workloads) {
                    if (!w.equals("small") && !w.equals("large")) {
                        throw new UsageException("unknown workload '" + w + "'; use small, large");
                    }
                }
                break;
            case "--threads":
                List<Integer> t = new ArrayList<>();
                for (String s : list(v)) {
                    try {
                        int n = Integer.parseInt(s);
                        if (n < 1 || n > 256) {
                            throw new NumberFormatException();
                        }
                        t.add(n);
                    } catch (NumberFormatException e) {
                        throw new UsageException("--threads takes thread counts 1..256, got '" + s + "'");
                    }
                }
                o.threads = t;
                break;
            case "--warmup":
            case "--measure":
                String[] p = v.split(":");
                try {
                    int n = Integer.parseInt(p[0]);
                    long ms = Long.parseLong(p[1]);
                    if (p.length != 2 || n < (name.equals("--warmup") ? 0 : 1) || ms < 1) {
                        throw new NumberFormatException();
                    }
                    if (name.equals("--warmup")) {
                        o.warmupIterations = n;
                        o.warmupMillis = ms;
                    } else {
                        o.measurementIterations = n;
                        o.measurementMillis = ms;
                    }
                } catch (RuntimeException e) {
                    throw new UsageException(name + " takes ITERATIONS:MILLIS, e.g. 3:1000; got '" + v + "'");
                }
                break;
            case "--images":
                o.images = Path.of(v);
                break;
            case "--table":
                o.table = Path.of(v);
                break;
            case "--csv":
                o.csv = Path.of(v);
                break;
            case "--jvm-arg":
                o.jvmArgs.add(v);
                break;
            case "--forks":
                try {
                    o.forks = Integer.parseInt(v);
                    if (o.forks < 1) {
                        throw new NumberFormatException();
                    }
                } catch (NumberFormatException e) {
                    throw new UsageException("--forks takes a count ≥ 1, got '" + v + "'");
                }
                break;
            case "--prof":
                o.profilers.add(v);
                break;
            case "--retries":
                try {
                    o.retries = Integer.parseInt(v);
                    if (o.retries < 0) {
                        throw new NumberFormatException();
                    }
                } catch (NumberFormatException e) {
                    throw new UsageException("--retries takes a count ≥ 0, got '" + v + "'");
                }
                break;
            case "--wait-idle":
                try {
                    o.waitIdleSeconds = Integer.parseInt(v);
                    if (o.waitIdleSeconds < 0) {
                        throw new NumberFormatException();
                    }
                } catch (NumberFormatException e) {
                    throw new UsageException("--wait-idle takes seconds ≥ 0, got '" + v + "'");
                }
                break;
            default:
                throw new IllegalStateException(name);
        }
    }

    private static List<String> list(String v) {
        List<String> out = new ArrayList<>();
        for (String s : v.split(",")) {
            if (!s.isBlank() && !out.contains(s.trim())) {
                out.add(s.trim());
            }
        }
        if (out.isEmpty()) {
            throw new UsageException("empty list '" + v + "'");
        }
        return out;
    }

    /** Entry point from {@code PerfMain}; returns the exit status. */
    public static int run(String[] args) {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            System.out.println(help());
            return ExitStatus.OK;
        }
        Options o;
        try {
            o = parse(args);
        } catch (UsageException e) {
            System.err.println("error: " + e.getMessage());
            return ExitStatus.USAGE;
        }
        System.setProperty("java.awt.headless", "true");
        try {
            List<Cell> cells = measure(o);
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
            Log.info("allocator-report failed: " + e);
            e.printStackTrace();
            return ExitStatus.FAILED;
        }
    }

    private static void write(Path file, String text) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    static List<Cell> measure(Options o) throws RunnerException, IOException {
        int total = o.allocators.size() * o.workloads.size() * o.threads.size();
        double perCell = o.forks * (o.warmupIterations * o.warmupMillis / 1000.0 + o.measurementIterations * o.measurementMillis / 1000.0 + 2.5);
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
                            Log.info(String.format(Locale.ROOT, "[%d/%d %.0fs] %-14s %-5s t=%d  %,12.0f ± %,10.0f ops/s  peak direct %s, own %s;"
                                            + " other processes %.2f cores%s",
                                    n, total, (System.nanoTime() - start) / 1e9, a, w, t, c.opsPerSec, c.opsError,
                                    mib(c.peakDirectDelta), mib(c.peakOwn), c.othersCores,
                                    c.disturbed() ? " (DISTURBED" + (attempt < o.retries ? ": again)" : ")") : ""));
                            if (failed(c)) {
                                best = c;
                                break;
                            }
                            if (best == null || c.othersCores < best.othersCores) {
                                best = c;
                            }
                            if (!c.disturbed()) {
                                break;
                            }
                        }
                        cells.add(best);
                        write(o.csv, csv(cells)); // so far: a killed run keeps what it measured
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
        return Double.isNaN(c.opsPerSec);
    }

    /** One JMH run of one cell, in its own fork. */
    private static Cell measureCell(Options o, String a, String w, int t, Path peaks) throws RunnerException, IOException {
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

    private static String[] jvmArgs(Options o, Path peaks) {
        List<String> args = new ArrayList<>(List.of(AllocatorBenchmark.XMS, AllocatorBenchmark.XMX, AllocatorBenchmark.MAX_DIRECT,
                AllocatorBenchmark.NO_LEAK_DETECTION, "-Dallocbench.out=" + peaks.toAbsolutePath()));
        args.addAll(o.jvmArgs);
        return args.toArray(new String[0]);
    }

    /** Waits until other processes leave the machine (nearly) idle, at most --wait-idle seconds. */
    private static void waitForIdle(Options o) {
        if (o.waitIdleSeconds <= 0) {
            return;
        }
        long deadline = System.nanoTime() + o.waitIdleSeconds * 1_000_000_000L;
        boolean said = false;
        while (true) {
            double others = HostLoad.sampleOthers(1000);
            if (others < 0 || others <= DISTURBED_CORES) {
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
                Log.info(String.format(Locale.ROOT, "other processes use %.2f cores; waiting up to %d s for them", others, o.waitIdleSeconds));
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

    static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    private static Cell find(List<Cell> cells, String a, String w, int t) {
        for (Cell c : cells) {
            if (c.allocator.equals(a) && c.workload.equals(w) && c.threads == t) {
                return c;
            }
        }
        return null;
    }

    static String markdown(List<Cell> cells, Options o) {
        StringBuilder sb = new StringBuilder();
        String nl = System.lineSeparator();
        sb.append(String.format(Locale.ROOT, "JMH: %d fork(s) per cell, each %d x %d ms warm-up, %d x %d ms measured; ops/s = allocations (each with one free) per second, "
                        + "summed over threads; ± is JMH's 99.9%% confidence half-width (Student t over the measured iterations).%s",
                o.forks, o.warmupIterations, o.warmupMillis, o.measurementIterations, o.measurementMillis, nl));
        long disturbed = cells.stream().filter(Cell::disturbed).count();
        double maxOthers = cells.stream().mapToDouble(Cell::othersCores).max().orElse(-1);
        sb.append(String.format(Locale.ROOT, "Other processes on the machine: at most %.2f cores on average during any cell; %d of %d cells "
                + "above %.2f cores (flagged ⚠).%s%s", maxOthers, disturbed, cells.size(), DISTURBED_CORES, nl, nl));
        for (String w : o.workloads) {
            sb.append("### Throughput, ").append(w).append(" workload (Mops/s)").append(nl).append(nl);
            header(sb, o, nl);
            for (String a : o.allocators) {
                sb.append("| ").append(a).append(" |");
                for (int t : o.threads) {
                    Cell c = find(cells, a, w, t);
                    sb.append(c == null ? " – |" : failed(c) ? " failed† |" : String.format(Locale.ROOT, " %.2f ± %.2f%s |",
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
                    if (s == null || b == null || failed(s) || failed(b)) {
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
                    sb.append(s == null || b == null || failed(s) || failed(b) || b.maxIteration <= 0 ? " – |"
                            : String.format(Locale.ROOT, " %.2f× |", s.minIteration / b.maxIteration));
                }
                sb.append(nl);
            }
            sb.append(nl);
        }
        for (String w : o.workloads) {
            sb.append("### Peak memory, ").append(w).append(" workload (MiB)").append(nl).append(nl);
            sb.append("Highest of the cell's forks. registered: peakRegisteredBytes (exact, kept by the allocator); the others: peak of "
                    + "the JDK's direct-memory pool minus its value at setup, sampled every 1 ms. In brackets the cross-check: registered's direct-memory pool "
                    + "peak (which also counts deregistered loopback blocks the GC has not yet freed), the Netty allocators' own "
                    + "usedDirectMemory peak.").append(nl).append(nl);
            header(sb, o, nl);
            for (String a : o.allocators) {
                sb.append("| ").append(a).append(" |");
                for (int t : o.threads) {
                    Cell c = find(cells, a, w, t);
                    if (c == null) {
                        sb.append(" – |");
                    } else if (failed(c)) {
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
                sb.append("| **").append(SUBJECT).append(" / ").append(BASELINE).append("** (brackets: direct pool / direct pool) (target ≤ ")
                        .append(fmt(TARGET_PEAK_RATIO)).append(") |");
                for (int t : o.threads) {
                    Cell s = find(cells, SUBJECT, w, t);
                    Cell b = find(cells, BASELINE, w, t);
                    if (s == null || b == null || failed(s) || failed(b) || primaryPeak(b) <= 0) {
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
            if (failed(c)) {
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

    private static void header(StringBuilder sb, Options o, String nl) {
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

    static void charts(List<Cell> cells, Options o, Path throughput, Path peak) throws IOException {
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
                    boolean none = cell == null || failed(cell);
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
