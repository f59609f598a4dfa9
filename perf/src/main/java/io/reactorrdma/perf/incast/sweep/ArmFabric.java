package io.reactorrdma.perf.incast.sweep;

import io.reactorrdma.perf.incast.Simulation;

/**
 * One arm's simulation, built and ready to run, with what {@link ArmMeasurement} needs to read it: the parameter
 * servers (the incast points), the flows, the tier of each port, and how to stop the workload posting.
 */
public interface ArmFabric {

    /** The simulation, its workload set, not yet run. */
    Simulation simulation();

    /** The parameter servers' hosts. */
    int[] serverHosts();

    /** Every flow (QP) of the run; their delivered bytes make the goodput. */
    int[] flows();

    /** The tier of {@code port}, for the PFC figures. */
    Tier tier(int port);

    /** The parameter servers' links together, b/s (the goodput's reference). */
    long serverLinkBitsPerSecond();

    /** From now on the workload posts nothing new; what it posted completes (the run then drains). */
    void stopPosting();

    /** ECN marks so far (0 when the arm runs no DCQCN). */
    long ecnMarks();

    /** CNPs sent so far (0 when the arm runs no DCQCN). */
    long cnps();
}
