package io.reactorrdma.incast.dcqcn;

import java.util.SplittableRandom;

/**
 * DCQCN's congestion point: a switch egress marks a data packet CE as it dequeues it, with probability 0 while the
 * queue it leaves behind is at or below Kmin, Pmax·(q − Kmin)/(Kmax − Kmin) up to Kmax, and 1 above (RED-like, as
 * S1 marks at dequeue). One seeded {@link SplittableRandom} per simulation, drawn only on the ramp, so the run is
 * deterministic and draws nothing while queues stay short. Counts marks per port.
 */
public final class EcnMarker {

    private final long kmin;
    private final long kmax;
    private final double pmax;
    private final SplittableRandom random;
    private final long[] marks;
    private long total;

    public EcnMarker(DcqcnConfig config, int ports, long seed) {
        this.kmin = config.kminBytes();
        this.kmax = config.kmaxBytes();
        this.pmax = config.pmax();
        this.random = new SplittableRandom(seed);
        this.marks = new long[ports];
    }

    /** Whether the packet leaving {@code port} with {@code queueBytes} behind it is marked; counts the mark. */
    public boolean mark(int port, long queueBytes) {
        if (queueBytes <= kmin) {
            return false;
        }
        if (queueBytes <= kmax && random.nextDouble() >= pmax * (queueBytes - kmin) / (kmax - kmin)) {
            return false;
        }
        marks[port]++;
        total++;
        return true;
    }

    public long marks(int port) {
        return marks[port];
    }

    public long total() {
        return total;
    }
}
