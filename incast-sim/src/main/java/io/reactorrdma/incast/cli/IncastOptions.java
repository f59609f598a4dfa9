package io.reactorrdma.incast.cli;

import io.reactorrdma.incast.topology.Placement;
import io.reactorrdma.incast.sweep.Arm;
import io.reactorrdma.incast.sweep.Sweep;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The parsed command line of {@code incast-sim} ({@link IncastArguments} reads it). Immutable; every default declared once here.
 *
 * @param trainers   trainer hosts (default {@value #DEFAULT_TRAINERS})
 * @param servers    parameter-server hosts (default {@value #DEFAULT_SERVERS})
 * @param windows    the sweep's windows in bytes, ascending (default 8 KiB … 1 MiB in powers of two)
 * @param windowOff  whether the sweep holds {@code off}: the DCQCN arm without a window (default true)
 * @param kinds      the arms asked for (default all: pfc, dcqcn, window)
 * @param durationPs simulated time during which trainers start iterations (default 50 ms); what they post then drains
 * @param computePs  how long a trainer computes before each push round, ps; null for the workload's default
 * @param iterations iterations per trainer at most (default {@link Integer#MAX_VALUE}: the duration alone bounds them);
 *                   equal work for every arm, where the duration alone lets faster arms run more iterations
 * @param seed       the random seed (default {@value #DEFAULT_SEED})
 * @param mtuBytes   the RoCE MTU (default 1024)
 * @param fragmentBytes the engines' fragment size (default the engine's, {@code SenderConfig.DEFAULT_FRAGMENT_BYTES}:
 *                   64 KiB); a push of one fragment is never held back by a window, so smaller fragments let it act
 * @param topology   leaf-spine (default) or one-switch
 * @param placement  where the servers sit on a leaf-spine: spread across the ToRs (default) or clustered
 * @param sync       synchronous trainers (default: a barrier per iteration) or asynchronous
 * @param csv        standard output holds only the CSV
 * @param chart      where to draw the chart, or null
 * @param threads    arms run at once (default {@value Sweep#DEFAULT_THREADS})
 */
public record IncastOptions(int trainers, int servers, List<Long> windows, boolean windowOff, Set<Arm.Kind> kinds,
                            long durationPs, Long computePs, int iterations, long seed, int mtuBytes, int fragmentBytes,
                            TopologyKind topology, Placement placement,
                            boolean sync, boolean csv, Path chart, int threads) {

    /** The paper's trainers and parameter servers (§6.3). */
    public static final int DEFAULT_TRAINERS = 346;
    public static final int DEFAULT_SERVERS = 124;
    /** 50 ms of simulated time: about ten synchronous iterations at the paper's scale. */
    public static final long DEFAULT_DURATION_PS = 50_000_000_000L;
    public static final long DEFAULT_SEED = 1;
    /** The default sweep: 8 KiB … 1 MiB in powers of two, and off. */
    public static final long DEFAULT_WINDOW_MIN_BYTES = 8 * 1024;
    public static final long DEFAULT_WINDOW_MAX_BYTES = 1024 * 1024;
    /** The longest simulated duration accepted: 10 s (a paper-scale run of 50 ms already takes minutes). */
    public static final long MAX_DURATION_PS = 10_000_000_000_000L;
    /** The most hosts one switch is given. */
    public static final int MAX_ONE_SWITCH_HOSTS = 4096;
    public static final int MAX_THREADS = 64;
    /** The largest window: 1 GiB (the engine's window is a long, but nothing larger is meaningful here). */
    public static final long MAX_WINDOW_BYTES = 1L << 30;

    /** The topologies. */
    public enum TopologyKind {
        LEAF_SPINE("leaf-spine"), ONE_SWITCH("one-switch");

        private final String id;

        TopologyKind(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }
    }

    public IncastOptions {
        windows = List.copyOf(windows);
        kinds = Set.copyOf(kinds);
    }

    /** The arms to run, in order: PFC only, DCQCN without a window (also the sweep's "off"), then each window ascending. */
    public List<Arm> arms() {
        List<Arm> arms = new ArrayList<>();
        if (kinds.contains(Arm.Kind.PFC)) {
            arms.add(Arm.pfc());
        }
        if (kinds.contains(Arm.Kind.DCQCN) || (kinds.contains(Arm.Kind.WINDOW) && windowOff)) {
            arms.add(Arm.dcqcn());
        }
        if (kinds.contains(Arm.Kind.WINDOW)) {
            for (long w : windows) {
                arms.add(Arm.window(w));
            }
        }
        return arms;
    }

    /** The sweep's windows unless {@code --window} is given. */
    public static List<Long> defaultWindows() {
        List<Long> w = new ArrayList<>();
        for (long b = DEFAULT_WINDOW_MIN_BYTES; b <= DEFAULT_WINDOW_MAX_BYTES; b *= 2) {
            w.add(b);
        }
        return w;
    }
}
