package io.reactorrdma.incast;

/**
 * Per port: the data bytes and packets waiting to be sent (the packet on the wire is not counted), the peak of that
 * queue over values that held for a positive time (so the order of simultaneous events does not change it), the
 * integral of waiting packets over time, and the waits of dequeued packets. With the queue empty at both ends,
 * Little's law holds exactly: the integral equals the sum of waits.
 */
final class QueueStats {

    private final long[] bytes;
    private final long[] packets;
    private final long[] lastChangePs;
    private final long[] peakBytes;
    private final long[] packetPsIntegral;
    private final long[] waitPsSum;
    private final long[] dequeued;
    private final long[] enqueued;
    private final long[] firstEnqueuePs;
    private final long[] lastEnqueuePs;

    QueueStats(int ports) {
        bytes = new long[ports];
        packets = new long[ports];
        lastChangePs = new long[ports];
        peakBytes = new long[ports];
        packetPsIntegral = new long[ports];
        waitPsSum = new long[ports];
        dequeued = new long[ports];
        enqueued = new long[ports];
        firstEnqueuePs = new long[ports];
        lastEnqueuePs = new long[ports];
    }

    void enqueue(int port, int wireBytes, long nowPs) {
        settle(port, nowPs);
        bytes[port] += wireBytes;
        packets[port]++;
        if (enqueued[port]++ == 0) {
            firstEnqueuePs[port] = nowPs;
        }
        lastEnqueuePs[port] = nowPs;
    }

    void dequeue(int port, int wireBytes, long waitPs, long nowPs) {
        settle(port, nowPs);
        bytes[port] -= wireBytes;
        packets[port]--;
        waitPsSum[port] += waitPs;
        dequeued[port]++;
    }

    private void settle(int port, long nowPs) {
        long held = nowPs - lastChangePs[port];
        if (held > 0) {
            peakBytes[port] = Math.max(peakBytes[port], bytes[port]);
            packetPsIntegral[port] += packets[port] * held;
            lastChangePs[port] = nowPs;
        }
    }

    long bytes(int port) {
        return bytes[port];
    }

    /** The largest queue in bytes that held for a positive time. */
    long peakBytes(int port) {
        return Math.max(peakBytes[port], bytes[port]);
    }

    /** ∫ waiting packets dt in packet·ps, up to the last change. */
    long packetPsIntegral(int port) {
        return packetPsIntegral[port];
    }

    long waitPsSum(int port) {
        return waitPsSum[port];
    }

    long dequeued(int port) {
        return dequeued[port];
    }

    long enqueued(int port) {
        return enqueued[port];
    }

    /** Time from the first to the last data packet queued at {@code port}. */
    long arrivalSpanPs(int port) {
        return lastEnqueuePs[port] - firstEnqueuePs[port];
    }
}
