package io.reactorrdma.examples.ps.demo;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.examples.ps.demo.measure.JvmCpu;
import io.reactorrdma.examples.ps.demo.measure.MemorySampler;
import io.reactorrdma.examples.ps.demo.measure.Meters;
import io.reactorrdma.examples.ps.demo.measure.SwitchWindow;
import io.reactorrdma.examples.ps.demo.measure.Switches;
import io.reactorrdma.examples.ps.demo.measure.ThreadSwitches;
import io.reactorrdma.examples.ps.demo.measure.Timeline;
import io.reactorrdma.examples.ps.demo.process.ShardAddresses;
import io.reactorrdma.examples.ps.demo.process.ShardFleet;
import io.reactorrdma.examples.ps.demo.process.ShardSpec;
import io.reactorrdma.examples.ps.demo.process.DemoShmDirectory;
import io.reactorrdma.examples.ps.demo.report.HostInfo;
import io.reactorrdma.examples.ps.shard.ShardConfig;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The demo, phase after phase: start the shards, inference over RDMA then TCP, training with the
 * send window on, off and over TCP, recovery (a replica SIGKILLed and restarted), the report. A
 * phase that fails is reported and the next one still runs where it can; {@link #run()} returns 0
 * only when every phase completed with no failed user request or step.
 */
public final class DemoRun {

    /** Rows per shard of the embedding table: the shard's default ({@link ShardConfig#DEFAULT_ROWS}). */
    public static final int DEFAULT_ROWS = ShardConfig.DEFAULT_ROWS;
    /** Floats per row: the shard's default ({@link ShardConfig#DEFAULT_DIMENSION}). */
    public static final int DEFAULT_DIMENSION = ShardConfig.DEFAULT_DIMENSION;
    /**
     * The send window of the "window on" arm: 16 KiB, below an average push (20 KB), so that it binds:
     * each trainer has connections of its own, which share one engine per shard replica (sockets to
     * one destination share an engine), and a push fragment ready in the same I/O turn as another
     * waits until the other's bytes completed.
     */
    public static final long DEFAULT_WINDOW_ON_BYTES = 16 * 1024;
    /** The send window of the "window off" arm: 1 TiB, never reached. */
    public static final long DEFAULT_WINDOW_OFF_BYTES = 1L << 40;
    /** Recovery: the kill comes this far into the run (at least {@link #MIN_KILL_AFTER}). */
    public static final double DEFAULT_KILL_AT = 1.0 / 3;
    /** Recovery: the killed replica stays down this long before its restart: 2 s. */
    public static final Duration DEFAULT_DOWN = Duration.ofSeconds(2);
    /** Recovery: the run goes on this long after the replica's return: 1 s. */
    public static final Duration DEFAULT_AFTER_RETURN = Duration.ofSeconds(1);
    /** Recovery: how long the demo waits for the ejection and for the return: 30 s. */
    public static final Duration DEFAULT_RECOVERY_WAIT = Duration.ofSeconds(30);
    /**
     * Inference rounds: each transport's measured time is split in this many rounds, run in mirrored
     * order (RDMA, TCP, then TCP, RDMA, ...), so that a steady drift of the host's load or of the
     * shards' JIT weighs on both alike: 2.
     */
    public static final int DEFAULT_ROUNDS = 2;
    /**
     * Inference warm-up: rounds of {@code warmup} per transport, alternating, this many: 6 (36 s with
     * the default 3 s). On 2 cores the shards' JIT, the pools and the first touch of shared memory
     * take 20-40 s to settle: the rates of successive warm-up rounds climb from a few per second to
     * the measured ones, and may rest on a plateau on the way, so a rule that stops at the first two
     * rounds that agree stops early. Rates measured before then say more about the warm-up than
     * about the transport.
     */
    public static final int DEFAULT_WARMUP_ROUNDS = 6;
    /** The name of this JVM's resources for inference and recovery; its I/O threads are {@code ps-demo-io-<n>}. */
    static final String MAIN_RESOURCES = "ps-demo";
    /** The host the shards bind on one machine. */
    public static final String LOCAL_HOST = "127.0.0.1";

    static final String ARM_WINDOW_ON = "rdma, window on";
    static final String ARM_WINDOW_OFF = "rdma, window off";
    static final String ARM_TCP = "tcp";
    private static final Duration MIN_KILL_AFTER = Duration.ofSeconds(1);
    /** What a shard JVM's start costs a 2-core host, for the progress line's estimate only. */
    private static final Duration EXPECTED_START_PER_PROCESS = Duration.ofSeconds(2);

    private final DemoOptions options;
    private final PrintStream out;
    private final Progress progress;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final DemoReport report;
    private MemorySampler memory;

    /** A run of {@code options}, printing to {@code out} ({@code bar}: redraw a progress bar in place). */
    public DemoRun(DemoOptions options, PrintStream out, boolean bar) {
        this.options = options;
        this.out = out;
        this.progress = new Progress(out, bar, phases(options));
        this.report = new DemoReport(options, HostInfo.now());
    }

    private static int phases(DemoOptions o) {
        int transports = o.withTcp() ? 2 : 1;
        int trainingArms = o.withTcp() ? 3 : 2;
        return 1 + 1 + transports * DEFAULT_ROUNDS + trainingArms + 1 + 1;
    }

    /** Runs every phase and writes the report; 0 when all completed with no failure, else 1. */
    public int run() {
        Path outDir = options.out().toAbsolutePath();
        DemoShmDirectory shm = null;
        ShardFleet fleet = null;
        ClientResources main = null;
        memory = MemorySampler.start(() -> Meters.sum(registry, "rdma.memory.registered.bytes"));
        try {
            if (options.provider().equals("shm") && options.hosts() == null) {
                shm = DemoShmDirectory.create();
            }
            Path shmDir = shm == null ? null : shm.path();
            ShardAddresses shards;
            memory("shards");
            try (Progress.Step step = progress.start("starting " + options.shards() + " shards x " + options.replicas() + " replicas",
                    EXPECTED_START_PER_PROCESS.multipliedBy((long) options.shards() * options.replicas()))) {
                if (options.hosts() == null) {
                    fleet = ShardFleet.start(new ShardSpec(DEFAULT_ROWS, DEFAULT_DIMENSION, options.provider(), LOCAL_HOST, shmDir),
                            options.shards(), options.replicas(), outDir.resolve("logs"));
                    shards = fleet;
                    step.result(options.shards() * options.replicas() + " processes serving RDMA (" + options.provider() + ") and TCP");
                } else {
                    shards = new HandStartedShards(options);
                    printHandStartCommands();
                    step.result("using the replicas listed by --hosts");
                }
            }
            report.setup(setup());
            main = ClientResources.create(MAIN_RESOURCES, options.provider(), shmDir, EngineConfig.defaults(), registry);
            inference(shards, main, fleet);
            training(shards, shmDir, fleet);
            recovery(shards, main, fleet);
        } catch (RuntimeException e) {
            report.failure("the demo stopped: " + e.getMessage());
        } finally {
            memory.close();
            closeAll(main, fleet, shm);
        }
        try (Progress.Step step = progress.start("writing the report", Duration.ofSeconds(3))) {
            String tables = report.write(outDir, memory);
            step.result(outDir.toString());
            out.println();
            out.println(tables);
        } catch (RuntimeException e) {
            report.failure("the report could not be written: " + e.getMessage());
        }
        out.println("Report: " + outDir.resolve(DemoReport.REPORT));
        if (report.failures().isEmpty()) {
            out.println("Every phase completed with 0 failed user requests.");
            return 0;
        }
        report.failures().forEach(f -> out.println("FAILED: " + f));
        return 1;
    }

    private void closeAll(ClientResources main, ShardFleet fleet, DemoShmDirectory shm) {
        if (main != null) {
            try {
                main.close();
            } catch (RuntimeException e) {
                report.failure(e.getMessage());
            }
        }
        if (fleet != null) {
            fleet.close();
        }
        if (shm != null) {
            try {
                shm.close();
            } catch (RuntimeException e) {
                report.failure(e.getMessage());
            }
        }
    }

    private String setup() {
        return String.format(Locale.ROOT, "%d shards x %d replicas (%s), %,d rows x %d floats per shard; %d outstanding user "
                        + "requests; %d trainers; %.1f s measured per arm after a %.1f s warm-up "
                        + "(inference: %d alternating rounds of it per transport); "
                        + "provider %s",
                options.shards(), options.replicas(), options.hosts() == null ? "child processes of the demo" : "started by hand",
                DEFAULT_ROWS, DEFAULT_DIMENSION, options.rankers(), options.trainers(), options.duration().toMillis() / 1e3,
                options.warmup().toMillis() / 1e3, warmupRounds(), options.provider());
    }

    // ------------------------------------------------------------------ inference

    /**
     * Connects and warms up every transport first, then measures them in alternating rounds
     * ({@link #DEFAULT_ROUNDS}), so that the first arm measured does not pay for the JIT and the pools
     * the second one finds ready, and a change of the host's load weighs on both alike.
     */
    private void inference(ShardAddresses shards, ClientResources main, ShardFleet fleet) {
        Map<String, ArmConnections> open = new LinkedHashMap<>();
        Map<String, Recorder> fetches = new LinkedHashMap<>();
        Map<String, Workloads.Inference> work = new LinkedHashMap<>();
        try {
            try (Progress.Step step = progress.start("inference warm-up over " + String.join(" and ", options.transports()),
                    options.warmup().multipliedBy((long) options.transports().size() * warmupRounds()))) {
                try {
                    memory("inference");
                    for (String transport : options.transports()) {
                        open.put(transport, ArmConnections.connect(shards, transport, main.resources(), registry));
                        fetches.put(transport, new Recorder());
                        work.put(transport, Workloads.inference(open.get(transport).clients(), allocator(transport, main),
                                fetches.get(transport)));
                    }
                    step.result(warmUp(work));
                } catch (RuntimeException e) {
                    step.result("FAILED: " + e.getMessage());
                    report.failure("inference warm-up: " + e.getMessage());
                    return;
                }
            }
            Map<String, InferenceResult> results = new LinkedHashMap<>();
            for (int round = 1; round <= DEFAULT_ROUNDS; round++) {
                for (String transport : roundOrder(options.transports(), round)) {
                    if (round > 1 && !results.containsKey(transport)) {
                        continue; // failed in an earlier round
                    }
                    try (Progress.Step step = progress.start("inference over " + transport.toUpperCase(Locale.ROOT) + ", round " + round
                            + " of " + DEFAULT_ROUNDS + ": " + options.rankers() + " user requests outstanding", roundDuration())) {
                        try {
                            InferenceResult r = measureInference(transport, work.get(transport), fetches.get(transport), fleet,
                                    results.get(transport));
                            results.put(transport, r);
                            step.result(String.format(Locale.ROOT, "%,d user requests so far (%,.1f/s), fetch p99 %.2f ms, %d failed",
                                    r.requests(), r.requestsPerSecond(), r.fetchNanos().getValueAtPercentile(99) / 1e6, r.failed()));
                        } catch (RuntimeException e) {
                            results.remove(transport);
                            step.result("FAILED: " + e.getMessage());
                            report.failure("inference over " + transport + ": " + e.getMessage());
                        }
                    }
                }
            }
            for (InferenceResult r : results.values()) {
                report.add(r);
                if (r.failed() > 0) {
                    report.failure("inference over " + r.transport() + ": " + r.failed() + " user requests failed");
                }
            }
        } finally {
            open.values().forEach(ArmConnections::close);
        }
    }

    /** Warm-up rounds per transport: one with {@code --quick}, else {@link #DEFAULT_WARMUP_ROUNDS}. */
    private int warmupRounds() {
        return options.quick() ? 1 : DEFAULT_WARMUP_ROUNDS;
    }

    /** Runs every transport's workload for {@code warmup}, alternating, {@link #warmupRounds()} times; says the rates it saw. */
    private String warmUp(Map<String, Workloads.Inference> work) {
        Map<String, List<String>> rates = new LinkedHashMap<>();
        work.keySet().forEach(t -> rates.put(t, new ArrayList<>()));
        for (int round = 1; round <= warmupRounds(); round++) {
            for (Map.Entry<String, Workloads.Inference> e : work.entrySet()) {
                Lanes.Outcome o = Lanes.run(options.rankers(), options.warmup(), e.getValue(), null);
                rates.get(e.getKey()).add(String.format(Locale.ROOT, "%.0f", o.answered() / Math.max(o.seconds(), 1e-9)));
            }
        }
        StringBuilder said = new StringBuilder(String.format(Locale.ROOT, "connected and warm after %d round%s of %.1f s (user requests/s",
                warmupRounds(), warmupRounds() == 1 ? "" : "s", options.warmup().toMillis() / 1e3));
        rates.forEach((t, r) -> said.append(' ').append(t).append(' ').append(String.join("/", r)));
        return said.append(')').toString();
    }

    /** The transports in round {@code round}'s order: as given in odd rounds, reversed in even ones. */
    static List<String> roundOrder(List<String> transports, int round) {
        if (round % 2 == 1) {
            return transports;
        }
        List<String> reversed = new ArrayList<>(transports);
        Collections.reverse(reversed);
        return reversed;
    }

    /** Each round's share of the measured time of a transport. */
    private Duration roundDuration() {
        return options.duration().dividedBy(DEFAULT_ROUNDS);
    }

    /** One round of one transport, added to {@code before} (the earlier rounds; null for the first). */
    private InferenceResult measureInference(String transport, Workloads.Inference work, Recorder fetches, ShardFleet fleet,
                                             InferenceResult before) {
        fetches.start();
        long client0 = JvmCpu.nanos();
        long server0 = fleet == null ? -1 : fleet.cpuNanos();
        // context switches: read right inside the CPU readings, around the same run (no shard pids with --hosts: unknown)
        SwitchWindow shardWindow = SwitchWindow.open(ThreadSwitches.PROC, fleet == null ? List.of() : fleet.pids(),
                IoThreads.shards(transport, options.shards()));
        SwitchWindow rankerWindow = SwitchWindow.open(ThreadSwitches.PROC, List.of("self"), IoThreads.ranker(transport, MAIN_RESOURCES));
        Lanes.Outcome o = Lanes.run(options.rankers(), roundDuration(), work, null);
        Switches ranker = rankerWindow.close();
        Switches shard = shardWindow.close();
        long client = delta(client0, JvmCpu.nanos());
        long server = fleet == null ? -1 : delta(server0, fleet.cpuNanos());
        fetches.stop();
        note(o, "inference over " + transport);
        if (before == null) {
            return new InferenceResult(transport, o.answered(), o.failed(), o.seconds(), fetches.nanos(), o.latency(), fetches.bytes(),
                    client, server, shard, ranker);
        }
        Histogram latency = before.requestNanos().copy();
        latency.add(o.latency());
        return new InferenceResult(transport, before.requests() + o.answered(), before.failed() + o.failed(),
                before.seconds() + o.seconds(),
                fetches.nanos(), latency, fetches.bytes(), sum(before.clientCpuNanos(), client), sum(before.serverCpuNanos(), server),
                before.shardSwitches().plus(shard), before.rankerSwitches().plus(ranker));
    }

    private static long sum(long a, long b) {
        return a < 0 || b < 0 ? -1 : a + b;
    }

    // ------------------------------------------------------------------ training

    private void training(ShardAddresses shards, Path shmDir, ShardFleet fleet) {
        List<String> arms = new ArrayList<>(List.of(ARM_WINDOW_ON, ARM_WINDOW_OFF));
        if (options.withTcp()) {
            arms.add(ARM_TCP);
        }
        for (String arm : arms) {
            try (Progress.Step step = progress.start("training, " + arm + ": " + options.trainers() + " trainers",
                    options.warmup().plus(options.duration()))) {
                try {
                    TrainingResult r = trainingArm(shards, arm, shmDir);
                    report.add(r);
                    step.result(String.format(Locale.ROOT, "%,d steps, push p99 %.2f ms, %s window stalls, %d failed", r.steps(),
                            r.pushNanos().getValueAtPercentile(99) / 1e6, r.windowStalls() < 0 ? "no" : Long.toString(r.windowStalls()),
                            r.failed()));
                    if (r.failed() > 0) {
                        report.failure("training, " + arm + ": " + r.failed() + " steps failed");
                    }
                } catch (RuntimeException e) {
                    step.result("FAILED: " + e.getMessage());
                    report.failure("training, " + arm + ": " + e.getMessage());
                }
            }
        }
    }

    private TrainingResult trainingArm(ShardAddresses shards, String arm, Path shmDir) {
        boolean tcp = arm.equals(ARM_TCP);
        long window = tcp ? 0 : arm.equals(ARM_WINDOW_ON) ? DEFAULT_WINDOW_ON_BYTES : DEFAULT_WINDOW_OFF_BYTES;
        String name = tcp ? null : arm.equals(ARM_WINDOW_ON) ? "ps-demo-window-on" : "ps-demo-window-off";
        ClientResources res = tcp ? null : ClientResources.create(name, options.provider(), shmDir,
                EngineConfig.defaults().withSendWindowBytes(window), registry);
        try {
            Recorder pushes = new Recorder();
            Lanes.Outcome o;
            long stalls0;
            List<ArmConnections> perTrainer = new ArrayList<>();
            try {
                // one set of connections per trainer, as trainers on hosts of their own would have
                for (int t = 0; t < options.trainers(); t++) {
                    perTrainer.add(ArmConnections.connect(shards, tcp ? "tcp" : "rdma", res == null ? null : res.resources(), registry));
                }
                try (Workloads.Training work = Workloads.training(perTrainer,
                        tcp ? ByteBufAllocator.DEFAULT : res.resources().alloc(), pushes)) {
                    memory("training " + arm);
                    Lanes.run(options.trainers(), options.warmup(), work, null);
                    stalls0 = tcp ? 0 : Meters.count(registry, "rdma.window.stalls", "resources", name);
                    pushes.start();
                    o = Lanes.run(options.trainers(), options.duration(), work, null);
                    pushes.stop();
                }
            } finally {
                perTrainer.forEach(ArmConnections::close);
            }
            long peak = tcp ? -1 : Meters.max(registry, "rdma.window.peak.bytes", "resources", name);
            long stalls = tcp ? -1 : Meters.count(registry, "rdma.window.stalls", "resources", name) - stalls0;
            note(o, "training, " + arm);
            return new TrainingResult(arm, window, o.answered(), o.failed(), o.seconds(), pushes.nanos(), pushes.bytes(), peak, stalls);
        } finally {
            if (res != null) {
                res.close();
            }
        }
    }

    // ------------------------------------------------------------------ recovery

    private void recovery(ShardAddresses shards, ClientResources main, ShardFleet fleet) {
        try (Progress.Step step = progress.start("recovery: SIGKILL one replica of shard 0 during inference over RDMA, then restart it",
                options.duration().plus(DEFAULT_DOWN).plus(Duration.ofSeconds(3)))) {
            if (fleet == null) {
                String why = "the replicas were started by hand (--hosts), so the demo cannot kill and restart one; kill one by hand "
                        + "during an inference run to see the same";
                report.recoveryNotRun(why);
                step.result("not run: " + why);
                return;
            }
            try {
                RecoveryResult r = recoveryArm(fleet, main);
                report.recovery(r);
                step.result(String.format(Locale.ROOT, "%,d user requests, %d failed, ejected after %s, in use again %s after it served",
                        r.requests(), r.failed(), r.ejectMillis() < 0 ? "(not seen)" : r.ejectMillis() + " ms",
                        r.returnMillis() < 0 ? "(not seen)" : r.returnMillis() + " ms"));
                if (r.failed() > 0) {
                    report.failure("recovery: " + r.failed() + " user requests failed");
                }
                if (r.ejectMillis() < 0 || r.returnMillis() < 0) {
                    report.failure("recovery: the killed replica was " + (r.ejectMillis() < 0 ? "never ejected" : "never back in use")
                            + " within " + DEFAULT_RECOVERY_WAIT.toSeconds() + " s");
                }
            } catch (RuntimeException e) {
                step.result("FAILED: " + e.getMessage());
                report.failure("recovery: " + e.getMessage());
            }
        }
    }

    private RecoveryResult recoveryArm(ShardFleet fleet, ClientResources main) {
        int shard = 0;
        int replica = fleet.replicas() - 1;
        String key = ArmConnections.replicaKey(shard, replica);
        Recorder fetches = new Recorder();
        try (ArmConnections c = ArmConnections.connect(fleet, "rdma", main.resources(), registry)) {
            Workloads.Inference work = Workloads.inference(c.clients(), allocator("rdma", main), fetches);
            memory("recovery");
            Lanes.run(options.rankers(), options.warmup(), work, null);
            long hedges0 = Meters.count(registry, "rdma.recovery.hedges");
            long won0 = Meters.count(registry, "rdma.recovery.hedges.won");
            long retries0 = Meters.count(registry, "rdma.recovery.retries");
            long refused0 = Meters.count(registry, "rdma.recovery.retry.budget.exhausted");
            long ejections0 = Meters.count(registry, "rdma.recovery.ejections", "replica", key);
            AtomicBoolean more = new AtomicBoolean(true);
            Timeline timeline = new Timeline(options.duration().plus(DEFAULT_RECOVERY_WAIT).plus(DEFAULT_RECOVERY_WAIT));
            Duration expected = options.duration().plus(DEFAULT_RECOVERY_WAIT).plus(DEFAULT_RECOVERY_WAIT);
            CompletableFuture<Lanes.Outcome> run = CompletableFuture.supplyAsync(
                    () -> Lanes.run(options.rankers(), more::get, expected, work, timeline));
            long start = System.nanoTime();
            long ejectMillis = -1;
            long returnMillis = -1;
            long downMillis;
            long startMillis;
            String killed;
            try {
                Duration killAfter = Duration.ofNanos((long) (options.duration().toNanos() * DEFAULT_KILL_AT));
                ArmConnections.sleep(Math.max(MIN_KILL_AFTER.toMillis(), killAfter.toMillis()));
                killed = "shard " + shard + " replica " + replica + " (pid " + fleet.pid(shard, replica) + ")";
                timeline.mark("SIGKILL");
                long kill = System.nanoTime();
                fleet.kill(shard, replica);
                ejectMillis = awaitMillis(kill, () -> Meters.count(registry, "rdma.recovery.ejections", "replica", key) > ejections0
                        || !c.clients().get(shard).liveReplicas().contains(key));
                ArmConnections.sleep(Math.max(0, DEFAULT_DOWN.toMillis() - (System.nanoTime() - kill) / 1_000_000));
                timeline.mark("restart");
                long restart = System.nanoTime();
                downMillis = (restart - kill) / 1_000_000;
                fleet.restart(shard, replica);
                long serving = System.nanoTime();
                startMillis = (serving - restart) / 1_000_000;
                timeline.mark("serving again");
                long sentAtRestart = c.clients().get(shard).requestsSent().getOrDefault(key, 0L);
                returnMillis = awaitMillis(serving, () -> c.clients().get(shard).requestsSent().getOrDefault(key, 0L) > sentAtRestart);
                if (returnMillis >= 0) {
                    timeline.mark("back in use");
                }
                long end = Math.max(System.nanoTime() + DEFAULT_AFTER_RETURN.toNanos(), start + options.duration().toNanos());
                ArmConnections.sleep(Math.max(0, (end - System.nanoTime()) / 1_000_000));
            } finally {
                more.set(false);
            }
            Lanes.Outcome o = run.join();
            timeline.end();
            note(o, "recovery");
            return new RecoveryResult(killed, o.answered(), o.failed(), ejectMillis, downMillis, startMillis, returnMillis,
                    Meters.count(registry, "rdma.recovery.hedges") - hedges0, Meters.count(registry, "rdma.recovery.hedges.won") - won0,
                    Meters.count(registry, "rdma.recovery.retries") - retries0,
                    Meters.count(registry, "rdma.recovery.retry.budget.exhausted") - refused0,
                    Meters.count(registry, "rdma.recovery.ejections", "replica", key) - ejections0, timeline);
        }
    }

    /** Milliseconds from {@code since} until {@code seen} holds (polled every millisecond); -1 after {@link #DEFAULT_RECOVERY_WAIT}. */
    private static long awaitMillis(long since, java.util.function.BooleanSupplier seen) {
        long limit = since + DEFAULT_RECOVERY_WAIT.toNanos();
        while (System.nanoTime() - limit < 0) {
            if (seen.getAsBoolean()) {
                return (System.nanoTime() - since) / 1_000_000;
            }
            ArmConnections.sleep(1);
        }
        return -1;
    }

    // ------------------------------------------------------------------ helpers

    /** Names the phase beginning now on the registered-memory chart. */
    private void memory(String phase) {
        memory.phase(phase);
    }

    private void note(Lanes.Outcome o, String arm) {
        if (o.lastError() != null) {
            String note = arm + ": " + o.failed() + " failed; the last failure was " + o.lastError();
            report.note(note);
            progress.note(note);
        }
    }

    /** Where requests are written: on RDMA the registered allocator (sent without a copy), on TCP Netty's default. */
    private static ByteBufAllocator allocator(String transport, ClientResources resources) {
        return transport.equals("rdma") ? resources.resources().alloc() : ByteBufAllocator.DEFAULT;
    }

    private static long delta(long a, long b) {
        return a < 0 || b < 0 ? -1 : b - a;
    }

    private void printHandStartCommands() {
        out.println("--hosts: start each replica on its host first (then run the demo again if it could not connect):");
        List<InetSocketAddress[]> hosts = options.hosts();
        for (int i = 0; i < hosts.size(); i++) {
            int shard = i / options.replicas();
            InetSocketAddress[] a = hosts.get(i);
            out.println("  on " + a[0].getHostString() + ": java -jar ps-demo.jar shard " + String.join(" ",
                    new ShardSpec(DEFAULT_ROWS, DEFAULT_DIMENSION, options.provider(), a[0].getHostString(), null)
                            .arguments(shard, options.shards(), a[0].getPort(), a[1].getPort())));
        }
    }

    /** The replicas of {@code --hosts}. */
    private static final class HandStartedShards implements ShardAddresses {
        private final DemoOptions options;

        HandStartedShards(DemoOptions options) {
            this.options = options;
        }

        @Override
        public int shards() {
            return options.shards();
        }

        @Override
        public int replicas() {
            return options.replicas();
        }

        @Override
        public InetSocketAddress rdma(int shard, int replica) {
            InetSocketAddress a = options.hosts().get(shard * options.replicas() + replica)[0];
            return new InetSocketAddress(a.getHostString(), a.getPort());
        }

        @Override
        public InetSocketAddress tcp(int shard, int replica) {
            InetSocketAddress a = options.hosts().get(shard * options.replicas() + replica)[1];
            return new InetSocketAddress(a.getHostString(), a.getPort());
        }
    }
}
