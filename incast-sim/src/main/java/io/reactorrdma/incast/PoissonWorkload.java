package io.reactorrdma.incast;

import java.util.SplittableRandom;

/**
 * Each given flow posts messages of one size at exponentially distributed intervals (a Poisson process per flow),
 * until {@code total} messages have been posted over all flows. Seeded, so one seed gives one arrival sequence.
 */
public final class PoissonWorkload implements Workload {

    private final int[] flows;
    private final int messageBytes;
    private final double meanIntervalPs;
    private final long total;
    private final SplittableRandom random;
    private long posted;

    /**
     * @param flows          the flows that post
     * @param messageBytes   each message's payload bytes
     * @param meanIntervalPs the mean interval between one flow's messages
     * @param total          messages to post in all
     * @param seed           the random seed
     */
    public PoissonWorkload(int[] flows, int messageBytes, double meanIntervalPs, long total, long seed) {
        if (flows.length == 0 || messageBytes <= 0 || !(meanIntervalPs > 0) || total <= 0) {
            throw new IllegalArgumentException("flows " + flows.length + ", messageBytes " + messageBytes
                    + ", meanIntervalPs " + meanIntervalPs + ", total " + total + ": all must be positive");
        }
        this.flows = flows.clone();
        this.messageBytes = messageBytes;
        this.meanIntervalPs = meanIntervalPs;
        this.total = total;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public void start(Simulation sim) {
        for (int i = 0; i < flows.length; i++) {
            sim.scheduleWorkload(sim.nowPs() + interval(), i, 0);
        }
    }

    @Override
    public void onEvent(Simulation sim, int a, int b) {
        if (posted >= total) {
            return;
        }
        posted++;
        sim.postNow(flows[a], messageBytes);
        if (posted < total) {
            sim.scheduleWorkload(sim.nowPs() + interval(), a, 0);
        }
    }

    private long interval() {
        return Math.round(-Math.log(1.0 - random.nextDouble()) * meanIntervalPs);
    }
}
