package io.reactorrdma.examples.ps.demo;

import io.reactorrdma.examples.ps.demo.measure.MemorySampler;
import io.reactorrdma.examples.ps.demo.measure.Timeline;
import io.reactorrdma.examples.ps.demo.report.Charts;
import io.reactorrdma.examples.ps.demo.report.Figures;
import io.reactorrdma.examples.ps.demo.report.HostInfo;
import io.reactorrdma.examples.ps.demo.report.MarkdownTable;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The demo's report: the tables (also printed at the end of the run), {@code figures.csv} with every
 * figure, the PNG charts, and {@code report.md} holding the tables, the charts, the command line,
 * the date, the host and the notes that say what the figures do and do not show.
 */
public final class DemoReport {

    /** The paper's inference figures, RDMA against TCP: mean fetch latency change, %. */
    public static final double PAPER_MEAN_CHANGE = -35.7;
    /** The paper's inference p99 fetch latency change, %. */
    public static final double PAPER_P99_CHANGE = -43.7;
    /** The paper's inference CPU change, %. */
    public static final double PAPER_CPU_CHANGE = -10.69;
    /** The paper's training push p99 change with the send window under incast, %. */
    public static final double PAPER_WINDOW_P99_CHANGE = -74.0;

    /** File names in the report directory. */
    public static final String REPORT = "report.md";
    /** The CSV of every figure. */
    public static final String FIGURES = "figures.csv";
    /** Chart: fetch latency CDF RDMA vs TCP. */
    public static final String CHART_FETCH_CDF = "fetch-latency-cdf.png";
    /** Chart: push p50/p99 per training arm. */
    public static final String CHART_PUSH = "push-latency.png";
    /** Chart: requests and latency around the kill. */
    public static final String CHART_RECOVERY = "recovery-timeline.png";
    /** Chart: registered memory over time. */
    public static final String CHART_MEMORY = "registered-memory.png";

    private final DemoOptions options;
    private final HostInfo hostAtStart;
    private final Instant started;
    private final Figures figures = new Figures();
    private final List<InferenceResult> inference = new ArrayList<>();
    private final List<TrainingResult> training = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private RecoveryResult recovery;
    private String recoveryNotRun;
    private String setup = "";

    /** A report of the run with {@code options}, begun now on {@code host}. */
    public DemoReport(DemoOptions options, HostInfo host) {
        this.options = options;
        this.hostAtStart = host;
        this.started = Instant.now();
    }

    /** What was started (shards, sizes, provider), one paragraph. */
    public void setup(String text) {
        this.setup = text;
    }

    /** Adds an inference arm. */
    public void add(InferenceResult r) {
        inference.add(r);
        String arm = r.transport();
        figures.add("inference", arm, "requests", r.requests(), "requests");
        figures.add("inference", arm, "failed", r.failed(), "requests");
        figures.add("inference", arm, "requests_per_second", r.requestsPerSecond(), "1/s");
        figures.add("inference", arm, "fetches", r.fetchNanos().getTotalCount(), "fetches");
        figures.add("inference", arm, "fetch_mean", r.fetchNanos().getMean() / 1e6, "ms");
        figures.add("inference", arm, "fetch_p50", r.fetchNanos().getValueAtPercentile(50) / 1e6, "ms");
        figures.add("inference", arm, "fetch_p99", r.fetchNanos().getValueAtPercentile(99) / 1e6, "ms");
        figures.add("inference", arm, "request_p99", r.requestNanos().getValueAtPercentile(99) / 1e6, "ms");
        figures.add("inference", arm, "fetch_reply_mean", r.fetchNanos().getTotalCount() == 0 ? Double.NaN
                : r.fetchedBytes() / (double) r.fetchNanos().getTotalCount(), "bytes");
        figures.add("inference", arm, "client_cpu_per_request", r.clientCpuMicrosPerRequest(), "us");
        figures.add("inference", arm, "server_cpu_per_request", r.serverCpuMicrosPerRequest(), "us");
        figures.add("inference", arm, "cpu_per_request", r.totalCpuMicrosPerRequest(), "us");
        figures.add("inference", arm, "shard_io_switches", count(r.shardSwitches().io()), "switches");
        figures.add("inference", arm, "shard_switches", count(r.shardSwitches().all()), "switches");
        figures.add("inference", arm, "shard_io_switches_per_fetch", r.shardIoSwitchesPerFetch(), "switches");
        figures.add("inference", arm, "shard_switches_per_fetch", r.shardSwitchesPerFetch(), "switches");
        figures.add("inference", arm, "shard_io_switches_per_request", r.shardIoSwitchesPerRequest(), "switches");
        figures.add("inference", arm, "shard_switches_per_request", r.shardSwitchesPerRequest(), "switches");
        figures.add("inference", arm, "ranker_io_switches", count(r.rankerSwitches().io()), "switches");
        figures.add("inference", arm, "ranker_switches", count(r.rankerSwitches().all()), "switches");
        figures.add("inference", arm, "ranker_io_switches_per_fetch", r.rankerIoSwitchesPerFetch(), "switches");
        figures.add("inference", arm, "ranker_switches_per_request", r.rankerSwitchesPerRequest(), "switches");
    }

    /** A count, or NaN (an empty cell) when unknown (-1). */
    private static double count(long n) {
        return n < 0 ? Double.NaN : n;
    }

    /** Adds a training arm. */
    public void add(TrainingResult r) {
        training.add(r);
        String arm = r.arm();
        figures.add("training", arm, "steps", r.steps(), "steps");
        figures.add("training", arm, "failed", r.failed(), "steps");
        figures.add("training", arm, "steps_per_second", r.stepsPerSecond(), "1/s");
        figures.add("training", arm, "pushes", r.pushNanos().getTotalCount(), "pushes");
        figures.add("training", arm, "push_p50", r.pushNanos().getValueAtPercentile(50) / 1e6, "ms");
        figures.add("training", arm, "push_p99", r.pushNanos().getValueAtPercentile(99) / 1e6, "ms");
        figures.add("training", arm, "push_mean_size", r.pushNanos().getTotalCount() == 0 ? Double.NaN
                : r.pushedBytes() / (double) r.pushNanos().getTotalCount(), "bytes");
        figures.add("training", arm, "send_window", r.windowBytes() == 0 ? Double.NaN : r.windowBytes(), "bytes");
        figures.add("training", arm, "peak_outstanding_per_engine", r.peakWindowBytes() < 0 ? Double.NaN : r.peakWindowBytes(), "bytes");
        figures.add("training", arm, "window_stalls", r.windowStalls() < 0 ? Double.NaN : r.windowStalls(), "turns");
    }

    /** Sets the recovery arm. */
    public void recovery(RecoveryResult r) {
        this.recovery = r;
        figures.add("recovery", "rdma", "requests", r.requests(), "requests");
        figures.add("recovery", "rdma", "failed", r.failed(), "requests");
        figures.add("recovery", "rdma", "time_to_eject", r.ejectMillis() < 0 ? Double.NaN : r.ejectMillis(), "ms");
        figures.add("recovery", "rdma", "down", r.downMillis(), "ms");
        figures.add("recovery", "rdma", "restart_to_serving", r.startMillis(), "ms");
        figures.add("recovery", "rdma", "time_to_return", r.returnMillis() < 0 ? Double.NaN : r.returnMillis(), "ms");
        figures.add("recovery", "rdma", "hedges", r.hedges(), "requests");
        figures.add("recovery", "rdma", "hedges_won", r.hedgesWon(), "requests");
        figures.add("recovery", "rdma", "retries", r.retries(), "requests");
        figures.add("recovery", "rdma", "retry_budget_exhausted", r.budgetExhausted(), "requests");
        figures.add("recovery", "rdma", "ejections", r.ejections(), "ejections");
    }

    /** The recovery phase was not run, and why. */
    public void recoveryNotRun(String why) {
        this.recoveryNotRun = why;
    }

    /** A note for the report's notes section. */
    public void note(String text) {
        notes.add(text);
    }

    /** A phase failed: the run exits 1 and the report says so first. */
    public void failure(String text) {
        failures.add(text);
    }

    /** The failures so far. */
    public List<String> failures() {
        return List.copyOf(failures);
    }

    /** The figures so far. */
    public Figures figures() {
        return figures;
    }

    // ------------------------------------------------------------------ tables

    /** The inference table, with the RDMA/TCP ratios beside the paper's when both transports ran. */
    public String inferenceTable() {
        if (inference.isEmpty()) {
            return "";
        }
        MarkdownTable t = new MarkdownTable("transport", "user requests/s", "fetch mean ms", "fetch p50 ms", "fetch p99 ms",
                "client CPU µs/req", "shard CPU µs/req", "shard I/O switches/fetch", "shard switches/req", "ranker I/O switches/fetch",
                "failed");
        for (InferenceResult r : inference) {
            Histogram h = r.fetchNanos();
            t.row(r.transport().toUpperCase(Locale.ROOT), f1(r.requestsPerSecond()), f2(h.getMean() / 1e6),
                    f2(h.getValueAtPercentile(50) / 1e6), f2(h.getValueAtPercentile(99) / 1e6), f0(r.clientCpuMicrosPerRequest()),
                    f0(r.serverCpuMicrosPerRequest()), f1(r.shardIoSwitchesPerFetch()), f1(r.shardSwitchesPerRequest()),
                    f1(r.rankerIoSwitchesPerFetch()), Long.toString(r.failed()));
        }
        String table = t.toString();
        InferenceResult rdma = arm("rdma");
        InferenceResult tcp = arm("tcp");
        if (rdma == null || tcp == null) {
            return table;
        }
        double mean = change(rdma.fetchNanos().getMean(), tcp.fetchNanos().getMean());
        double p99 = change(rdma.fetchNanos().getValueAtPercentile(99), tcp.fetchNanos().getValueAtPercentile(99));
        double cpu = change(rdma.totalCpuMicrosPerRequest(), tcp.totalCpuMicrosPerRequest());
        double rate = change(rdma.requestsPerSecond(), tcp.requestsPerSecond());
        double ioSwitches = change(rdma.shardIoSwitchesPerFetch(), tcp.shardIoSwitchesPerFetch());
        if (Double.isNaN(figures.value("inference", "rdma_vs_tcp", "fetch_mean_change"))) {
            figures.add("inference", "rdma_vs_tcp", "fetch_mean_change", mean, "%");
            figures.add("inference", "rdma_vs_tcp", "fetch_p99_change", p99, "%");
            figures.add("inference", "rdma_vs_tcp", "cpu_per_request_change", cpu, "%");
            figures.add("inference", "rdma_vs_tcp", "requests_per_second_change", rate, "%");
            figures.add("inference", "rdma_vs_tcp", "shard_io_switches_per_fetch_change", ioSwitches, "%");
        }
        MarkdownTable ratios = new MarkdownTable("RDMA vs TCP", "fetch mean", "fetch p99", "CPU per request (client + shards)",
                "user requests/s", "shard I/O switches/fetch");
        ratios.row("this run", pct(mean), pct(p99), pct(cpu), pct(rate), pct(ioSwitches));
        ratios.row("the paper", pct(PAPER_MEAN_CHANGE), pct(PAPER_P99_CHANGE), pct(PAPER_CPU_CHANGE), "n/a", "n/a");
        return table + "\n" + ratios;
    }

    /** The training table, with the window's p99 change beside the paper's. */
    public String trainingTable() {
        if (training.isEmpty()) {
            return "";
        }
        MarkdownTable t = new MarkdownTable("arm", "send window", "steps/s", "push p50 ms", "push p99 ms",
                "peak outstanding bytes/engine", "window stalls", "failed");
        for (TrainingResult r : training) {
            t.row(r.arm(), r.windowBytes() == 0 ? "n/a" : bytes(r.windowBytes()), f1(r.stepsPerSecond()),
                    f2(r.pushNanos().getValueAtPercentile(50) / 1e6), f2(r.pushNanos().getValueAtPercentile(99) / 1e6),
                    r.peakWindowBytes() < 0 ? "n/a" : bytes(r.peakWindowBytes()),
                    r.windowStalls() < 0 ? "n/a" : Long.toString(r.windowStalls()), Long.toString(r.failed()));
        }
        String table = t.toString();
        TrainingResult on = trainingArm(DemoRun.ARM_WINDOW_ON);
        TrainingResult off = trainingArm(DemoRun.ARM_WINDOW_OFF);
        if (on == null || off == null) {
            return table;
        }
        double p99 = change(on.pushNanos().getValueAtPercentile(99), off.pushNanos().getValueAtPercentile(99));
        if (Double.isNaN(figures.value("training", "window_on_vs_off", "push_p99_change"))) {
            figures.add("training", "window_on_vs_off", "push_p99_change", p99, "%");
        }
        MarkdownTable c = new MarkdownTable("window on vs off", "push p99");
        c.row("this run (one host, no switch: no incast)", pct(p99));
        c.row("the paper (incast through a switch)", pct(PAPER_WINDOW_P99_CHANGE));
        return table + "\n" + c;
    }

    /** The recovery table. */
    public String recoveryTable() {
        if (recovery == null) {
            return recoveryNotRun == null ? "" : "Not run: " + recoveryNotRun + "\n";
        }
        RecoveryResult r = recovery;
        MarkdownTable t = new MarkdownTable("killed (SIGKILL)", "user requests", "failed", "time to eject", "down for",
                "JVM start", "time to return", "hedges (won)", "retries", "retries refused by budget");
        t.row(r.killed(), Long.toString(r.requests()), Long.toString(r.failed()), millis(r.ejectMillis()), millis(r.downMillis()),
                millis(r.startMillis()), millis(r.returnMillis()), r.hedges() + " (" + r.hedgesWon() + ")", Long.toString(r.retries()),
                Long.toString(r.budgetExhausted()));
        return t.toString();
    }

    private InferenceResult arm(String transport) {
        return inference.stream().filter(r -> r.transport().equals(transport)).findFirst().orElse(null);
    }

    private TrainingResult trainingArm(String arm) {
        return training.stream().filter(r -> r.arm().equals(arm)).findFirst().orElse(null);
    }

    // ------------------------------------------------------------------ writing

    /**
     * Writes report.md, figures.csv and the charts to {@code dir}; returns the tables as printed at
     * the end of the run.
     */
    public String write(Path dir, MemorySampler memory) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the report directory " + dir + ": " + e.getMessage(), e);
        }
        String inferenceTable = inferenceTable();
        String trainingTable = trainingTable();
        String recoveryTable = recoveryTable();
        List<String> charts = charts(dir, memory);
        figures.write(dir.resolve(FIGURES));
        HostInfo hostAtEnd = HostInfo.now();
        StringBuilder md = new StringBuilder();
        md.append("# Parameter-server demo: RSocket over RDMA against TCP\n\n");
        if (!failures.isEmpty()) {
            md.append("**FAILED**: ").append(String.join("; ", failures)).append("\n\n");
        }
        md.append("- Command: `java -jar examples/ps-demo/target/ps-demo.jar demo");
        options.commandLine().forEach(a -> md.append(' ').append(a));
        md.append("`\n");
        md.append("- Date: ").append(DateTimeFormatter.ISO_INSTANT.format(started.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)))
                .append(" (").append(started.atOffset(ZoneOffset.UTC).getDayOfWeek().toString().toLowerCase(Locale.ROOT)).append(")\n");
        md.append("- Host at the start: ").append(hostAtStart.line()).append("\n");
        md.append("- Host at the end: load average ").append(hostAtEnd.load()).append("\n");
        md.append("- Setup: ").append(setup).append("\n\n");
        md.append("## Inference: the ranker workload, RDMA then TCP, same seeds\n\n").append(inferenceTable).append('\n');
        md.append("## Training: trainers pushing with the send window on and off, and over TCP\n\n").append(trainingTable)
                .append("\nThis host has no switch: the trainers and the shards share one machine's memory bus, so the incast "
                        + "the paper's send window cuts (many senders into one switch port) is not reproduced here; the window "
                        + "arms show what the window does to in-flight bytes and stalls, not the paper's p99 effect.\n\n");
        md.append("## Recovery: one replica SIGKILLed in the middle of an inference run, then restarted\n\n")
                .append(recoveryTable).append('\n');
        md.append("## Charts\n\n");
        for (String c : charts) {
            md.append("![").append(c).append("](").append(c).append(")\n\n");
        }
        md.append("Every figure is also in [").append(FIGURES).append("](").append(FIGURES).append(").\n\n");
        md.append("## Notes\n\n");
        md.append("- Figures from a 2-core machine shared with other work are not comparable with an idle host's; the load "
                + "averages above say how busy it was.\n");
        md.append("- The provider is `").append(options.provider()).append("`").append(options.provider().equals("shm")
                ? ": software RDMA between processes on one host (memory-mapped files); it copies once per transfer where "
                + "hardware would DMA, and its TCP rival runs over loopback, so neither side sees a network.\n" : ".\n");
        md.append("- Inference: both transports are connected and warmed up first, in " + DemoRun.DEFAULT_WARMUP_ROUNDS
                + " alternating rounds each (one with --quick; on 2 cores their rates climb for 20-40 s), "
                + "then measured in mirrored rounds (RDMA, TCP, TCP, RDMA), "
                + "so that the shards' JIT and a drift of the host's load weigh on both alike. Fetch latency is one model's "
                + "fan-out to every shard, until the last shard answered; CPU is this JVM's process CPU and the shard processes' "
                + "user + system time over the measured rounds, per user request answered. Context switches (voluntary + "
                + "involuntary, from each thread's /proc status, over the same rounds) are summed over the shard processes: "
                + "their transport's I/O threads (RDMA: the engine's `shard-<n>-io-<i>`; TCP: Reactor Netty's `reactor-tcp-*` "
                + "event loops) per fetch, and all their threads per user request; the ranker's are this JVM's I/O threads "
                + "(`" + DemoRun.MAIN_RESOURCES + "-io-<i>` or `reactor-tcp-*`) per fetch. A fetch reaches one replica of every "
                + "shard, and a user request makes one fetch per model. Threads that ended during a round are left out; "
                + "without /proc (not Linux) the switches are n/a.\n");
        md.append("- Training: each trainer has connections of its own (as on a host of its own); over RDMA they share one engine "
                + "per shard replica, which is what the send window bounds. The arms run one after the other (window on, off, "
                + "TCP), so the first pays more for the trainers' JIT. The peak bytes in flight include the warm-up.\n");
        md.append("- Recovery: time to eject runs from the SIGKILL until `rdma.recovery.ejections` of that replica grew or the "
                + "shard client no longer listed it as live; the JVM start from the restart until the new process printed "
                + "SHARD-READY; time to return from then until the shard client sent it a request (`requestsSent()`).\n");
        md.append("- Registered memory: the sum over this JVM's pools (local, remote-writable, rendezvous destinations). It "
                + "grows while connections and pools warm up; where it swings during inference, the swings go with the large "
                + "fetch replies in flight (rendezvous destinations are taken per large message); "
                + "`rdma.memory.registered.bytes{pool}` tells the pools apart.\n");
        notes.forEach(n -> md.append("- ").append(n).append('\n'));
        try {
            Files.writeString(dir.resolve(REPORT), md.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve(REPORT) + ": " + e.getMessage(), e);
        }
        return "Inference\n" + inferenceTable + "\nTraining\n" + trainingTable + "\nRecovery\n" + recoveryTable;
    }

    private List<String> charts(Path dir, MemorySampler memory) {
        List<String> written = new ArrayList<>();
        if (!inference.isEmpty()) {
            Map<String, Histogram> cdf = new LinkedHashMap<>();
            inference.forEach(r -> cdf.put(r.transport().toUpperCase(Locale.ROOT), r.fetchNanos()));
            Charts.fetchCdf(dir.resolve(CHART_FETCH_CDF), cdf);
            written.add(CHART_FETCH_CDF);
        }
        if (!training.isEmpty()) {
            Map<String, Histogram> push = new LinkedHashMap<>();
            training.forEach(r -> push.put(r.arm(), r.pushNanos()));
            Charts.pushLatency(dir.resolve(CHART_PUSH), push);
            written.add(CHART_PUSH);
        }
        if (recovery != null) {
            Timeline t = recovery.timeline();
            Charts.recoveryTimeline(dir.resolve(CHART_RECOVERY), t);
            written.add(CHART_RECOVERY);
        }
        if (memory != null) {
            Charts.registeredMemory(dir.resolve(CHART_MEMORY), memory.samples(), memory.phases());
            written.add(CHART_MEMORY);
            List<MemorySampler.Sample> s = memory.samples();
            if (!s.isEmpty()) {
                long peak = s.stream().mapToLong(MemorySampler.Sample::bytes).max().orElse(0);
                figures.add("memory", "demo_jvm", "registered_peak", peak, "bytes");
                figures.add("memory", "demo_jvm", "registered_end", s.get(s.size() - 1).bytes(), "bytes");
                figures.add("memory", "demo_jvm", "samples", s.size(), "samples");
            }
        }
        return written;
    }

    // ------------------------------------------------------------------ formats

    /** (a - b) / b in %; NaN when either is unknown or b is 0. */
    static double change(double a, double b) {
        return Double.isNaN(a) || Double.isNaN(b) || b == 0 ? Double.NaN : (a - b) / b * 100;
    }

    private static String pct(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%+.1f %%", v);
    }

    private static String f0(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String f1(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.1f", v);
    }

    private static String f2(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String millis(long ms) {
        return ms < 0 ? "not seen" : ms + " ms";
    }

    private static String bytes(long b) {
        if (b >= 1L << 40) {
            return "unbounded";
        }
        if (b >= 1 << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", b / 1048576.0);
        }
        if (b >= 1 << 10) {
            return String.format(Locale.ROOT, "%.1f KiB", b / 1024.0);
        }
        return b + " B";
    }
}
