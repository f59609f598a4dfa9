package io.reactorrdma.perf.jmh;

import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of {@code allocator-report} as picocli reads them, and the run's settings they give: the matrix
 * (allocators × workloads × thread counts), JMH's forks and iterations ({@code --quick}'s smoke settings unless given
 * explicitly), where the tables, data and charts go, and how long to wait for an idle machine.
 */
@Command(name = "allocator-report", synopsisHeading = "", sortOptions = false, usageHelpWidth = 120,
        customSynopsis = "usage: java -jar reactor-rdma-perf.jar allocator-report [--quick] [options]",
        description = {"",
                "Runs the AllocatorBenchmark matrix (each cell in its own JMH forks), prints markdown tables of ops/s and peak",
                "memory with the registered / netty-pooled ratios, writes charts and data files.", ""})
final class AllocatorReportOptions {

    /** JMH iterations and their length. */
    record Phase(int iterations, long millis) {
    }

    @Option(names = {"-h", "--help"}, usageHelp = true, order = 99, description = "this text")
    boolean help;

    @Option(names = "--quick", order = 1, description = {"smoke run: 1 fork, 1 x 200 ms warm-up, 2 x 300 ms measured per cell",
            "(default: 2 forks, each 4 x 1 s warm-up, 3 x 1 s measured)"})
    boolean quick;

    @Option(names = "--forks", paramLabel = "N", order = 2, converter = Forks.class, description = "JMH forks per cell (default 2)")
    Integer forksGiven;

    @Option(names = "--allocators", paramLabel = "LIST", order = 3, converter = Allocators.class,
            description = "default registered,netty-pooled,netty-adaptive,netty-unpooled,jdk-direct (also: netty-pooled-nocache)")
    List<String> allocators = AllocatorSubject.KINDS;

    @Option(names = "--workloads", paramLabel = "LIST", order = 4, converter = Workloads.class, description = "default small,large")
    List<String> workloads = List.of("small", "large");

    @Option(names = "--threads", paramLabel = "LIST", order = 5, converter = Threads.class, description = "default 1,2,4,8")
    List<Integer> threads = List.of(1, 2, 4, 8);

    @Option(names = "--warmup", paramLabel = "N:MS", order = 6, converter = Warmup.class,
            description = "warm-up iterations and milliseconds each")
    Phase warmupGiven;

    @Option(names = "--measure", paramLabel = "N:MS", order = 7, converter = Measure.class,
            description = "measured iterations and milliseconds each")
    Phase measureGiven;

    @Option(names = "--images", paramLabel = "DIR", order = 8,
            description = "where allocator-throughput.png and allocator-peak-memory.png go (default docs/images)")
    Path images = Path.of("docs", "images");

    /** perf/target when run from the repository root (where docs/images is), else target. */
    @Option(names = "--table", paramLabel = "FILE", order = 9,
            description = "markdown tables (default perf/target/allocator-report.md from the repository root)")
    Path table = outDir().resolve("allocator-report.md");

    @Option(names = "--csv", paramLabel = "FILE", order = 10,
            description = "every figure, one line per cell (default perf/target/allocator-report.csv)")
    Path csv = outDir().resolve("allocator-report.csv");

    /** Seconds to wait, before each cell, for the rest of the machine to go idle; 0: do not wait. */
    @Option(names = "--wait-idle", paramLabel = "SECS", order = 11, converter = WaitIdle.class, description = {
            "before each cell, wait up to SECS (default 180; 0: no wait) until other processes use",
            "under " + AllocatorReport.DISTURBED_CORES + " cores; cells they disturbed anyway are flagged ⚠ in the tables"})
    int waitIdleSeconds = 180;

    /** Extra attempts for a cell that other processes disturbed; the least disturbed attempt is kept. */
    @Option(names = "--retries", paramLabel = "N", order = 12, converter = Retries.class,
            description = "run a disturbed cell again, up to N more times (default 2), keeping the least disturbed")
    int retries = 2;

    /** Extra JVM flags for every fork (e.g. -Dallocbench.registered.retainedBytes=...). */
    @Option(names = "--jvm-arg", paramLabel = "ARG", order = 13,
            description = "one more flag for every fork (repeatable), e.g. -Dallocbench.registered.retainedBytes=268435456")
    List<String> jvmArgs = new ArrayList<>();

    /** JMH profilers ("gc", "stack:lines=3", ...); their output shows with --verbose. */
    @Option(names = "--prof", paramLabel = "NAME[:OPTS]", order = 14,
            description = "a JMH profiler for every cell (repeatable), e.g. gc; its output shows with --verbose")
    List<String> profilers = new ArrayList<>();

    @Option(names = "--verbose", order = 15, description = "JMH's own output for every cell")
    boolean verbose;

    /* Throughput keeps climbing for about 4 s of a fresh fork on the 2-core box (C2 compiling the
       inlined allocate/free paths while the pools fill): 4 warm-up seconds. Two forks per cell:
       the same cell differs by up to 2x from one fork to the next (JIT decisions), more than
       between iterations of one fork, so one fork is not enough. 40 cells x 2 x ~9.5 s: ~13 min. */
    int forks = 2;
    int warmupIterations = 4;
    long warmupMillis = 1000;
    int measurementIterations = 3;
    long measurementMillis = 1000;

    private static Path outDir() {
        return Files.isDirectory(Path.of("perf")) ? Path.of("perf", "target") : Path.of("target");
    }

    /**
     * Parses the options after {@code allocator-report}.
     *
     * @throws UsageException saying what is wrong
     */
    static AllocatorReportOptions parse(String[] args) {
        AllocatorReportOptions o = new AllocatorReportOptions();
        try {
            commandLine(o, new PrintStream(OutputStream.nullOutputStream())).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new UsageException(CommandLines.message(e));
        }
        return o.settle();
    }

    /** picocli's command line over {@code o}, printing to {@code out}. */
    static CommandLine commandLine(AllocatorReportOptions o, PrintStream out) {
        return CommandLines.of(o, out, System.err);
    }

    /** The text of {@code allocator-report --help}. */
    static String help() {
        return commandLine(new AllocatorReportOptions(), new PrintStream(OutputStream.nullOutputStream())).getUsageMessage();
    }

    /** Applies {@code --quick}'s settings, then the forks and iterations given explicitly. */
    AllocatorReportOptions settle() {
        if (quick) {
            forks = 1;
            warmupIterations = 1;
            warmupMillis = 200;
            measurementIterations = 2;
            measurementMillis = 300;
        }
        if (forksGiven != null) {
            forks = forksGiven;
        }
        if (warmupGiven != null) {
            warmupIterations = warmupGiven.iterations();
            warmupMillis = warmupGiven.millis();
        }
        if (measureGiven != null) {
            measurementIterations = measureGiven.iterations();
            measurementMillis = measureGiven.millis();
        }
        return this;
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

    private static int atLeast(String name, String v, int min, String what) {
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException(name + " takes " + what + " ≥ " + min + ", got '" + v + "'");
        }
    }

    private static Phase phase(String name, String v, int minIterations) {
        String[] p = v.split(":");
        try {
            int n = Integer.parseInt(p[0]);
            long ms = Long.parseLong(p[1]);
            if (p.length != 2 || n < minIterations || ms < 1) {
                throw new NumberFormatException();
            }
            return new Phase(n, ms);
        } catch (RuntimeException e) {
            throw new UsageException(name + " takes ITERATIONS:MILLIS, e.g. 3:1000; got '" + v + "'");
        }
    }

    static final class Allocators implements ITypeConverter<List<String>> {
        @Override
        public List<String> convert(String v) {
            List<String> kinds = list(v);
            for (String k : kinds) {
                if (!AllocatorSubject.KINDS.contains(k) && !AllocatorSubject.EXTRA_KINDS.contains(k)) {
                    throw new UsageException("unknown allocator '" + k + "'; use " + AllocatorSubject.allKinds());
                }
            }
            return kinds;
        }
    }

    static final class Workloads implements ITypeConverter<List<String>> {
        @Override
        public List<String> convert(String v) {
            List<String> workloads = list(v);
            for (String w : workloads) {
                if (!w.equals("small") && !w.equals("large")) {
                    throw new UsageException("unknown workload '" + w + "'; use small, large");
                }
            }
            return workloads;
        }
    }

    static final class Threads implements ITypeConverter<List<Integer>> {
        @Override
        public List<Integer> convert(String v) {
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
            return t;
        }
    }

    static final class Warmup implements ITypeConverter<Phase> {
        @Override
        public Phase convert(String v) {
            return phase("--warmup", v, 0);
        }
    }

    static final class Measure implements ITypeConverter<Phase> {
        @Override
        public Phase convert(String v) {
            return phase("--measure", v, 1);
        }
    }

    static final class Forks implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String v) {
            return atLeast("--forks", v, 1, "a count");
        }
    }

    static final class Retries implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String v) {
            return atLeast("--retries", v, 0, "a count");
        }
    }

    static final class WaitIdle implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String v) {
            return atLeast("--wait-idle", v, 0, "seconds");
        }
    }
}
