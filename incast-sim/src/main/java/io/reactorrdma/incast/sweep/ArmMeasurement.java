package io.reactorrdma.incast.sweep;

import io.reactorrdma.incast.PfcTiers;
import io.reactorrdma.incast.Simulation;
import io.reactorrdma.incast.topology.Tier;
import io.reactorrdma.incast.topology.Topology;

import org.HdrHistogram.Histogram;

/**
 * Runs one arm's simulation for a duration of simulated time, then stops the workload posting and drains what was
 * posted, and reads the figures of an {@link ArmResult}. The time-weighted p99 queue is sampled: the run advances in
 * slices of {@link #DEFAULT_SAMPLE_PS} and after each slice records the egress queue towards every parameter server
 * (equal slices make the samples' distribution the time-weighted one, to within a slice). The samples cover the
 * duration up to the slice of its last completion (a run whose work ends early is not diluted by idle samples);
 * the drain after the duration is not sampled.
 */
public final class ArmMeasurement {

    /** The queue sampling interval: 10 µs of simulated time (the model notes' SAMPLE event). */
    public static final long DEFAULT_SAMPLE_PS = 10_000_000L;

    private ArmMeasurement() {
    }

    /** Runs {@code fabric} for {@code durationPs} of posting plus the drain, and measures it as {@code arm}. */
    public static ArmResult run(Arm arm, ArmFabric fabric, long durationPs) {
        if (durationPs <= 0) {
            throw new IllegalArgumentException("duration " + durationPs + " ps: must be positive");
        }
        long start = System.nanoTime();
        Simulation sim = fabric.simulation();
        Topology topology = sim.topology();
        int[] servers = fabric.serverHosts();
        int[] serverPorts = new int[servers.length];
        for (int i = 0; i < servers.length; i++) {
            serverPorts[i] = topology.peer(servers[i]); // the switch port that transmits to the server
        }
        Histogram queue = new Histogram(3);
        Histogram sinceCompletion = new Histogram(3); // samples not yet followed by a completion
        long completions = 0;
        long t = 0;
        while (t < durationPs) {
            t = Math.min(durationPs, t + DEFAULT_SAMPLE_PS);
            sim.runUntil(t);
            for (int port : serverPorts) {
                sinceCompletion.recordValue(sim.queueBytes(port));
            }
            if (sim.completions() != completions) {
                completions = sim.completions();
                queue.add(sinceCompletion);
                sinceCompletion.reset();
            }
        }
        fabric.stopPosting();
        sim.run();
        if (!sim.drained()) {
            throw new IllegalStateException(arm.label() + ": the fabric did not drain after the workload stopped "
                    + "(a buffer counter, a pause or a message is left): a model error");
        }
        long wall = System.nanoTime() - start;
        PfcTiers pfc = PfcTiers.of(sim);
        long[] xoffs = new long[Tier.values().length];
        long[] paused = new long[Tier.values().length];
        for (Tier tier : Tier.values()) {
            xoffs[tier.ordinal()] = pfc.xoffs(tier);
            paused[tier.ordinal()] = pfc.pausedPs(tier);
        }
        long maxQueue = 0;
        for (int port = 0; port < topology.ports(); port++) {
            if (topology.switchOf(port) >= 0) {
                maxQueue = Math.max(maxQueue, sim.peakQueueBytes(port));
            }
        }
        long delivered = 0;
        for (int flow : fabric.flows()) {
            delivered += sim.deliveredBytes(flow);
        }
        Histogram push = sim.completionPs();
        return new ArmResult(arm, push.getTotalCount(), push.getValueAtPercentile(50) / 1e6,
                push.getValueAtPercentile(99) / 1e6, push.getValueAtPercentile(99.9) / 1e6, xoffs, paused,
                pfc.nicsEverPausedShare(), maxQueue, queue.getTotalCount() == 0 ? 0 : queue.getValueAtPercentile(99),
                sim.ecnMarks(), sim.cnps(), delivered, sim.nowPs(), fabric.serverLinkBitsPerSecond(),
                sim.events(), wall);
    }
}
