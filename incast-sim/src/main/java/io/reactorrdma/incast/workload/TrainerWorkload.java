package io.reactorrdma.incast.workload;

import io.reactorrdma.incast.Simulation;
import io.reactorrdma.incast.Workload;

/**
 * The trainers of a parameter-server job (paper §2.1, §6.3): T trainers and S parameter servers on hosts that whoever
 * builds the topology chooses. Each trainer has one QP — one engine — to every PS. An iteration: the trainer computes
 * for {@link TrainerConfig#computePs()}, then posts one push to every PS at once, log-normal in size
 * ({@link TrainerConfig#sizeMu()}, {@link TrainerConfig#sizeSigma()}). Trainer t posts to PS t mod S first, then the
 * next ones in order, so the trainers do not all start on the same PS. Synchronous trainers start the next iteration
 * when every trainer's pushes of this one completed (a barrier); asynchronous ones when their own pushes completed.
 * A push completes at the ACK of its last packet; its latency, from the post, is the simulation's completion time.
 *
 * <p>Build a run:
 * <pre>{@code
 * Simulation sim = new Simulation(IncastConfig.defaults(), topology, SenderConfig.defaults().withWindowBytes(64 << 10));
 * TrainerWorkload w = TrainerWorkload.attach(sim, trainerHosts, serverHosts, TrainerConfig.defaults(), seed);
 * sim.run();  // then sim.completionPs() holds the push latencies
 * }</pre>
 *
 * <p>Seeded (one size stream drawn in event order) and deterministic; nothing is allocated per event.
 */
public final class TrainerWorkload implements Workload {

    /** A synchronous iteration's event: every trainer pushes. */
    private static final int ALL_TRAINERS = -1;

    private final int trainers;
    private final int servers;
    private final int firstFlow;
    private final TrainerConfig config;
    private final LogNormalSizes sizes;
    private final int[] pending;
    private final int[] iterationsDone;
    private int pendingAll;
    private long pushesPosted;
    private long pushesCompleted;

    private TrainerWorkload(int trainers, int servers, int firstFlow, TrainerConfig config, long seed) {
        this.trainers = trainers;
        this.servers = servers;
        this.firstFlow = firstFlow;
        this.config = config;
        this.sizes = new LogNormalSizes(config.sizeMu(), config.sizeSigma(), seed);
        this.pending = new int[trainers];
        this.iterationsDone = new int[trainers];
    }

    /**
     * Adds one flow (QP) from every trainer to every PS to {@code sim} and makes this workload the simulation's.
     *
     * @param trainerHosts the host of each trainer (a host may run several trainers)
     * @param serverHosts  the host of each PS; no trainer may share a host with a PS
     * @param seed         the push sizes' seed
     */
    public static TrainerWorkload attach(Simulation sim, int[] trainerHosts, int[] serverHosts, TrainerConfig config,
                                         long seed) {
        if (trainerHosts.length == 0 || serverHosts.length == 0) {
            throw new IllegalArgumentException(trainerHosts.length + " trainers and " + serverHosts.length
                    + " servers: a training job needs at least one of each");
        }
        for (int t = 0; t < trainerHosts.length; t++) {
            for (int s = 0; s < serverHosts.length; s++) {
                if (trainerHosts[t] == serverHosts[s]) {
                    throw new IllegalArgumentException("trainer " + t + " and PS " + s + " are both on host "
                            + serverHosts[s] + ": a trainer pushes over the fabric, so give them different hosts");
                }
            }
        }
        int first = -1;
        for (int t = 0; t < trainerHosts.length; t++) {
            for (int s = 0; s < serverHosts.length; s++) {
                int flow = sim.addFlow(trainerHosts[t], serverHosts[s]);
                if (first < 0) {
                    first = flow;
                } else if (flow != first + t * serverHosts.length + s) {
                    throw new IllegalStateException("flow ids are not consecutive (" + flow + "): add the trainers' "
                            + "flows in one go");
                }
            }
        }
        TrainerWorkload w = new TrainerWorkload(trainerHosts.length, serverHosts.length, first, config, seed);
        sim.workload(w);
        return w;
    }

    @Override
    public void start(Simulation sim) {
        if (config.synchronous()) {
            startIteration(sim, ALL_TRAINERS);
        } else {
            for (int t = 0; t < trainers; t++) {
                startIteration(sim, t);
            }
        }
    }

    /** Begins computing (one trainer, or all of them) unless the iterations or the time are used up. */
    private void startIteration(Simulation sim, int trainer) {
        int done = iterationsDone[trainer == ALL_TRAINERS ? 0 : trainer];
        if (done < config.iterations() && sim.nowPs() <= config.lastStartPs()) {
            sim.scheduleWorkload(sim.nowPs() + config.computePs(), trainer, 0);
        }
    }

    @Override
    public void onEvent(Simulation sim, int a, int b) {
        if (a == ALL_TRAINERS) {
            for (int t = 0; t < trainers; t++) {
                push(sim, t);
            }
        } else {
            push(sim, a);
        }
    }

    private void push(Simulation sim, int t) {
        pending[t] = servers;
        pendingAll += servers;
        pushesPosted += servers;
        for (int k = 0; k < servers; k++) {
            int s = (t + k) % servers;
            sim.postNow(flow(t, s), sizes.next());
        }
    }

    @Override
    public void onComplete(Simulation sim, int flow) {
        int index = flow - firstFlow;
        if (index < 0 || index >= trainers * servers) {
            return;
        }
        int t = index / servers;
        pushesCompleted++;
        pendingAll--;
        if (--pending[t] > 0) {
            return;
        }
        iterationsDone[t]++;
        if (!config.synchronous()) {
            startIteration(sim, t);
        } else if (pendingAll == 0) {
            startIteration(sim, ALL_TRAINERS);
        }
    }

    /** The flow (QP, engine) from trainer {@code t} to PS {@code s}. */
    public int flow(int t, int s) {
        return firstFlow + t * servers + s;
    }

    /** Trainers. */
    public int trainers() {
        return trainers;
    }

    /** Parameter servers. */
    public int servers() {
        return servers;
    }

    /** The workload's parameters. */
    public TrainerConfig config() {
        return config;
    }

    /** Pushes posted so far. */
    public long pushesPosted() {
        return pushesPosted;
    }

    /** Pushes completed so far. */
    public long pushesCompleted() {
        return pushesCompleted;
    }

    /** Iterations trainer {@code t} has completed (its pushes all acknowledged). */
    public int iterationsCompleted(int t) {
        return iterationsDone[t];
    }
}
