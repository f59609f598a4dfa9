package io.reactorrdma.perf.verbs;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;

import java.util.function.BooleanSupplier;

/**
 * SEND and RECV of fixed-size messages over one endpoint, as both ends of the ping-pong use them.
 * Sends go out unsignaled but every {@link #SIGNAL_EVERY}th, whose completion retires the ones
 * before it; each consumed receive is posted again at once. Everything is preallocated: the hot
 * path allocates nothing.
 */
public final class SendRecvChannel {

    static final int SEND_DEPTH = 16;
    static final int RECV_DEPTH = 16;
    static final int SIGNAL_EVERY = 8;
    /** A peer silent this long while we wait on it counts as dead. */
    public static final long STALL_NANOS = 10_000_000_000L;

    private final QueuePair qp;
    private final RdmaEndpoint endpoint;
    private final CqWaiter waiter;
    private final SendWr[] send = {new SendWr()};
    private final RecvWr[] recvs = new RecvWr[RECV_DEPTH];
    private final WorkCompletion[] wcs = new WorkCompletion[RECV_DEPTH + SEND_DEPTH];
    private long sends;
    private int pendingRecvs;
    private int lastRecvBytes;

    /**
     * @param sendMr the message to send, {@code size} bytes at offset 0
     * @param recvMr where every receive lands, {@code size} bytes at offset 0 (benchmark data; they may overwrite)
     */
    SendRecvChannel(RdmaEndpoint endpoint, MemoryRegion sendMr, MemoryRegion recvMr, int size, PollMode mode) {
        this.endpoint = endpoint;
        this.qp = endpoint.qp;
        this.waiter = new CqWaiter(endpoint.cq, mode);
        send[0].opcode(WrOpcode.SEND).setSge(sendMr, 0, size);
        for (int i = 0; i < recvs.length; i++) {
            recvs[i] = new RecvWr();
            recvs[i].wrId(i).setSge(recvMr, 0, size);
        }
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /** Fills the receive queue; call before connecting or accepting. */
    void postInitialReceives() {
        qp.postRecv(recvs, 0, recvs.length);
    }

    /** Posts one SEND of the message, first retiring earlier sends if the send queue is full. */
    void send() {
        long idleTicks = 0;
        while (qp.freeSendSlots() == 0) {
            int n = waiter.await(wcs);
            if (n > 0 ? handle(n) < 0 : !endpoint.isConnected()) {
                throw new PerfException("the connection ended while the send queue was full");
            }
            if (n == 0 && ++idleTicks * CqWaiter.IDLE_TICK_NANOS > STALL_NANOS) {
                throw new PerfException("no send completed for " + STALL_NANOS / 1_000_000_000L + " s");
            }
        }
        send[0].signaled(++sends % SIGNAL_EVERY == 0);
        qp.postSend(send, 0, 1);
    }

    /**
     * Waits for the next received message (sends completing meanwhile are retired).
     *
     * @param stallNanos how long without any completion counts as a dead peer ({@link Long#MAX_VALUE}: forever)
     * @param stop       checked on idle ticks; true ends the wait
     * @return the message's length, or -1 when the connection ended or {@code stop} said so
     */
    int awaitRecv(long stallNanos, BooleanSupplier stop) {
        if (pendingRecvs > 0) {
            pendingRecvs--;
            return lastRecvBytes;
        }
        long idleSince = 0;
        while (true) {
            int n = waiter.await(wcs);
            if (n > 0) {
                idleSince = 0;
                if (handle(n) < 0) {
                    return -1;
                }
                if (pendingRecvs > 0) {
                    pendingRecvs--;
                    return lastRecvBytes;
                }
            } else {
                if (!endpoint.isConnected() || stop.getAsBoolean()) {
                    return -1;
                }
                long now = System.nanoTime();
                if (idleSince == 0) {
                    idleSince = now;
                } else if (now - idleSince > stallNanos) {
                    throw new PerfException("no message from the peer for " + stallNanos / 1_000_000_000L + " s: it stopped answering");
                }
            }
        }
    }

    /** Handles {@code n} completions in {@link #wcs}; -1 when one says the connection is gone. */
    private int handle(int n) {
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            if (!wc.isSuccess()) {
                if (wc.status() == WcStatus.WR_FLUSH_ERR) {
                    return -1;
                }
                throw new PerfException("work request failed: " + wc);
            }
            if (wc.opcode() == WcOpcode.RECV) {
                qp.postRecv(recvs, (int) wc.wrId(), 1);
                lastRecvBytes = wc.byteLen();
                pendingRecvs++;
            }
        }
        return 0;
    }
}
