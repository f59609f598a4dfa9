package io.reactorrdma.incast;

import java.util.Arrays;

/**
 * Per host NIC, the flows that have something to send but wait for their rate limiter: a binary min-heap of
 * (eligible time, flow) on primitive arrays, ties by flow id, so the order in which waiting flows rejoin the NIC's
 * round-robin is deterministic. Grows by doubling; steady state allocates nothing.
 */
final class PacedFlows {

    private final long[][] times;
    private final int[][] flows;
    private final int[] sizes;

    PacedFlows(int hosts) {
        times = new long[hosts][8];
        flows = new int[hosts][8];
        sizes = new int[hosts];
    }

    /** {@code flow} of {@code host} may send again at {@code eligiblePs}. */
    void add(int host, long eligiblePs, int flow) {
        if (sizes[host] == times[host].length) {
            times[host] = Arrays.copyOf(times[host], 2 * sizes[host]);
            flows[host] = Arrays.copyOf(flows[host], 2 * sizes[host]);
        }
        long[] t = times[host];
        int[] fl = flows[host];
        int i = sizes[host]++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!less(eligiblePs, flow, t[parent], fl[parent])) {
                break;
            }
            t[i] = t[parent];
            fl[i] = fl[parent];
            i = parent;
        }
        t[i] = eligiblePs;
        fl[i] = flow;
    }

    /** Moves every flow of {@code host} eligible at {@code nowPs} to the tail of {@code ring}, earliest first. */
    void release(int host, long nowPs, IntFifo ring) {
        long[] t = times[host];
        int[] fl = flows[host];
        while (sizes[host] > 0 && t[0] <= nowPs) {
            ring.add(fl[0]);
            int last = --sizes[host];
            if (last > 0) {
                siftDown(t, fl, last, t[last], fl[last]);
            }
        }
    }

    /** The earliest time a waiting flow of {@code host} becomes eligible; {@link Long#MAX_VALUE} when none waits. */
    long nextEligiblePs(int host) {
        return sizes[host] == 0 ? Long.MAX_VALUE : times[host][0];
    }

    /** Flows of {@code host} waiting. */
    int waiting(int host) {
        return sizes[host];
    }

    private static void siftDown(long[] t, int[] fl, int size, long time, int flow) {
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && less(t[right], fl[right], t[child], fl[child])) {
                child = right;
            }
            if (!less(t[child], fl[child], time, flow)) {
                break;
            }
            t[i] = t[child];
            fl[i] = fl[child];
            i = child;
        }
        t[i] = time;
        fl[i] = flow;
    }

    private static boolean less(long t1, int f1, long t2, int f2) {
        return t1 < t2 || (t1 == t2 && f1 < f2);
    }
}
