package io.reactorrdma.incast;

import java.util.Arrays;

/**
 * The packet pool: each packet is an index into primitive arrays, taken by {@link #allocate} and given back by
 * {@link #free} exactly once. The pool grows by doubling and never shrinks, so steady state allocates nothing.
 */
final class Packets {

    /** A data packet: one MTU or less of a message. */
    static final int DATA = 0;
    /** An ACK from the receiver. */
    static final int ACK = 1;
    /** A DCQCN congestion notification from the receiver to the sender (control priority, like the ACK). */
    static final int CNP = 2;

    private int[] kind = new int[256];
    private int[] flow = new int[256];
    private int[] wireBytes = new int[256];
    private int[] payloadBytes = new int[256];
    private int[] message = new int[256];
    private boolean[] last = new boolean[256];
    private int[] ingress = new int[256];
    private long[] enqueuedPs = new long[256];
    private boolean[] ce = new boolean[256];
    private boolean[] inUse = new boolean[256];
    private int[] freeList = new int[256];
    private int freeCount;
    private int created;
    private int live;

    int allocate(int packetKind, int packetFlow, int wire, int payload, int messageSeq, boolean lastOfMessage) {
        int id;
        if (freeCount > 0) {
            id = freeList[--freeCount];
        } else {
            if (created == kind.length) {
                grow();
            }
            id = created++;
        }
        kind[id] = packetKind;
        flow[id] = packetFlow;
        wireBytes[id] = wire;
        payloadBytes[id] = payload;
        message[id] = messageSeq;
        last[id] = lastOfMessage;
        ingress[id] = -1;
        ce[id] = false;
        inUse[id] = true;
        live++;
        return id;
    }

    void free(int id) {
        if (id < 0 || id >= created || !inUse[id]) {
            throw new IllegalStateException("packet " + id + " freed twice or never allocated: a model error");
        }
        inUse[id] = false;
        if (freeCount == freeList.length) {
            freeList = Arrays.copyOf(freeList, freeList.length * 2);
        }
        freeList[freeCount++] = id;
        live--;
    }

    /** Packets allocated and not yet freed; zero once a run has drained. */
    int live() {
        return live;
    }

    int kind(int id) {
        return kind[id];
    }

    int flow(int id) {
        return flow[id];
    }

    int wireBytes(int id) {
        return wireBytes[id];
    }

    int payloadBytes(int id) {
        return payloadBytes[id];
    }

    int message(int id) {
        return message[id];
    }

    boolean last(int id) {
        return last[id];
    }

    int ingress(int id) {
        return ingress[id];
    }

    void ingress(int id, int port) {
        ingress[id] = port;
    }

    long enqueuedPs(int id) {
        return enqueuedPs[id];
    }

    void enqueuedPs(int id, long atPs) {
        enqueuedPs[id] = atPs;
    }

    /** Whether a switch marked the packet Congestion Experienced (DCQCN's ECN). */
    boolean ce(int id) {
        return ce[id];
    }

    void markCe(int id) {
        ce[id] = true;
    }

    private void grow() {
        int capacity = kind.length * 2;
        kind = Arrays.copyOf(kind, capacity);
        flow = Arrays.copyOf(flow, capacity);
        wireBytes = Arrays.copyOf(wireBytes, capacity);
        payloadBytes = Arrays.copyOf(payloadBytes, capacity);
        message = Arrays.copyOf(message, capacity);
        last = Arrays.copyOf(last, capacity);
        ingress = Arrays.copyOf(ingress, capacity);
        enqueuedPs = Arrays.copyOf(enqueuedPs, capacity);
        ce = Arrays.copyOf(ce, capacity);
        inUse = Arrays.copyOf(inUse, capacity);
    }
}
