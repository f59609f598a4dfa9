package io.reactorrdma.incast.cli;

import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.Placement;
import io.reactorrdma.incast.SenderConfig;
import io.reactorrdma.incast.sweep.Arm;
import io.reactorrdma.incast.sweep.Sweep;
import io.reactorrdma.tools.cli.PngFile;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

/**
 * incast-sim's options as picocli reads them (typed, each value checked by its converter), and the checks of the
 * options together ({@link #options}) that give the {@link IncastOptions} a run uses.
 */
final class IncastArguments {

    @Option(names = "--trainers", paramLabel = "N", order = 1,
            description = "trainer hosts, default " + IncastOptions.DEFAULT_TRAINERS)
    int trainers = IncastOptions.DEFAULT_TRAINERS;

    @Option(names = "--servers", paramLabel = "N", order = 2,
            description = "parameter-server hosts, default " + IncastOptions.DEFAULT_SERVERS + "; every trainer pushes to every server")
    int servers = IncastOptions.DEFAULT_SERVERS;

    @Option(names = "--window", paramLabel = "LIST", order = 3, converter = IncastConverters.WindowList.class,
            description = {"the sweep: comma list of sizes (binary suffixes: 64k = 65536, 1m) and/or off;",
                    "default 8k,16k,32k,64k,128k,256k,512k,1m,off"})
    IncastConverters.Windows windows = IncastConverters.Windows.defaults();

    @Option(names = "--arms", paramLabel = "LIST", order = 4, converter = IncastConverters.ArmKinds.class,
            description = "comma list of pfc, dcqcn, window; default all three")
    Set<Arm.Kind> kinds = EnumSet.allOf(Arm.Kind.class);

    @Option(names = "--duration", paramLabel = "TIME", order = 5, converter = IncastConverters.Duration.class,
            description = {"simulated time during which trainers start pushes, with a unit (50ms, 500us, 0.05s);",
                    "default 50ms. What was posted then drains, and counts."})
    long durationPs = IncastOptions.DEFAULT_DURATION_PS;

    @Option(names = "--iterations", paramLabel = "N", order = 6,
            description = {"iterations per trainer at most, default no limit but --duration; give it (with a long",
                    "enough --duration) for equal work in every arm"})
    int iterations = Integer.MAX_VALUE;

    @Option(names = "--compute", paramLabel = "TIME", order = 7, converter = IncastConverters.Compute.class,
            description = "how long a trainer computes before each round of pushes, default the workload's (below)")
    Long computePs;

    @Option(names = "--seed", paramLabel = "N", order = 8,
            description = "the random seed (push sizes, ECN marking), default " + IncastOptions.DEFAULT_SEED + "; one seed, one output")
    long seed = IncastOptions.DEFAULT_SEED;

    @Option(names = "--mtu", paramLabel = "BYTES", order = 9, converter = IncastConverters.Mtu.class,
            description = "RoCE MTU: 256, 512, 1024 (default), 2048, 4096")
    int mtuBytes = IncastConfig.DEFAULT_MTU_BYTES;

    @Option(names = "--fragment", paramLabel = "BYTES", order = 10, converter = IncastConverters.Fragment.class,
            description = {"the engines' fragment size, default the engine's (64k); at least 4k.",
                    "A push of one fragment goes even past a smaller window (ByteWindow grants a lone",
                    "request), so with the paper's pushes (p99 50 KB) a window acts only with smaller fragments"})
    int fragmentBytes = SenderConfig.DEFAULT_FRAGMENT_BYTES;

    @Option(names = "--topology", paramLabel = "T", order = 11, converter = IncastConverters.Topology.class,
            description = "leaf-spine (default; its shape below) or one-switch (every host on one switch)")
    IncastOptions.TopologyKind topology = IncastOptions.TopologyKind.LEAF_SPINE;

    @Option(names = "--placement", paramLabel = "P", order = 12, converter = IncastConverters.Placements.class,
            description = {"leaf-spine: spread (default; the servers spread over the ToRs) or clustered (they",
                    "fill the first ToRs)"})
    Placement placement;

    @Option(names = "--sync", order = 13,
            description = {"synchronous trainers (default: the next iteration starts when every trainer's pushes",
                    "completed)"})
    boolean sync;

    @Option(names = "--async", order = 14,
            description = "asynchronous trainers (each goes on when its own pushes completed)")
    boolean async;

    @Option(names = "--threads", paramLabel = "N", order = 15,
            description = "arms run at once, default " + Sweep.DEFAULT_THREADS + " (each arm's figures are the same either way)")
    int threads = Sweep.DEFAULT_THREADS;

    @Option(names = "--chart", paramLabel = "FILE.png", order = 16, converter = PngFile.class,
            description = {"draw p99 push latency and PFC pause time against W (PFC-only and DCQCN arms as",
                    "reference lines)"})
    Path chart;

    @Option(names = "--csv", order = 17,
            description = "standard output holds only CSV, one row per arm; the table goes to standard error")
    boolean csv;

    /**
     * The options together.
     *
     * @param maxLeafSpineHosts the hosts the leaf-spine topology holds
     * @throws UsageException saying what is wrong and what to use
     */
    IncastOptions options(int maxLeafSpineHosts) {
        count("--trainers", trainers, IncastOptions.MAX_ONE_SWITCH_HOSTS);
        count("--servers", servers, IncastOptions.MAX_ONE_SWITCH_HOSTS);
        count("--threads", threads, IncastOptions.MAX_THREADS);
        count("--iterations", iterations, Integer.MAX_VALUE);
        if (sync && async) {
            throw new UsageException("--sync and --async exclude each other; give one");
        }
        if (placement != null && topology != IncastOptions.TopologyKind.LEAF_SPINE) {
            throw new UsageException("--placement applies to --topology leaf-spine only: one switch has no ToRs to spread over");
        }
        int max = topology == IncastOptions.TopologyKind.LEAF_SPINE ? maxLeafSpineHosts : IncastOptions.MAX_ONE_SWITCH_HOSTS;
        if (trainers + servers > max) {
            throw new UsageException(trainers + " trainers + " + servers + " servers = " + (trainers + servers)
                    + " hosts, more than --topology " + topology.id() + " holds (" + max + "); use fewer hosts"
                    + (topology == IncastOptions.TopologyKind.LEAF_SPINE ? " or --topology one-switch" : ""));
        }
        if (chart != null && (!kinds.contains(Arm.Kind.WINDOW) || windows.bytes().isEmpty())) {
            throw new UsageException("--chart draws the window arms against W, and this sweep has none: add window to --arms "
                    + "and a size to --window, or leave --chart out");
        }
        return new IncastOptions(trainers, servers, windows.bytes(), windows.off(), kinds, durationPs, computePs, iterations, seed,
                mtuBytes, fragmentBytes, topology, placement == null ? Placement.SPREAD : placement, !async, csv, chart, threads);
    }

    private static void count(String name, int n, int max) {
        if (n < 1 || n > max) {
            throw new UsageException("bad " + name + " '" + n + "': must be 1.." + max);
        }
    }
}
