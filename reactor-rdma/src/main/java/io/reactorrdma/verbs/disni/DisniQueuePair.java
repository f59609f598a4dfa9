package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.impl.NatObject;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.disni.calls.RecvCallCache;
import io.reactorrdma.verbs.disni.calls.SendCallCache;
import io.reactorrdma.verbs.disni.cm.CmEventLoop;
import io.reactorrdma.verbs.work.tracking.PostAdmission;
import io.reactorrdma.verbs.work.tracking.PostedWork;
import io.reactorrdma.verbs.work.tracking.QpRecord;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An RC queue pair. DiSNI can create a queue pair only on a cm id that already has a device
 * (the client's id after route resolution, the server's id of the connect request), so this one
 * is <em>deferred</em>: until {@link #attach} it only records its attributes and keeps copies of
 * the receives posted early; attach creates the native queue pair and posts them in one call.
 *
 * <p>Posting checks everything before the native call (free slots, SGE counts, state), because
 * {@code ibv_post_send} may post a prefix of a batch and DiSNI does not report {@code bad_wr}.
 */
final class DisniQueuePair implements QueuePair {

    private final DisniContext context;
    private final DisniProtectionDomain pd;
    private final QpAttributes attributes;
    private final DisniCompletionQueue sendCq;
    private final DisniCompletionQueue recvCq;
    final QpRecord record;
    private final long[] tokens;
    private final long[] recvWrIds;
    private final List<RecvWr> early = new ArrayList<>();
    private volatile RdmaCmId id;
    private volatile IbvQP qp;
    private SendCallCache sendCalls;
    private RecvCallCache recvCalls;
    private volatile boolean closing;
    private volatile CompletableFuture<Void> teardown = CompletableFuture.completedFuture(null);

    DisniQueuePair(DisniContext context, DisniProtectionDomain pd, QpAttributes attributes,
                   DisniCompletionQueue sendCq, DisniCompletionQueue recvCq, QpRecord record) {
        this.context = context;
        this.pd = pd;
        this.attributes = attributes;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.record = record;
        this.tokens = new long[attributes.maxSendWr()];
        this.recvWrIds = new long[attributes.maxRecvWr()];
    }

    /** Creates the native queue pair on {@code cmId} and posts the receives given so far. CM thread, during connect/accept. */
    void attach(RdmaCmId cmId) throws IOException {
        if (qp != null) {
            throw new VerbsException("queue pair " + qpNum() + " is already connected; create a new queue pair per connection");
        }
        IbvQPInitAttr init = new IbvQPInitAttr();
        init.setQp_type(IbvQP.IBV_QPT_RC);
        init.setSend_cq(sendCq.ibv());
        init.setRecv_cq(recvCq.ibv());
        init.cap().setMax_send_wr(attributes.maxSendWr());
        init.cap().setMax_recv_wr(attributes.maxRecvWr());
        init.cap().setMax_send_sge(attributes.maxSendSge()); // ignored by libdisni 2.1, which uses 4
        init.cap().setMax_recv_sge(attributes.maxRecvSge());
        init.cap().setMax_inline_data(0);
        if (!sameDevice(cmId.getVerbs(), context.ibvContext())) {
            throw new VerbsException(otherDevice(context.deviceName()));
        }
        IbvQP created;
        try {
            created = cmId.createQP(pd.ibv(), init);
        } catch (IOException e) {
            throw createQpFailed(e, context.deviceName(), attributes);
        }
        sendCalls = new SendCallCache(list -> created.postSend(list, null), context.config().sendCallCacheSize(), attributes.maxSendWr());
        recvCalls = new RecvCallCache(list -> created.postRecv(list, null), context.config().recvCallCacheSize());
        record.qpNum(created.getQp_num());
        this.id = cmId;
        synchronized (early) {
            // the early receives go first; only then may postRecv post directly (receive order is wrId order)
            if (!early.isEmpty()) {
                RecvWr[] batch = early.toArray(new RecvWr[0]);
                recvCalls.post(batch, 0, batch.length, record.recvToken());
                early.clear();
            }
            this.qp = created;
        }
    }

    /**
     * Whether two DiSNI device handles are the same {@code ibv_context}: libdisni's object id is the
     * native pointer, and each cm id builds its own {@code IbvContext} object for it. A null handle
     * (an id rdma_cm has not bound to a device) is not the same as any.
     */
    static boolean sameDevice(IbvContext a, IbvContext b) {
        if (a == null || b == null) {
            return false;
        }
        if (a == b) {
            return true;
        }
        return a instanceof NatObject && b instanceof NatObject && ((NatObject) a).getObjId() == ((NatObject) b).getObjId();
    }

    static String otherDevice(String device) {
        return "the connection resolved to another RDMA device than this context's (" + device + "): rdma_cm picks the "
                + "device by route, and librdmacm refuses a queue pair whose protection domain is on another device (EINVAL). "
                + "On a host with several RDMA devices set -Dreactor.rdma.disni.address to the IPv4 address of the interface "
                + "that reaches the peer, so that the context opens that device";
    }

    /**
     * The error for a failed {@code rdma_create_qp}. libdisni throws an IOException ending in
     * {@code strerror(errno)}; librdmacm's EINVAL ("Invalid argument") means the cm id's device is
     * not the protection domain's (the id already having a queue pair is excluded by attach).
     */
    static VerbsException createQpFailed(IOException e, String device, QpAttributes attributes) {
        String m = String.valueOf(e.getMessage()).trim();
        if (m.endsWith("Invalid argument")) {
            return new VerbsException(otherDevice(device) + " [" + m + "]", e);
        }
        return new VerbsException("rdma_create_qp failed: " + m + "; the device refused depths " + attributes.maxSendWr() + "/"
                + attributes.maxRecvWr() + ", or the locked-memory limit (ulimit -l) is too low", e);
    }

    RdmaCmId cmId() {
        return id;
    }

    void established() {
        record.established();
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
        IbvQP q = qp;
        if (q == null || s == QpState.INIT) {
            throw new VerbsException("queue pair " + qpNum() + " is not connected; post sends after connect() or accept()");
        }
        PostAdmission.admitSends(record, attributes, wrs, from, count);
        PostedWork work = record.work;
        for (int i = 0; i < count; i++) {
            tokens[i] = record.sendToken(work.nextSendSlot(i));
        }
        if (count == 0) {
            return;
        }
        work.recordSends(wrs, from, count);
        work.publishSends(count);
        try {
            sendCalls.post(wrs, from, count, tokens);
        } catch (IOException e) {
            String cause = "ibv_post_send failed: " + e.getMessage();
            record.fail(cause);
            throw new VerbsException(cause + "; part of the batch may have been posted, so queue pair " + qpNum()
                    + " is treated as failed", e);
        }
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
            synchronized (early) {
                if (qp == null) {
                    for (int i = 0; i < count; i++) {
                        early.add(copy(wrs[from + i]));
                    }
                    work.recordRecvs(recvWrIds, count);
                    return;
                }
            }
        }
        work.recordRecvs(recvWrIds, count);
        try {
            recvCalls.post(wrs, from, count, record.recvToken());
        } catch (IOException e) {
            String cause = "ibv_post_recv failed: " + e.getMessage();
            record.fail(cause);
            throw new VerbsException(cause + "; queue pair " + qpNum() + " is treated as failed", e);
        }
    }

    private static RecvWr copy(RecvWr wr) {
        RecvWr c = new RecvWr(Math.max(1, wr.numSge())).wrId(wr.wrId());
        for (int j = 0; j < wr.numSge(); j++) {
            c.addSge(wr.sgeAddress(j), wr.sgeLength(j), wr.sgeLkey(j));
        }
        return c;
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

    /** The queue pair failed outside a completion (disconnect, CM event); later work is flushed by the NIC. */
    void fail(String cause) {
        record.fail(cause);
    }

    /**
     * Fails the queue pair and hands its destruction ({@code rdma_disconnect},
     * {@code rdma_destroy_qp}, {@code rdma_destroy_id}) to the CM thread without waiting: this is
     * called from I/O threads (Engine.fail). Posting fails from here on; the completion queues stay
     * reserved until the native queue pair is gone, so its flushed completions still fit
     * ({@link #teardown()} completes then).
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
        }
        sendCq.queuePairClosing(); // from here a close of the queues and the domain waits for this one's teardown
        recvCq.queuePairClosing();
        pd.queuePairs().closing();
        record.fail("queue pair destroyed");
        // the post calls are the posting thread's; from here on posting fails, so they can go now
        if (sendCalls != null) {
            sendCalls.clear();
        }
        if (recvCalls != null) {
            recvCalls.clear();
        }
        RdmaCmId cm = id;
        if (cm == null) {
            released(false);
            return;
        }
        teardown = context.cm().submit("rdma_destroy_qp", () -> {
            context.cm().unregister(cm);
            try {
                if (cm.isOpen()) {
                    try {
                        cm.disconnect(); // may already be disconnected: then it just fails
                    } catch (IOException ignored) {
                        // destroying the queue pair below is what matters
                    }
                    cm.destroyQP();
                }
            } catch (IOException e) {
                // the id is destroyed below, which releases the queue pair too
            } finally {
                CmEventLoop.destroyQuietly(cm);
            }
            return null;
        }).handle((ok, e) -> {
            // even when the CM thread could not destroy it (context closed): the queue pair is
            // unusable, and its completion queues must not stay reserved by it forever
            released(true);
            return null;
        });
    }

    /** Completes once the queue pair's native teardown ran on the CM thread (at once if it never connected). */
    CompletableFuture<Void> teardown() {
        return teardown;
    }

    /**
     * Once the queue pair was on the device ({@code wasNative}), the room of what it had outstanding comes back only
     * once the queues are polled empty: its flushed completions may still be in them (DisniCompletionQueue#releaseDestroyed).
     */
    private void released(boolean wasNative) {
        // read before the record goes: from then on the poller drops this queue pair's completions uncounted
        int sendOutstanding = wasNative ? attributes.maxSendWr() - record.work.freeSendSlots() : 0;
        int recvOutstanding = wasNative ? attributes.maxRecvWr() - record.work.freeRecvSlots() : 0;
        record.destroyed();
        sendCq.releaseDestroyed(attributes.maxSendWr(), 0, sendOutstanding, 0);
        recvCq.releaseDestroyed(0, attributes.maxRecvWr(), 0, recvOutstanding);
        pd.queuePairs().released();
        context.forgetRecord(record);
        context.forget(this);
    }
}
