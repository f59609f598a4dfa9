package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.QpCapacities;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaQp;
import io.reactorrdma.verbs.ffm.rdmacore.RecvWrChain;
import io.reactorrdma.verbs.ffm.rdmacore.SendWrChain;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmId;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.work.tracking.PostAdmission;
import io.reactorrdma.verbs.work.tracking.PostedWork;
import io.reactorrdma.verbs.work.tracking.QpRecord;

import java.util.concurrent.CompletableFuture;

/**
 * An RC queue pair over rdma-core. rdma_cm creates the native queue pair on a CM id that has a device (the client's
 * after route resolution, the server's of the request), so until {@link #attach} this one only records its attributes;
 * receives posted before are written into the receive chain and posted by attach in one call.
 *
 * <p>Posting checks everything before the native call (free slots, SGE counts, state), because {@code ibv_post_send}
 * may post a prefix of a batch. Each post patches the chains built once in native memory: no allocation per post. One
 * thread posts (sends and receives); the completion queues' poller retires what completed through the shared records.
 */
final class FfmQueuePair implements QueuePair {

    private final FfmContext context;
    private final FfmProtectionDomain pd;
    private final QpAttributes attributes;
    private final FfmCompletionQueue sendCq;
    private final FfmCompletionQueue recvCq;
    private final int maxInline;
    final QpRecord record;
    private final SendWrChain sends;
    private final RecvWrChain recvs;
    private final long[] recvWrIds;
    /** Receives written into {@link #recvs} before there was a native queue pair to post them to. */
    private int early;
    private volatile CmId id;
    private volatile RdmaQp qp;
    private volatile boolean closing;
    /** Set by the first {@link #attach}: a queue pair serves one connection. */
    private boolean claimed;
    private volatile CompletableFuture<Void> teardown = CompletableFuture.completedFuture(null);

    FfmQueuePair(FfmContext context, FfmProtectionDomain pd, QpAttributes attributes, FfmCompletionQueue sendCq,
                 FfmCompletionQueue recvCq, int maxInline, QpRecord record) {
        this.context = context;
        this.pd = pd;
        this.attributes = attributes;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.maxInline = maxInline;
        this.record = record;
        this.sends = new SendWrChain(attributes.maxSendWr(), attributes.maxSendSge());
        this.recvs = new RecvWrChain(attributes.maxRecvWr(), attributes.maxRecvSge());
        this.recvWrIds = new long[attributes.maxRecvWr()];
    }

    /** Creates the native queue pair on {@code cmId} and posts the receives given so far (connect or accept). */
    void attach(CmId cmId) {
        synchronized (this) {
            if (closing) {
                throw new VerbsException("queue pair " + qpNum() + " is destroyed; create a new one");
            }
            if (claimed) {
                throw new VerbsException("queue pair " + qpNum() + " was already given to a connection; create a new queue pair "
                        + "per connection");
            }
            claimed = true;
        }
        RdmaQp created;
        try {
            created = cmId.createQp(pd.pd(), sendCq.cq(), recvCq.cq(), new QpCapacities(attributes.maxSendWr(),
                    attributes.maxRecvWr(), attributes.maxSendSge(), attributes.maxRecvSge(), maxInline));
        } catch (RuntimeException e) {
            synchronized (this) {
                claimed = false; // nothing was created: the queue pair may be given to another connection attempt
            }
            throw new VerbsException(e.getMessage() + " (queue pair " + attributes + "; the device's limits are in "
                    + "capabilities(), and a low locked-memory limit, ulimit -l, shows as ENOMEM)", e);
        }
        synchronized (this) {
            if (closing) {
                // close() ran meanwhile, saw no id and released the chains: this queue pair is the only thing left of it
                created.close();
                throw new VerbsException("queue pair " + qpNum() + " was destroyed while it was being connected");
            }
            // id and qp are published together, under the lock close() reads them with
            record.qpNum(created.qpNum());
            this.id = cmId;
            // the early receives go first; only then may postRecv post directly (receives complete in posting order)
            try {
                if (early > 0) {
                    created.postRecv(recvs, early);
                }
            } catch (IllegalStateException e) {
                record.fail(e.getMessage());
                throw new VerbsException(e.getMessage(), e);
            } finally {
                early = 0;
                this.qp = created;
            }
        }
    }

    CmId cmId() {
        return id;
    }

    /** Whether {@link #close()} began: its teardown destroys the id, so nobody else may use it from then on. */
    boolean isClosing() {
        return closing;
    }

    void established() {
        record.established();
    }

    /** The queue pair failed outside a completion (disconnect, CM event); the device flushes later work. */
    void fail(String cause) {
        record.fail(cause);
    }

    @Override
    public int qpNum() {
        return record.qpNum();
    }

    @Override
    public QpState state() {
        return record.state();
    }

    @Override
    public QpAttributes attributes() {
        return attributes;
    }

    @Override
    public void postSend(SendWr[] wrs, int from, int count) {
        PostAdmission.checkRange(wrs.length, from, count);
        PostAdmission.checkNotDestroyed(record, closing);
        QpState s = record.state();
        RdmaQp q = qp;
        if (q == null || s == QpState.INIT) {
            throw new VerbsException("queue pair " + qpNum() + " is not connected; post sends after connect() or accept()");
        }
        PostAdmission.admitSends(record, attributes, wrs, from, count);
        PostedWork work = record.work;
        if (count == 0) {
            return;
        }
        for (int i = 0; i < count; i++) {
            patch(i, wrs[from + i], record.sendToken(work.nextSendSlot(i)));
        }
        work.recordSends(wrs, from, count);
        work.publishSends(count);
        try {
            q.postSend(sends, count);
        } catch (IllegalStateException e) {
            String cause = e.getMessage();
            record.fail(cause);
            throw new VerbsException(cause + "; part of the batch may have been posted, so queue pair " + qpNum()
                    + " is treated as failed", e);
        }
    }

    /** Writes request {@code wr} into slot {@code i} of the send chain under {@code token}. */
    private void patch(int i, SendWr wr, long token) {
        WrOpcode op = wr.opcode();
        int flags = (wr.signaled() ? VerbsConstants.IBV_SEND_SIGNALED : 0) | (wr.solicited() ? VerbsConstants.IBV_SEND_SOLICITED : 0);
        // small payloads are copied into the request at post time: no DMA read of the buffer, one round trip less
        if (maxInline > 0 && op != WrOpcode.READ && wr.numSge() > 0 && wr.totalLength() <= maxInline && inRegions(wr)) {
            flags |= VerbsConstants.IBV_SEND_INLINE;
        }
        sends.request(i, token, opcode(op), flags);
        for (int j = 0; j < wr.numSge(); j++) {
            sends.sge(i, wr.sgeAddress(j), wr.sgeLength(j), wr.sgeLkey(j));
        }
        if (op == WrOpcode.WRITE || op == WrOpcode.WRITE_WITH_IMM || op == WrOpcode.READ) {
            sends.remote(i, wr.remoteAddress(), wr.rkey());
        }
        if (op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.WRITE_WITH_IMM) {
            sends.immediate(i, Immediates.toWire(wr.immData()));
        }
    }

    /** Whether every entry lies in a region of the domain: the CPU copies inline data, and no device checks its lkey. */
    private boolean inRegions(SendWr wr) {
        RegionBounds bounds = pd.bounds();
        for (int j = 0; j < wr.numSge(); j++) {
            if (!bounds.contains(wr.sgeLkey(j), wr.sgeAddress(j), wr.sgeLength(j))) {
                return false;
            }
        }
        return true;
    }

    private static int opcode(WrOpcode op) {
        return switch (op) {
            case SEND -> VerbsConstants.IBV_WR_SEND;
            case SEND_WITH_IMM -> VerbsConstants.IBV_WR_SEND_WITH_IMM;
            case WRITE -> VerbsConstants.IBV_WR_RDMA_WRITE;
            case WRITE_WITH_IMM -> VerbsConstants.IBV_WR_RDMA_WRITE_WITH_IMM;
            case READ -> VerbsConstants.IBV_WR_RDMA_READ;
        };
    }

    @Override
    public void postRecv(RecvWr[] wrs, int from, int count) {
        PostAdmission.checkRange(wrs.length, from, count);
        PostAdmission.checkNotDestroyed(record, closing);
        PostAdmission.admitRecvs(record, attributes, wrs, from, count, recvWrIds);
        PostedWork work = record.work;
        if (count == 0) {
            return;
        }
        if (qp == null) {
            synchronized (this) {
                if (qp == null) {
                    // free slots bound the receives outstanding, so the early ones fit the chain after each other
                    write(wrs, from, count, early);
                    early += count;
                    work.recordRecvs(recvWrIds, count);
                    return;
                }
            }
        }
        write(wrs, from, count, 0);
        work.recordRecvs(recvWrIds, count);
        try {
            qp.postRecv(recvs, count);
        } catch (IllegalStateException e) {
            String cause = e.getMessage();
            record.fail(cause);
            throw new VerbsException(cause + "; queue pair " + qpNum() + " is treated as failed", e);
        }
    }

    private void write(RecvWr[] wrs, int from, int count, int at) {
        long token = record.recvToken();
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            recvs.request(at + i, token);
            for (int j = 0; j < wr.numSge(); j++) {
                recvs.sge(at + i, wr.sgeAddress(j), wr.sgeLength(j), wr.sgeLkey(j));
            }
        }
    }

    @Override
    public int freeSendSlots() {
        return record.work.freeSendSlots();
    }

    @Override
    public int freeRecvSlots() {
        return record.work.freeRecvSlots();
    }

    @Override
    public String errorCause() {
        return record.errorCause();
    }

    /**
     * Fails the queue pair and hands its destruction ({@code rdma_disconnect}, {@code rdma_destroy_qp},
     * {@code rdma_destroy_id}) to the CM thread without waiting: I/O threads call this (Engine.fail), and destroying
     * an id may wait for the kernel. Posting fails from here on; the completion queues stay reserved until the native
     * queue pair is gone ({@link #teardown()} completes then), and for the requests it had outstanding until a poll
     * finds them empty.
     */
    @Override
    public void close() {
        CmId cm;
        RdmaQp q;
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
            cm = id;
            q = qp;
        }
        record.fail("queue pair destroyed");
        // from here a close of the queues or the domain waits for this one's release
        sendCq.queuePairClosing();
        recvCq.queuePairClosing();
        pd.queuePairs().closing();
        if (cm == null) {
            released(false);
            return;
        }
        teardown = context.cm().submit(() -> {
            context.cm().unregister(cm.address());
            try {
                cm.disconnect(); // may be disconnected already: then it just fails
            } catch (RuntimeException ignored) {
                // destroying the queue pair and the id is what matters
            }
            try {
                if (q != null) {
                    q.close();
                }
            } finally {
                cm.close();
            }
        }).handle((ok, e) -> {
            // even when the CM thread could not destroy them (context closed): the queue pair is unusable, and its
            // completion queues must not stay reserved by it forever
            released(true);
            return null;
        });
    }

    /** Completes once the native teardown ran on the CM thread (at once if the queue pair never connected). */
    CompletableFuture<Void> teardown() {
        return teardown;
    }

    /**
     * Each step runs even when one before it throws: the queues' room and the context's record must come back. Once
     * the queue pair was on the device ({@code native}), the room of what it had outstanding comes back only once the
     * queues are polled empty: its flushed completions may still be in them ({@link FfmCompletionQueue#releaseDestroyed}).
     */
    private void released(boolean wasNative) {
        // read before the record goes: from then on the poller drops this queue pair's completions uncounted
        int sendOutstanding = wasNative ? attributes.maxSendWr() - record.work.freeSendSlots() : 0;
        int recvOutstanding = wasNative ? attributes.maxRecvWr() - record.work.freeRecvSlots() : 0;
        try {
            record.destroyed();
            sends.close();
            recvs.close();
        } finally {
            try {
                sendCq.releaseDestroyed(attributes.maxSendWr(), 0, sendOutstanding, 0);
                recvCq.releaseDestroyed(0, attributes.maxRecvWr(), 0, recvOutstanding);
            } finally {
                pd.queuePairs().released();
                context.forget(this);
            }
        }
    }
}
