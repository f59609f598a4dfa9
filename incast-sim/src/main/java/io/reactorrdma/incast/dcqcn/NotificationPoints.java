package io.reactorrdma.incast.dcqcn;

import java.util.Arrays;

/**
 * DCQCN's notification point in the receivers' NICs: on a CE-marked data packet of a QP, a CNP goes back to the
 * sender unless one went for that QP less than the CNP interval ago (the paper's NP; htsim's delayed CNP for marks
 * inside the interval is not modelled). Counts CNPs.
 */
public final class NotificationPoints {

    private static final long NEVER = Long.MIN_VALUE;

    private final long intervalPs;
    private long[] lastCnpPs = new long[16];
    private long total;

    public NotificationPoints(DcqcnConfig config) {
        this.intervalPs = config.cnpIntervalPs();
        Arrays.fill(lastCnpPs, NEVER);
    }

    /** A marked packet of {@code flow} arrived at {@code nowPs}: true when a CNP is to be sent now (and counts it). */
    public boolean onMarked(int flow, long nowPs) {
        if (flow >= lastCnpPs.length) {
            int old = lastCnpPs.length;
            lastCnpPs = Arrays.copyOf(lastCnpPs, Math.max(2 * old, flow + 1));
            Arrays.fill(lastCnpPs, old, lastCnpPs.length, NEVER);
        }
        long last = lastCnpPs[flow];
        if (last != NEVER && nowPs - last < intervalPs) {
            return false;
        }
        lastCnpPs[flow] = nowPs;
        total++;
        return true;
    }

    public long total() {
        return total;
    }
}
