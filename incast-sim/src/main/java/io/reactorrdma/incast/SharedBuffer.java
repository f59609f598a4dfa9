package io.reactorrdma.incast;

import io.reactorrdma.incast.topology.IncastConfig;

/**
 * One switch's shared buffer with per-ingress accounting and PFC decisions. A packet is charged to its ingress port:
 * first the port's reserve, then the shared pool while the port's shared use is below the dynamic threshold
 * T = (buffer − Σheadroom − Σreserve − shared use) >> α-shift, and to the port's headroom once it is over T. XOFF is
 * due when the port's shared use reaches T or its headroom is in use; XON when the headroom is empty and shared use +
 * the XON offset ≤ T. Release (on dequeue) empties headroom first, then shared, then reserve. Exceeding the headroom
 * (with PFC) or the buffer (without) is a model error, thrown with the port and occupancy. Headroom is per port
 * ({@link Links#headroomBytes}: it grows with the link's rate), so Σheadroom counts each port's own.
 */
final class SharedBuffer {

    private final int sw;
    private final int firstPort;
    private final boolean pfc;
    private final long buffer;
    private final long reserve;
    private final long[] headroom;
    private final long xonOffset;
    private final int alphaShift;
    private final long fixed;
    private final long[] reserveUsed;
    private final long[] sharedUsed;
    private final long[] headroomUsed;
    private final boolean[] xoffSent;
    private long sharedTotal;
    private long used;
    private long maxIngress;
    private long maxUsed;

    /** Switch {@code sw} with {@code ports} ports from {@code firstPort}, a buffer of {@code bufferBytes}. */
    SharedBuffer(int sw, int firstPort, int ports, long bufferBytes, Links links, IncastConfig config) {
        this.sw = sw;
        this.firstPort = firstPort;
        this.pfc = config.pfcEnabled();
        this.buffer = bufferBytes;
        this.reserve = config.reserveBytes();
        this.headroom = new long[ports];
        long sum = 0;
        for (int i = 0; i < ports; i++) {
            headroom[i] = pfc ? links.headroomBytes(firstPort + i) : 0;
            sum += reserve + headroom[i];
        }
        this.xonOffset = config.xonOffsetBytes();
        this.alphaShift = config.dtAlphaShift();
        this.fixed = sum;
        if (fixed >= buffer) {
            throw new IllegalArgumentException("switch " + sw + ": reserve + headroom for " + ports + " ports ("
                    + fixed + " B) leave no shared buffer of " + buffer + " B; give a larger switchBufferBytes (or "
                    + "LeafSpineConfig.spineBufferBytes for a spine)");
        }
        reserveUsed = new long[ports];
        sharedUsed = new long[ports];
        headroomUsed = new long[ports];
        xoffSent = new boolean[ports];
    }

    /** The dynamic threshold now, in bytes of shared use per ingress port. */
    long threshold() {
        return (buffer - fixed - sharedTotal) >> alphaShift;
    }

    /** Charges {@code bytes} to ingress {@code port}; true when an XOFF is due now. */
    boolean admit(int port, int bytes) {
        int i = port - firstPort;
        long r = Math.min(bytes, reserve - reserveUsed[i]);
        reserveUsed[i] += r;
        long rest = bytes - r;
        if (rest > 0) {
            if (pfc && (xoffSent[i] || sharedUsed[i] + rest > threshold())) {
                headroomUsed[i] += rest;
                if (headroomUsed[i] > headroom[i]) {
                    throw new IllegalStateException("switch " + sw + " ingress port " + port + ": headroom overflow, "
                            + headroomUsed[i] + " B > " + headroom[i] + " B (shared " + sharedUsed[i] + " B, threshold "
                            + threshold() + " B): the model lost a packet; PFC headroom is too small for this link");
                }
            } else {
                sharedUsed[i] += rest;
                sharedTotal += rest;
            }
        }
        used += bytes;
        if (!pfc && used + fixed > buffer) {
            throw new IllegalStateException("switch " + sw + " ingress port " + port + ": buffer overflow, " + used
                    + " B in use of " + buffer + " B without PFC: the model would drop here");
        }
        long ingress = reserveUsed[i] + sharedUsed[i] + headroomUsed[i];
        maxIngress = Math.max(maxIngress, ingress);
        maxUsed = Math.max(maxUsed, used);
        if (pfc && !xoffSent[i] && (headroomUsed[i] > 0 || sharedUsed[i] >= threshold())) {
            xoffSent[i] = true;
            return true;
        }
        return false;
    }

    /** Releases {@code bytes} of ingress {@code port}; true when an XON is due now. */
    boolean release(int port, int bytes) {
        int i = port - firstPort;
        long rest = bytes;
        long h = Math.min(rest, headroomUsed[i]);
        headroomUsed[i] -= h;
        rest -= h;
        long s = Math.min(rest, sharedUsed[i]);
        sharedUsed[i] -= s;
        sharedTotal -= s;
        rest -= s;
        if (rest > reserveUsed[i]) {
            throw new IllegalStateException("switch " + sw + " ingress port " + port + ": released " + bytes
                    + " B more than it holds: a model accounting error");
        }
        reserveUsed[i] -= rest;
        used -= bytes;
        if (xoffSent[i] && headroomUsed[i] == 0 && sharedUsed[i] + xonOffset <= threshold()) {
            xoffSent[i] = false;
            return true;
        }
        return false;
    }

    /** Bytes held for ingress {@code port} now. */
    long ingressBytes(int port) {
        int i = port - firstPort;
        return reserveUsed[i] + sharedUsed[i] + headroomUsed[i];
    }

    /** Bytes held in the whole buffer now. */
    long usedBytes() {
        return used;
    }

    /** The largest one ingress port ever held. */
    long maxIngressBytes() {
        return maxIngress;
    }

    /** The most the buffer ever held. */
    long maxUsedBytes() {
        return maxUsed;
    }

    /** True when every counter is zero and no XOFF is outstanding. */
    boolean isEmpty() {
        if (used != 0 || sharedTotal != 0) {
            return false;
        }
        for (int i = 0; i < xoffSent.length; i++) {
            if (reserveUsed[i] != 0 || sharedUsed[i] != 0 || headroomUsed[i] != 0 || xoffSent[i]) {
                return false;
            }
        }
        return true;
    }
}
