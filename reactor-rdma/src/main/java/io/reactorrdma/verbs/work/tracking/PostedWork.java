package io.reactorrdma.verbs.work.tracking;

import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WrOpcode;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What one queue pair has posted and not yet seen complete: the send ring (the caller's wrId,
 * opcode and byte count per slot, so completions report them and errors can name the request)
 * and the receive FIFO (the caller's wrIds; RC receives complete in posting order, flushes
 * included). The poster fills slots and then publishes its counter with a release store; the
 * poller reads that counter with acquire before reading slots, and publishes retirement the same
 * way. One posting thread and one polling thread may differ; neither locks nor allocates.
 */
public final class PostedWork {

    private final int sendDepth;
    private final long[] sendWrId;
    private final WrOpcode[] sendOpcode;
    private final long[] sendBytes;
    private final AtomicLong sendPosted = new AtomicLong();
    private final AtomicLong sendRetired = new AtomicLong();

    private final int recvDepth;
    private final long[] recvWrId;
    private final AtomicLong recvPosted = new AtomicLong();
    private final AtomicLong recvRetired = new AtomicLong();

    PostedWork(int sendDepth, int recvDepth) {
        if (sendDepth >= WrTokens.MAX_SLOTS) {
            throw new IllegalArgumentException("send depth " + sendDepth + " exceeds " + (WrTokens.MAX_SLOTS - 1));
        }
        this.sendDepth = sendDepth;
        this.sendWrId = new long[sendDepth];
        this.sendOpcode = new WrOpcode[sendDepth];
        this.sendBytes = new long[sendDepth];
        this.recvDepth = recvDepth;
        this.recvWrId = new long[recvDepth];
    }

    public int freeSendSlots() {
        return sendDepth - (int) (sendPosted.get() - sendRetired.getAcquire());
    }

    public int freeRecvSlots() {
        return recvDepth - (int) (recvPosted.get() - recvRetired.getAcquire());
    }

    /** The slot the {@code i}-th request of the next batch will take (poster thread). */
    public int nextSendSlot(int i) {
        return (int) ((sendPosted.get() + i) % sendDepth);
    }

    /** Records {@code count} requests in the next slots; call {@link #publishSends} before the post. */
    public void recordSends(SendWr[] wrs, int from, int count) {
        long p = sendPosted.get();
        for (int i = 0; i < count; i++) {
            int slot = (int) ((p + i) % sendDepth);
            SendWr wr = wrs[from + i];
            sendWrId[slot] = wr.wrId();
            sendOpcode[slot] = wr.opcode();
            sendBytes[slot] = wr.totalLength();
        }
    }

    public void publishSends(int count) {
        sendPosted.setRelease(sendPosted.get() + count);
    }

    public void recordRecvs(long[] wrIds, int count) {
        long p = recvPosted.get();
        for (int i = 0; i < count; i++) {
            recvWrId[(int) ((p + i) % recvDepth)] = wrIds[i];
        }
        recvPosted.setRelease(p + count);
    }

    // ---------------------------------------------------------------- poller side

    long sendWrId(int slot) {
        sendPosted.getAcquire();
        return sendWrId[slot];
    }

    WrOpcode sendOpcode(int slot) {
        return sendOpcode[slot];
    }

    long sendBytes(int slot) {
        return sendBytes[slot];
    }

    /**
     * Retires every outstanding send up to and including {@code slot}: a completion on an RC send
     * queue means all earlier requests on it are done (unsignaled ones produce no completion of their own).
     */
    void retireSendsThrough(int slot) {
        long retired = sendRetired.get();
        long posted = sendPosted.getAcquire();
        int tail = (int) (retired % sendDepth);
        int n = Math.floorMod(slot - tail, sendDepth) + 1;
        if (n > posted - retired) {
            n = (int) (posted - retired); // a completion for nothing outstanding: keep the counters sane
        }
        sendRetired.setRelease(retired + n);
    }

    /** Whether a posted receive is outstanding; a receive completion without one is a stray. */
    boolean hasOutstandingRecv() {
        return recvPosted.getAcquire() > recvRetired.get();
    }

    /** Pops the oldest outstanding receive's wrId (call only when {@link #hasOutstandingRecv}). */
    long popRecv() {
        long r = recvRetired.get();
        long wrId = recvWrId[(int) (r % recvDepth)];
        recvRetired.setRelease(r + 1);
        return wrId;
    }
}
