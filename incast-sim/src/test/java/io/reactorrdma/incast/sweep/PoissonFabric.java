package io.reactorrdma.incast.sweep;

import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;
import io.reactorrdma.incast.PoissonWorkload;
import io.reactorrdma.incast.Simulation;

/**
 * A test fabric for the sweep's mechanics: {@code senders} hosts post 8 KiB messages as Poisson processes to one
 * receiver, on one switch with a 512 KiB buffer; at 150 % of the receiver's link the queue grows, so PFC pauses the
 * NICs. PFC only; an arm here chooses nothing but the seed (its window's bytes are added to it), so arms differ and
 * each is reproducible.
 */
final class PoissonFabric implements ArmFabric {

    private final Simulation sim;
    private final StoppableWorkload workload;
    private final int[] flows;
    private final int receiver;

    PoissonFabric(Arm arm, int senders, long seed) {
        this(arm, senders, seed, Long.MAX_VALUE);
    }

    /** As above, the senders posting {@code total} messages in all (then the workload ends by itself). */
    PoissonFabric(Arm arm, int senders, long seed, long total) {
        sim = new Simulation(IncastConfig.defaults().withSwitchBufferBytes(512 * 1024), new OneBigSwitch(senders + 1));
        receiver = senders;
        flows = new int[senders];
        for (int h = 0; h < senders; h++) {
            flows[h] = sim.addFlow(h, receiver);
        }
        double interval = senders * 8.0 * 1106 * 320 / 1.5;
        workload = new StoppableWorkload(new PoissonWorkload(flows, 8 * 1024, interval, total,
                seed + Math.max(0, arm.windowBytes())));
        sim.workload(workload);
    }

    @Override
    public Simulation simulation() {
        return sim;
    }

    @Override
    public int[] serverHosts() {
        return new int[] {receiver};
    }

    @Override
    public int[] flows() {
        return flows.clone();
    }

    @Override
    public long serverLinkBitsPerSecond() {
        return sim.config().linkBitsPerSecond();
    }

    @Override
    public void stopPosting() {
        workload.stop();
    }
}
