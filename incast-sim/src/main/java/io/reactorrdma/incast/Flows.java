package io.reactorrdma.incast;

import org.HdrHistogram.Histogram;

import java.util.Arrays;

/**
 * The flows (one per QP): source and destination host, the work requests (fragments) its engine posted and the NIC
 * has not yet packetized, how many are not yet acknowledged, bytes sent and acknowledged, and per-message completion
 * times (the application's post to the ACK of the message's last packet, reported by {@link SenderEngines}) in an
 * HdrHistogram in picoseconds. Work requests of a flow complete in order (one path, FIFO queues). Here "message"
 * in the packets' and method names means one work request, as in InfiniBand.
 */
final class Flows {

    /** Significant digits of the completion histogram. */
    static final int DEFAULT_HISTOGRAM_DIGITS = 3;

    private int count;
    private int[] src = new int[16];
    private int[] dst = new int[16];
    private IntFifo[] toSend = new IntFifo[16];
    private int[] unacked = new int[16];
    private int[] nextSendMessage = new int[16];
    private int[] nextAckMessage = new int[16];
    private long[] sentBytes = new long[16];
    private long[] ackedBytes = new long[16];
    private long[] deliveredBytes = new long[16];
    private int[] sinceAckPackets = new int[16];
    private int[] sinceAckBytes = new int[16];
    private final Histogram completionPs = new Histogram(DEFAULT_HISTOGRAM_DIGITS);
    private long completions;
    private long lastCompletionPs;
    private long digest = 1;

    int add(int source, int destination) {
        if (count == src.length) {
            int capacity = count * 2;
            src = Arrays.copyOf(src, capacity);
            dst = Arrays.copyOf(dst, capacity);
            toSend = Arrays.copyOf(toSend, capacity);
            unacked = Arrays.copyOf(unacked, capacity);
            nextSendMessage = Arrays.copyOf(nextSendMessage, capacity);
            nextAckMessage = Arrays.copyOf(nextAckMessage, capacity);
            sentBytes = Arrays.copyOf(sentBytes, capacity);
            ackedBytes = Arrays.copyOf(ackedBytes, capacity);
            deliveredBytes = Arrays.copyOf(deliveredBytes, capacity);
            sinceAckPackets = Arrays.copyOf(sinceAckPackets, capacity);
            sinceAckBytes = Arrays.copyOf(sinceAckBytes, capacity);
        }
        int id = count++;
        src[id] = source;
        dst[id] = destination;
        toSend[id] = new IntFifo();
        return id;
    }

    int count() {
        return count;
    }

    int src(int flow) {
        return src[flow];
    }

    int dst(int flow) {
        return dst[flow];
    }

    /** Queues a work request; true when the flow had nothing to send before (its NIC must take it up). */
    boolean post(int flow, int bytes) {
        boolean wasIdle = toSend[flow].isEmpty();
        toSend[flow].add(bytes);
        unacked[flow]++;
        return wasIdle;
    }

    boolean hasBacklog(int flow) {
        return !toSend[flow].isEmpty();
    }

    /** Payload bytes of the next packet of {@code flow} (at most {@code mtu}). */
    int nextPayload(int flow, int mtu) {
        return Math.min(mtu, toSend[flow].peek());
    }

    /** The sequence number of the message being packetized. */
    int sendingMessage(int flow) {
        return nextSendMessage[flow];
    }

    /** Takes {@code payload} bytes off the head message; true when that was its last packet. */
    boolean take(int flow, int payload) {
        IntFifo queue = toSend[flow];
        int left = queue.peek() - payload;
        sentBytes[flow] += payload;
        if (left == 0) {
            queue.poll();
            nextSendMessage[flow]++;
            return true;
        }
        queue.setHead(left);
        return false;
    }

    /** The receiver took a data packet; true when an ACK is due (every {@code ackEvery} packets and at a message's end). */
    boolean onData(int flow, int payload, boolean last, int ackEvery) {
        deliveredBytes[flow] += payload;
        sinceAckBytes[flow] += payload;
        return last || ++sinceAckPackets[flow] >= ackEvery;
    }

    /** Bytes the next ACK acknowledges; resets the receiver's count. */
    int takeAckBytes(int flow) {
        int bytes = sinceAckBytes[flow];
        sinceAckBytes[flow] = 0;
        sinceAckPackets[flow] = 0;
        return bytes;
    }

    /**
     * An ACK reached the sender; true when it completes a work request (it acknowledges the request's last packet).
     */
    boolean onAck(int flow, int ackBytes, int message, boolean last) {
        ackedBytes[flow] += ackBytes;
        if (!last) {
            return false;
        }
        if (message != nextAckMessage[flow]) {
            throw new IllegalStateException("flow " + flow + ": ACK for message " + message + " but message "
                    + nextAckMessage[flow] + " is the oldest unacknowledged; the model reordered a flow");
        }
        nextAckMessage[flow]++;
        unacked[flow]--;
        return true;
    }

    /** Records an application message's completion on {@code flow}: {@code latency} ps after its post. */
    void recordCompletion(int flow, long latency, long nowPs) {
        completionPs.recordValue(latency);
        completions++;
        lastCompletionPs = nowPs;
        digest = digest * 1_000_003L + latency * 31 + flow;
    }

    long sentBytes(int flow) {
        return sentBytes[flow];
    }

    long ackedBytes(int flow) {
        return ackedBytes[flow];
    }

    long deliveredBytes(int flow) {
        return deliveredBytes[flow];
    }

    /** True when every posted work request of every flow was sent and acknowledged. */
    boolean allAcknowledged() {
        for (int f = 0; f < count; f++) {
            if (!toSend[f].isEmpty() || unacked[f] != 0 || sentBytes[f] != ackedBytes[f]) {
                return false;
            }
        }
        return true;
    }

    Histogram completionPs() {
        return completionPs;
    }

    long completions() {
        return completions;
    }

    long lastCompletionPs() {
        return lastCompletionPs;
    }

    /** A hash of every completion (flow, latency) in order. */
    long digest() {
        return digest;
    }
}
