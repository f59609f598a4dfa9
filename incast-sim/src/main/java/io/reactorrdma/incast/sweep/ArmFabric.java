package io.reactorrdma.incast.sweep;

import io.reactorrdma.incast.Simulation;

/**
 * One arm's simulation, built and ready to run, with what {@link ArmMeasurement} needs to read it: the parameter
 * servers (the incast points), the flows, and how to stop the workload posting. The tier of each port comes from the
 * simulation's {@code Topology.tier}.
 */
public interface ArmFabric {

    /** The simulation, its workload set, not yet run. */
    Simulation simulation();

    /** The parameter servers' hosts. */
    int[] serverHosts();

    /** Every flow (QP) of the run; their delivered bytes make the goodput. */
    int[] flows();

    /** The parameter servers' links together, b/s (the goodput's reference). */
    long serverLinkBitsPerSecond();

    /** From now on the workload posts nothing new; what it posted completes (the run then drains). */
    void stopPosting();
}
