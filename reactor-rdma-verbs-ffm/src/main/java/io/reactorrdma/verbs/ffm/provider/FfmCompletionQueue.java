package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.Libc;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCompletionChannel;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCq;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaDevice;
import io.reactorrdma.verbs.ffm.rdmacore.WorkCompletions;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * The SPI's completion queue over rdma-core: a CQ with a completion channel of its own, polled through the device's
 * operation table into a native buffer and copied into the caller's {@link WorkCompletion}s (no allocation). A
 * waiting I/O thread blocks in {@code poll(2)} on the channel's descriptor and an eventfd, so {@link #wakeup()} wakes
 * it at once: no time slices, unlike the DiSNI provider, whose library cannot wake a thread blocked on the channel.
 *
 * <p>A failed completion carries its work request id, status and queue-pair number only (ibv_poll_cq(3) leaves
 * the rest undefined): its byte count is passed on as 0, and which request it was — send or receive, opcode — is
 * for the queue pairs' own records of what they posted.
 *
 * <p>Sizing as the DiSNI provider: the CQ holds twice {@link #capacity()}, room for the send depths and the receive
 * depths of its queue pairs, so it can never overrun.
 */
public final class FfmCompletionQueue implements CompletionQueue {

    /** Most completions one poll returns. */
    static final int MAX_POLL = 64;

    private final int capacity;
    private final RdmaCompletionChannel channel;
    private final RdmaCq cq;
    private final Libc.Waiter waiter;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs = RdmaCq.completions(arena, MAX_POLL);
    private volatile boolean closed;

    /** A queue of {@code capacity} completions on {@code device}. */
    public FfmCompletionQueue(RdmaDevice device, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a completion queue holds at least one completion, got " + capacity);
        }
        this.capacity = capacity;
        this.channel = device.createCompletionChannel();
        RdmaCq created = null;
        try {
            created = device.createCq(2 * capacity, channel);
            this.waiter = Libc.waiter(channel.fd());
        } catch (RuntimeException e) {
            if (created != null) {
                created.close();
            }
            channel.close();
            throw e;
        }
        this.cq = created;
    }

    RdmaCq cq() {
        return cq;
    }

    @Override
    public int poll(WorkCompletion[] out, int max) {
        int n = Math.min(Math.min(max, out.length), MAX_POLL);
        if (n <= 0) {
            return 0;
        }
        int got;
        try {
            got = cq.poll(wcs, n);
        } catch (IllegalStateException e) {
            throw new VerbsException(e.getMessage(), e);
        }
        for (int i = 0; i < got; i++) {
            map(i, out[i]);
        }
        return got;
    }

    private void map(int i, WorkCompletion wc) {
        int status = WorkCompletions.status(wcs, i);
        int opcode = WorkCompletions.opcode(wcs, i);
        WcStatus s = WcStatus.fromIbv(status);
        boolean ok = s == WcStatus.SUCCESS;
        // ibv_poll_cq(3): of a failed completion only wr_id, status, qp_num and vendor_err are valid; the opcode
        // read then is whatever the device left, and which request it was is for the queue pair's own records.
        WcOpcode op = ok ? WcOpcode.fromIbv(opcode) : null;
        wc.set(WorkCompletions.wrId(wcs, i), s == null ? WcStatus.GENERAL_ERR : s, op == null ? WcOpcode.SEND : op,
                ok ? WorkCompletions.byteLen(wcs, i) : 0, WorkCompletions.qpNum(wcs, i));
        if ((WorkCompletions.flags(wcs, i) & VerbsConstants.IBV_WC_WITH_IMM) != 0) {
            wc.setImmediate(WorkCompletions.immediate(wcs, i));
        }
        if (s == null) {
            wc.setErrorDetail("the device reported ibv_wc_status " + status + ", which this provider does not know");
        }
    }

    @Override
    public void requestNotification() {
        cq.requestNotification(false);
    }

    @Override
    public void requestNotification(boolean solicitedOnly) {
        cq.requestNotification(solicitedOnly);
    }

    @Override
    public boolean awaitNotification(long timeout, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long millis = Math.max(0, unit.toMillis(timeout)); // poll(2) waits forever on a negative timeout
        int wait = (int) Math.min(Integer.MAX_VALUE, millis == 0 && timeout > 0 ? 1 : millis);
        Libc.Waiter.Ready ready = waiter.await(wait);
        if (ready == Libc.Waiter.Ready.FD) {
            channel.awaitEvent(); // readable: does not block
            cq.ackEvents(1);
            return true;
        }
        return false;
    }

    @Override
    public void wakeup() {
        waiter.wake(); // a no-op once closed
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                cq.close();
            } finally {
                try {
                    channel.close();
                } finally {
                    waiter.close();
                    arena.close();
                }
            }
        }
    }
}
