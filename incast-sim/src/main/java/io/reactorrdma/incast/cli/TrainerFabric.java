package io.reactorrdma.incast.cli;

import io.reactorrdma.tools.cli.UsageException;
import io.reactorrdma.incast.dcqcn.DcqcnConfig;
import io.reactorrdma.incast.topology.HostPlan;
import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.LeafSpine;
import io.reactorrdma.incast.topology.LeafSpineConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;
import io.reactorrdma.incast.SenderConfig;
import io.reactorrdma.incast.Simulation;
import io.reactorrdma.incast.topology.Topology;
import io.reactorrdma.incast.workload.TrainerConfig;
import io.reactorrdma.incast.workload.TrainerWorkload;
import io.reactorrdma.incast.sweep.Arm;
import io.reactorrdma.incast.sweep.ArmFabric;

import java.util.Locale;

/**
 * One arm of incast-sim as a simulation: the fabric ({@link LeafSpine} at {@link LeafSpineConfig}'s defaults, or
 * {@link OneBigSwitch}) with PFC, DCQCN ({@link DcqcnConfig}'s defaults) unless the arm is PFC only, every engine's
 * send window the arm's W (or none), and the trainers' workload ({@link TrainerWorkload}): every trainer pushes to
 * every server, iterations begin until the duration's end, then what was posted drains. Servers take the first
 * hosts of the placement, trainers the next ones (one switch: servers 0..S-1, trainers S..S+T-1).
 */
final class TrainerFabric implements ArmFabric {

    private final Simulation sim;
    private final int[] servers;
    private final int[] flows;
    private final long serverLinks;

    private TrainerFabric(Simulation sim, int[] servers, int[] flows, long serverLinks) {
        this.sim = sim;
        this.servers = servers;
        this.flows = flows;
        this.serverLinks = serverLinks;
    }

    /** The hosts the default leaf-spine holds. */
    static int maxLeafSpineHosts() {
        return LeafSpineConfig.defaults().hosts();
    }

    /** The default leaf-spine in words, for the usage text. */
    static String leafSpineShape() {
        LeafSpineConfig c = LeafSpineConfig.defaults();
        return String.format(Locale.ROOT, "%d ToRs x %d hosts at %d Gb/s, %d spines at %d Gb/s", c.tors(), c.hostsPerTor(),
                IncastConfig.DEFAULT_LINK_BITS_PER_SECOND / 1_000_000_000L, c.spines(), c.uplinkBitsPerSecond() / 1_000_000_000L);
    }

    /** The workload's default compute time in words, for the usage text. */
    static String defaultCompute() {
        return String.format(Locale.ROOT, "%.1fms (the time a server's link needs for one round of the paper's pushes)",
                TrainerConfig.DEFAULT_COMPUTE_PS / 1e9);
    }

    /** Checks what only the model can: the fragment size and every window are ones the real engine accepts. */
    static void check(IncastOptions o) {
        try {
            sender(o, SenderConfig.WINDOW_OFF);
        } catch (IllegalArgumentException e) {
            throw new UsageException("bad --fragment " + Arm.size(o.fragmentBytes()) + ": " + e.getMessage());
        }
        for (long w : o.windows()) {
            try {
                sender(o, w);
            } catch (IllegalArgumentException e) {
                throw new UsageException("bad window " + Arm.size(w) + " in --window: " + e.getMessage());
            }
        }
    }

    private static SenderConfig sender(IncastOptions o, long window) {
        return new SenderConfig(window, SenderConfig.DEFAULT_CHAIN_DEPTH, o.fragmentBytes());
    }

    /** The fabric of {@code arm} under {@code o}, its workload attached, not yet run. */
    static ArmFabric build(IncastOptions o, Arm arm) {
        IncastConfig config = IncastConfig.defaults().withMtuBytes(o.mtuBytes());
        Topology topology;
        int[] serverHosts = new int[o.servers()];
        int[] trainerHosts = new int[o.trainers()];
        if (o.topology() == IncastOptions.TopologyKind.LEAF_SPINE) {
            LeafSpine leafSpine = new LeafSpine(LeafSpineConfig.defaults());
            HostPlan plan = leafSpine.place(o.placement(), o.servers(), o.trainers());
            for (int s = 0; s < serverHosts.length; s++) {
                serverHosts[s] = plan.server(s);
            }
            for (int t = 0; t < trainerHosts.length; t++) {
                trainerHosts[t] = plan.trainer(t);
            }
            topology = leafSpine;
        } else {
            for (int s = 0; s < serverHosts.length; s++) {
                serverHosts[s] = s;
            }
            for (int t = 0; t < trainerHosts.length; t++) {
                trainerHosts[t] = o.servers() + t;
            }
            topology = new OneBigSwitch(o.trainers() + o.servers());
        }
        SenderConfig sender = sender(o, arm.windowed() ? arm.windowBytes() : SenderConfig.WINDOW_OFF);
        Simulation sim = new Simulation(config, topology, sender);
        if (arm.runsDcqcn()) {
            sim.congestionControl(DcqcnConfig.defaults(), o.seed());
        }
        TrainerConfig trainers = TrainerConfig.defaults().withIterations(o.iterations()).withSynchronous(o.sync())
                .withLastStartPs(o.durationPs());
        if (o.computePs() != null) {
            trainers = trainers.withComputePs(o.computePs());
        }
        TrainerWorkload workload = TrainerWorkload.attach(sim, trainerHosts, serverHosts, trainers, o.seed());
        int[] flows = new int[o.trainers() * o.servers()];
        for (int t = 0; t < o.trainers(); t++) {
            for (int s = 0; s < o.servers(); s++) {
                flows[t * o.servers() + s] = workload.flow(t, s);
            }
        }
        return new TrainerFabric(sim, serverHosts, flows, config.linkBitsPerSecond() * o.servers());
    }

    @Override
    public Simulation simulation() {
        return sim;
    }

    @Override
    public int[] serverHosts() {
        return servers.clone();
    }

    @Override
    public int[] flows() {
        return flows.clone();
    }

    @Override
    public long serverLinkBitsPerSecond() {
        return serverLinks;
    }

    @Override
    public void stopPosting() {
        // the workload's lastStartPs is the duration: no iteration begins after it, so nothing is left to stop
    }
}
