package io.reactorrdma.incast;

import io.reactorrdma.incast.topology.Tier;
import io.reactorrdma.incast.topology.Topology;

/**
 * PFC per {@link Tier} for the report, summed over the ports of each tier as a simulation stands when taken: XOFFs
 * received, time paused (a pause still in force counts up to now), ports ever paused. The tiers partition the ports,
 * so the XOFFs of all tiers add up to {@link Simulation#xoffTotal()}.
 */
public final class PfcTiers {

    private final int[] ports = new int[Tier.values().length];
    private final int[] everPaused = new int[ports.length];
    private final long[] xoffs = new long[ports.length];
    private final long[] pausedPs = new long[ports.length];

    private PfcTiers(Simulation sim) {
        Topology topology = sim.topology();
        for (int p = 0; p < topology.ports(); p++) {
            int t = topology.tier(p).ordinal();
            ports[t]++;
            xoffs[t] += sim.xoffs(p);
            pausedPs[t] += sim.pausedPs(p);
            if (sim.everPaused(p)) {
                everPaused[t]++;
            }
        }
    }

    /** The counters of {@code sim} now (a pass over its ports; for reports, not for the event loop). */
    public static PfcTiers of(Simulation sim) {
        return new PfcTiers(sim);
    }

    /** Ports in {@code tier}. */
    public int ports(Tier tier) {
        return ports[tier.ordinal()];
    }

    /** XOFF frames received by the ports of {@code tier}. */
    public long xoffs(Tier tier) {
        return xoffs[tier.ordinal()];
    }

    /** Paused time summed over the ports of {@code tier}, picoseconds. */
    public long pausedPs(Tier tier) {
        return pausedPs[tier.ordinal()];
    }

    /** Ports of {@code tier} paused at least once. */
    public int everPaused(Tier tier) {
        return everPaused[tier.ordinal()];
    }

    /** The share (0..1) of {@code tier}'s ports paused at least once; 0 for a tier without ports. */
    public double everPausedShare(Tier tier) {
        int n = ports[tier.ordinal()];
        return n == 0 ? 0 : (double) everPaused[tier.ordinal()] / n;
    }

    /** The share (0..1) of host NICs paused at least once. */
    public double nicsEverPausedShare() {
        return everPausedShare(Tier.HOST_NIC);
    }

    /** XOFF frames received over all tiers. */
    public long xoffTotal() {
        long sum = 0;
        for (long x : xoffs) {
            sum += x;
        }
        return sum;
    }
}
