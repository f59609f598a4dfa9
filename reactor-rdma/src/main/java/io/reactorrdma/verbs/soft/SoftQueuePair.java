package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.soft.fault.PeerFreeze;
import io.reactorrdma.verbs.soft.fault.ReadCompletionFault;
import io.reactorrdma.verbs.soft.shared.QpLayout;
import io.reactorrdma.verbs.soft.shared.RegionKeys;
import io.reactorrdma.verbs.soft.shared.SharedMemory;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A soft RC queue pair. Its send queue runs on the thread that posts (or, after an RNR delay, on
 * the provider thread), one request after another in order, the way an RNIC's send engine would:
 * each request is checked, its data copied once straight into the peer's memory (a SEND of up to
 * QpLayout.RQ_INLINE_MAX bytes into the peer's receive slot, which the peer copies into its buffer
 * when it polls), and its completion written — the receive completion in the peer's receive-queue slot, the send
 * completion in our completion queue. Wake-ups wait for the end of the run: one doorbell per run
 * wakes the peer, and our own queue, if the completions published raise their arms
 * ({@link #ringDoorbells}). Ownership of the send queue passes through one atomic flag,
 * so that exactly one thread runs it at a time; nothing on this path locks or allocates.
 */
final class SoftQueuePair implements QueuePair {

    private static final int DONE = 0;
    private static final int RNR = 1;
    private static final int FAILED = 2;
    /** Strict mode's byteLen of send-queue completions where verbs leave it undefined. */
    static final int POISONED_BYTE_LEN = -1;

    final SoftContext context;
    final SoftProtectionDomain pd;
    final int qpn;
    final int sqDepth;
    final int rqDepth;
    private final int maxSendSge;
    private final int maxRecvSge;
    private final QpAttributes attributes;
    private final SoftCompletionQueue sendCq;
    private final SoftCompletionQueue recvCq;
    private final String structureName;
    /** Our {@link QpLayout} structure: header, receive queue (peer-visible), send queue. */
    final ByteBuffer mem;
    private final int rqSlotSize;
    private final int sqBase;
    private final int sqSlotSize;

    // send queue
    private volatile long sqPosted;
    private long sqExecuted;
    private volatile long sqRetired;
    private final AtomicInteger sendQueueOwner = new AtomicInteger();
    /** 1 while a poller copies an inline message into local regions ({@link #scatterInline}). */
    private final AtomicInteger scattering = new AtomicInteger();
    private int rnrAttempts;
    private volatile long rnrDeadline;
    private volatile boolean rnrStalled;
    /** The status the next request run on a failed queue pair gets instead of WR_FLUSH_ERR (RETRY_EXC_ERR after a peer died). */
    private volatile WcStatus nextErrorStatus;

    // receive queue
    private volatile long rqPosted;
    private volatile long rqPolled;
    private final long[] rqWrId;
    private final long[] rqCapacity;
    /**
     * Each posted receive's scatter list (slot * maxRecvSge + i), kept here as the owner posted it: an
     * inline message is scattered from these, never from the shared slot the peer could have changed.
     */
    private final long[] rqSgeAddr;
    private final int[] rqSgeLength;
    private final int[] rqSgeLkey;
    private final int[] rqNumSge;

    private volatile QpState state = QpState.INIT;
    private volatile String errorCause;
    private volatile PeerLink link;
    /** Strict mode: the number reads 0 until connect or accept completes, as a DiSNI QP's does. */
    private final boolean strict;
    private volatile boolean numberKnown;

    // scratch for one request's copy, owned by whoever runs the send queue
    private final ByteBuffer[] localBuf;
    private final int[] localOff;
    private final int[] localLen;
    private final ByteBuffer[] remoteBuf;
    private final int[] remoteOff;
    private final int[] remoteLen;
    private String failDetail;
    /** Fault hook (tests): freezes this context's posters just before a copy; null without faults. */
    private final PeerFreeze freeze;
    /** Offset of the peer receive claimed for the running request and not yet completed, or -1. */
    private int claimedPeerRecv = -1;
    /** The running request's completion (success or error) was decided when this passed its sequence. */
    private long completedThrough;

    // doorbells: what this run of the send queue published raises (QpLayout.RAISES_*), rung once at its end
    private int peerDoorbell;
    private int localDoorbell;
    /** Wake-ups the doorbells signalled: the peer's queue, our send completion queue (owner of the send queue writes; tests read). */
    private volatile long peerWakeups; // volatile: read by tests on other threads; written once per wake-up (a syscall anyway)
    private volatile long localWakeups;
    /** Strict mode: RDMA READs posted and not yet completed, at most {@link QpAttributes#maxRdAtomic()}. */
    private final AtomicInteger readsOutstanding = new AtomicInteger();
    /** Fault hook (tests): holds READ completions, and those after them, back; null without faults. */
    private final ReadCompletionFault readFault;
    /** First send-queue sequence whose completion {@link #readFault} holds back, or -1. */
    private volatile long heldFrom = -1;
    /** The read-completion fault's release count when the current hold began (written before heldFrom). */
    private long heldSince;

    SoftQueuePair(SoftContext context, SoftProtectionDomain pd, QpAttributes attributes, int qpn,
                  SoftCompletionQueue sendCq, SoftCompletionQueue recvCq, String structureName, ByteBuffer mem) {
        this.context = context;
        this.pd = pd;
        this.attributes = attributes;
        this.qpn = qpn;
        this.sqDepth = attributes.maxSendWr();
        this.rqDepth = attributes.maxRecvWr();
        this.maxSendSge = attributes.maxSendSge();
        this.maxRecvSge = attributes.maxRecvSge();
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.structureName = structureName;
        this.mem = mem;
        this.rqSlotSize = QpLayout.rqSlotSize(maxRecvSge);
        this.sqBase = QpLayout.sharedSize(rqDepth, maxRecvSge);
        this.sqSlotSize = QpLayout.sqSlotSize(maxSendSge);
        this.rqWrId = new long[rqDepth];
        this.rqCapacity = new long[rqDepth];
        this.rqSgeAddr = new long[rqDepth * maxRecvSge];
        this.rqSgeLength = new int[rqDepth * maxRecvSge];
        this.rqSgeLkey = new int[rqDepth * maxRecvSge];
        this.rqNumSge = new int[rqDepth];
        this.localBuf = new ByteBuffer[SoftLimits.MAX_SGE];
        this.localOff = new int[SoftLimits.MAX_SGE];
        this.localLen = new int[SoftLimits.MAX_SGE];
        this.remoteBuf = new ByteBuffer[SoftLimits.MAX_SGE];
        this.remoteOff = new int[SoftLimits.MAX_SGE];
        this.remoteLen = new int[SoftLimits.MAX_SGE];
        this.strict = context.config.strict();
        this.freeze = context.faults.peerFreeze();
        this.readFault = context.faults.readCompletionFault();
        SharedMemory.putIntRelease(mem, QpLayout.H_STATE, QpState.INIT.ibv());
        QpLayout.writeHeader(mem, qpn, rqDepth, maxRecvSge, sqDepth, maxSendSge, recvCq.hasWakeSocket() ? recvCq.number : 0);
    }

    @Override
    public int qpNum() {
        return !strict || numberKnown ? qpn : 0;
    }

    /** Strict mode: connect or accept completed; from now on {@link #qpNum()} tells the number. */
    void numberKnown() {
        numberKnown = true;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public QpAttributes attributes() {
        return attributes;
    }

    @Override
    public String errorCause() {
        return errorCause;
    }

    @Override
    public int freeSendSlots() {
        return (int) (sqDepth - (sqPosted - sqRetired));
    }

    @Override
    public int freeRecvSlots() {
        return (int) (rqDepth - (rqPosted - rqPolled));
    }

    SoftCompletionQueue recvCq() {
        return recvCq;
    }

    PeerLink link() {
        return link;
    }

    // ------------------------------------------------------------ connection management

    void checkConnectable() {
        if (state != QpState.INIT || link != null) {
            throw new VerbsException("queue pair " + qpn + " is " + state + (link != null ? " and already connected" : "")
                    + "; a queue pair connects once, from INIT — create a new one");
        }
    }

    /** Connects the queue pair: it may now send to the peer behind {@code link}. */
    synchronized void establish(PeerLink peer) {
        checkConnectable();
        this.link = peer;
        state = QpState.RTS;
        SharedMemory.putIntRelease(mem, QpLayout.H_STATE, QpState.RTS.ibv());
    }

    // ------------------------------------------------------------ posting

    @Override
    public void postSend(SendWr[] wrs, int from, int count) {
        QpState s = state;
        if (s == QpState.INIT) {
            throw new VerbsException("queue pair " + qpn + " is not connected; post sends after connect() or accept()");
        }
        if (s == QpState.DESTROYED) {
            throw new VerbsException("queue pair " + qpn + " is destroyed");
        }
        checkBatch(wrs, from, count);
        long posted = sqPosted;
        long free = sqDepth - (posted - sqRetired);
        if (count > free) {
            throw new VerbsException("send queue of queue pair " + qpn + " is full: " + free + " of " + sqDepth
                    + " slots free, batch of " + count + " not posted. Poll completions to retire slots, and signal at least one "
                    + "request in every " + sqDepth + " so that polling can retire the unsignaled ones");
        }
        int reads = 0;
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            int n = wr.numSge();
            if (n > maxSendSge) {
                throw new VerbsException("send request " + wr + " has " + n + " scatter/gather entries; queue pair " + qpn
                        + " allows " + maxSendSge + " (QpAttributes.withMaxSendSge). Nothing was posted");
            }
            if (wr.opcode() == WrOpcode.READ) {
                reads++;
            }
        }
        if (strict && reads > 0) {
            checkReadDepth(reads);
        }
        for (int i = 0; i < count; i++) {
            SendWr wr = wrs[from + i];
            int w = sqSlot(posted + i);
            mem.putLong(w + QpLayout.SQ_WR_ID, wr.wrId());
            mem.putLong(w + QpLayout.SQ_REMOTE_ADDR, wr.remoteAddress());
            mem.putInt(w + QpLayout.SQ_OPCODE, wr.opcode().ibv());
            mem.putInt(w + QpLayout.SQ_FLAGS, (wr.signaled() ? QpLayout.SQ_SIGNALED : 0) | (wr.solicited() ? QpLayout.SQ_SOLICITED : 0));
            mem.putInt(w + QpLayout.SQ_IMM, wr.immData());
            mem.putInt(w + QpLayout.SQ_RKEY, wr.rkey());
            int n = wr.numSge();
            mem.putInt(w + QpLayout.SQ_NUM_SGE, n);
            for (int j = 0; j < n; j++) {
                int g = w + QpLayout.SQ_SGES + j * QpLayout.SGE_SIZE;
                mem.putLong(g + QpLayout.SGE_ADDR, wr.sgeAddress(j));
                mem.putInt(g + QpLayout.SGE_LENGTH, wr.sgeLength(j));
                mem.putInt(g + QpLayout.SGE_LKEY, wr.sgeLkey(j));
            }
        }
        if (strict && reads > 0) {
            readsOutstanding.addAndGet(reads); // before the requests can run (and complete, counting down)
        }
        sqPosted = posted + count;
        runSendQueue();
    }

    /**
     * Strict mode: refuses a batch that would take the READs outstanding (posted, not completed)
     * above maxRdAtomic. An RNIC accepts it and holds its send queue behind the excess READs (the
     * initiator depth it negotiated) — a stall the engine would meet only on hardware.
     */
    private void checkReadDepth(int reads) {
        int outstanding = readsOutstanding.get();
        int max = attributes.maxRdAtomic();
        if (outstanding + reads > max) {
            throw new VerbsException("strict mode: queue pair " + qpn + " has " + outstanding + " RDMA READ(s) outstanding (posted, "
                    + "not completed) and the batch adds " + reads + ", more than its maxRdAtomic of " + max + "; nothing was posted. "
                    + "An RNIC would accept the post and stall the send queue behind the excess READs until earlier ones complete. "
                    + "Post further READs after the completions of earlier ones, or raise QpAttributes.withMaxRdAtomic "
                    + "(within the device's max_qp_rd_atom)");
        }
    }

    @Override
    public void postRecv(RecvWr[] wrs, int from, int count) {
        if (state == QpState.DESTROYED) {
            throw new VerbsException("queue pair " + qpn + " is destroyed");
        }
        checkBatch(wrs, from, count);
        long posted = rqPosted;
        long free = rqDepth - (posted - rqPolled);
        if (count > free) {
            throw new VerbsException("receive queue of queue pair " + qpn + " is full: " + free + " of " + rqDepth
                    + " slots free, batch of " + count + " not posted. Poll receive completions first");
        }
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            if (wr.numSge() > maxRecvSge) {
                throw new VerbsException("receive request " + wr + " has " + wr.numSge() + " scatter/gather entries; queue pair "
                        + qpn + " allows " + maxRecvSge + " (QpAttributes.withMaxRecvSge). Nothing was posted");
            }
        }
        for (int i = 0; i < count; i++) {
            RecvWr wr = wrs[from + i];
            long seq = posted + i;
            int slot = (int) (seq % rqDepth);
            int r = QpLayout.HEADER_SIZE + slot * rqSlotSize;
            int n = wr.numSge();
            mem.putInt(r + QpLayout.RQ_NUM_SGE, n);
            for (int j = 0; j < n; j++) {
                int g = r + QpLayout.RQ_SGES + j * QpLayout.SGE_SIZE;
                mem.putLong(g + QpLayout.SGE_ADDR, wr.sgeAddress(j));
                mem.putInt(g + QpLayout.SGE_LENGTH, wr.sgeLength(j));
                mem.putInt(g + QpLayout.SGE_LKEY, wr.sgeLkey(j));
                int e = slot * maxRecvSge + j;
                rqSgeAddr[e] = wr.sgeAddress(j);
                rqSgeLength[e] = wr.sgeLength(j);
                rqSgeLkey[e] = wr.sgeLkey(j);
            }
            rqNumSge[slot] = n;
            rqWrId[slot] = wr.wrId();
            rqCapacity[slot] = wr.totalLength();
            SharedMemory.putLongRelease(mem, r + QpLayout.RQ_POST_SEQ, seq + 1);
        }
        rqPosted = posted + count;
    }

    private static void checkBatch(Object[] wrs, int from, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a batch holds at least one request, got count " + count);
        }
        if (from < 0 || from + count > wrs.length) {
            throw new IllegalArgumentException("batch [" + from + ", " + (from + count) + ") outside an array of " + wrs.length);
        }
        for (int i = from; i < from + count; i++) {
            if (wrs[i] == null) {
                throw new IllegalArgumentException("request " + i + " of the batch is null; nothing was posted");
            }
        }
    }

    private int sqSlot(long seq) {
        return sqBase + (int) (seq % sqDepth) * sqSlotSize;
    }

    /** Polling a send completion retires its slot and every earlier one. */
    void retireSends(long upTo) {
        if (upTo > sqRetired) {
            sqRetired = upTo;
        }
    }

    // ------------------------------------------------------------ running the send queue

    /** Runs posted requests if no other thread is running them; loops while work arrives meanwhile. */
    private void runSendQueue() {
        while (sendQueueOwner.compareAndSet(0, 1)) {
            // Counted in the peer's header before any of its state is checked: a peer that enters
            // ERROR flushes its receives only once no request of ours can still copy into its memory.
            PeerLink peer = link;
            ByteBuffer peerHeader = peer != null ? peer.peerQp : null;
            if (peerHeader != null) {
                SharedMemory.getAndAddInt(peerHeader, QpLayout.H_INBOUND, 1);
            }
            try {
                runOwned();
            } finally {
                ringDoorbells(peer);
                if (peerHeader != null) {
                    prefetchPeerRecv(peer);
                    SharedMemory.getAndAddInt(peerHeader, QpLayout.H_INBOUND, -1);
                }
                sendQueueOwner.set(0);
            }
            if ((sqExecuted >= sqPosted || (rnrStalled && state != QpState.ERROR)) && !heldReleasable()) {
                return;
            }
        }
    }

    /**
     * The doorbell, once at the end of a run of the send queue (a post, or the provider thread's
     * retry after an RNR delay): wakes the peer if the completions this run published into its
     * receive queue raise its arm, and our send completion queue likewise — one wake-up per run,
     * however many completions it wrote, and none when nobody is armed. No wake-up is lost: every
     * completion of the run was published before the fenced read of the arm, so a poller that
     * armed after that read sees them in the poll it makes after arming.
     */
    private void ringDoorbells(PeerLink peer) {
        int remote = peerDoorbell;
        if (remote != QpLayout.RAISES_NOTHING) {
            peerDoorbell = QpLayout.RAISES_NOTHING;
            if (peer != null) {
                try {
                    if (wakePeerIfArmed(peer, remote)) {
                        peerWakeups++;
                    }
                } catch (RuntimeException | InternalError fault) {
                    // the peer's header faults (its file was cut short): it learns of our failure from the disconnect
                }
            }
        }
        int local = localDoorbell;
        if (local != QpLayout.RAISES_NOTHING) {
            localDoorbell = QpLayout.RAISES_NOTHING;
            if (sendCq.ring(local)) {
                localWakeups++;
            }
        }
    }

    /** Wake-ups this queue pair's doorbells sent its peer (tests; read after the posts returned). */
    long peerWakeups() {
        return peerWakeups;
    }

    /** Wake-ups this queue pair's doorbells signalled on its own send completion queue (tests). */
    long localWakeups() {
        return localWakeups;
    }

    /** Completions are held back and the fault no longer holds them: the next run pushes them. */
    private boolean heldReleasable() {
        return readFault != null && heldFrom >= 0 && (!readFault.holding() || readFault.releases() != heldSince);
    }

    /** The read-completion fault was released: pushes what it held back (by whoever runs the send queue now). */
    void releaseHeldCompletions() {
        if (state != QpState.DESTROYED) {
            runSendQueue();
        }
    }

    /**
     * Whether a thread runs this send queue now (and may be copying from or into local regions), or
     * a poller scatters an inline message into them.
     */
    boolean isRunningSendQueue() {
        return sendQueueOwner.get() != 0 || scattering.get() != 0;
    }

    long rnrDeadline() {
        return rnrDeadline;
    }

    /** Provider thread: the RNR delay passed. */
    void retryAfterRnr() {
        rnrStalled = false;
        runSendQueue();
    }

    private void runOwned() {
        if (heldReleasable()) {
            releaseHeld();
        }
        if (rnrStalled && state != QpState.ERROR) {
            return; // the provider thread retries when the delay has passed
        }
        while (sqExecuted < sqPosted) {
            long seq = sqExecuted;
            int w = sqSlot(seq);
            if (state == QpState.ERROR || state == QpState.DESTROYED) {
                WcStatus status = nextErrorStatus;
                nextErrorStatus = null;
                complete(seq, w, status != null ? status : WcStatus.WR_FLUSH_ERR, 0);
                sqExecuted = seq + 1;
                continue;
            }
            int result;
            try {
                result = execute(seq, w);
            } catch (RuntimeException | InternalError fault) {
                // The request was taken: it must end in a completion, never in an exception out of
                // postSend (the caller would post it again).
                result = faulted(seq, w, fault);
            }
            if (result == RNR) {
                if (attributes.rnrRetry() != QpAttributes.RNR_RETRY_INFINITE && rnrAttempts >= attributes.rnrRetry()) {
                    rnrAttempts = 0;
                    enterError(link.peerName + " posted no receive in " + (attributes.rnrRetry() + 1) + " tries, "
                            + attributes.rnrDelayMicros() + " µs apart (rnrRetry " + attributes.rnrRetry() + ")");
                    complete(seq, w, WcStatus.RNR_RETRY_EXC_ERR, 0);
                    sqExecuted = seq + 1;
                    continue;
                }
                rnrAttempts++;
                rnrDeadline = System.nanoTime() + attributes.rnrDelayMicros() * 1000L;
                rnrStalled = true;
                context.scheduleRnrRetry(this);
                return;
            }
            rnrAttempts = 0;
            sqExecuted = seq + 1;
        }
    }

    /**
     * A request threw while it ran. An {@link InternalError} is the JVM's report of a fault in
     * mapped memory (SIGBUS: a shared-memory file was cut short under its mapping); it may surface
     * a little after the faulting copy, even after the request's completion was written — then
     * only the queue pair fails. A receive of the peer claimed for this request is completed with
     * an error, so the peer does not wait for it.
     */
    private int faulted(long seq, int w, Throwable fault) {
        String detail = (fault instanceof InternalError
                ? "memory fault while running a request of queue pair " + qpn + " (a shared-memory file was truncated, "
                        + "or its tmpfs could not supply a page): "
                : "a request of queue pair " + qpn + " failed unexpectedly: ") + fault;
        PeerLink peer = link;
        int r = claimedPeerRecv;
        claimedPeerRecv = -1;
        if (r >= 0 && peer != null) {
            try {
                completePeerRecv(peer, r, WcStatus.LOC_QP_OP_ERR, WcOpcode.RECV, 0, false, 0, false);
            } catch (RuntimeException | InternalError again) {
                // the peer's queue itself faults; it learns of our failure from the disconnect
            }
        }
        if (completedThrough > seq) {
            enterError(detail);
            return DONE;
        }
        return fail(seq, w, WcStatus.REM_OP_ERR, detail);
    }

    /**
     * The request at {@code seq} is done: its completion is written (always for errors, for
     * successes only when signaled), or held back by the read-completion fault — a READ while it
     * holds, and everything after it, so that completions stay in send-queue order.
     */
    private void complete(long seq, int w, WcStatus status, int byteLen) {
        if (readFault != null && (heldFrom >= 0 || (readFault.holding() && (readFault.holdsEverySend() || isRead(w))))) {
            mem.putInt(w + QpLayout.SQ_HELD_STATUS, status.ibv());
            mem.putInt(w + QpLayout.SQ_HELD_BYTE_LEN, byteLen);
            if (heldFrom < 0) {
                heldSince = readFault.releases();
                heldFrom = seq;
                readFault.holdsFor(this::releaseHeldCompletions);
            }
            if (isRead(w)) {
                readFault.countHeld(1);
            }
            readFault.countHeldCompletions(1);
            readFault.completionHeld();
        } else {
            publishCompletion(seq, w, status, byteLen);
        }
        completedThrough = seq + 1;
    }

    private boolean isRead(int w) {
        return mem.getInt(w + QpLayout.SQ_OPCODE) == WrOpcode.READ.ibv();
    }

    /** Writes the completion of the request at {@code seq} if it has one; a READ stops counting as outstanding. */
    private void publishCompletion(long seq, int w, WcStatus status, int byteLen) {
        boolean signaled = (mem.getInt(w + QpLayout.SQ_FLAGS) & QpLayout.SQ_SIGNALED) != 0;
        WrOpcode op = WrOpcode.fromIbv(mem.getInt(w + QpLayout.SQ_OPCODE));
        if (status != WcStatus.SUCCESS || signaled) {
            if (strict && (status != WcStatus.SUCCESS || op != WrOpcode.READ)) {
                byteLen = POISONED_BYTE_LEN; // verbs define it for RDMA READ (and atomics) only; mlx5 leaves it stale
            }
            sendCq.push(qpn, seq, mem.getLong(w + QpLayout.SQ_WR_ID), status, WcOpcode.forSend(op != null ? op : WrOpcode.SEND), byteLen);
            int raises = status == WcStatus.SUCCESS ? QpLayout.RAISES_FULL_ARM : QpLayout.RAISES_ANY_ARM;
            localDoorbell = Math.max(localDoorbell, raises);
        }
        if (strict && op == WrOpcode.READ) {
            readsOutstanding.decrementAndGet();
        }
    }

    /** Owner: pushes, in order, the completions the read-completion fault held back. */
    private void releaseHeld() {
        long from = heldFrom;
        for (long seq = from; seq < completedThrough; seq++) {
            int w = sqSlot(seq);
            boolean read = isRead(w);
            publishCompletion(seq, w, SoftCompletionQueue.statusOf(mem.getInt(w + QpLayout.SQ_HELD_STATUS)),
                    mem.getInt(w + QpLayout.SQ_HELD_BYTE_LEN));
            if (read) {
                readFault.countHeld(-1);
            }
            readFault.countHeldCompletions(-1);
        }
        heldFrom = -1;
    }

    /** Fails the request at {@code seq} with {@code status} and puts the queue pair in error. */
    private int fail(long seq, int w, WcStatus status, String detail) {
        enterError(detail);
        complete(seq, w, status, 0);
        return FAILED;
    }

    private int execute(long seq, int w) {
        PeerLink peer = link;
        peer.beforeRequest();
        if (peer.isDead()) {
            return fail(seq, w, WcStatus.RETRY_EXC_ERR, peer.deathCause());
        }
        int peerState = SharedMemory.getIntVolatile(peer.peerQp, QpLayout.H_STATE); // after our H_INBOUND count: see enterError
        if (peerState != QpState.RTS.ibv() && peerState != QpState.INIT.ibv()) {
            return fail(seq, w, WcStatus.RETRY_EXC_ERR, peer.peerName + " is in error or destroyed (state " + peerState
                    + "): it no longer answers");
        }
        WrOpcode op = WrOpcode.fromIbv(mem.getInt(w + QpLayout.SQ_OPCODE));
        int numSge = mem.getInt(w + QpLayout.SQ_NUM_SGE);
        if (op == null || numSge < 0 || numSge > maxSendSge) {
            return fail(seq, w, WcStatus.LOC_QP_OP_ERR, "send queue slot " + (seq % sqDepth) + " of queue pair " + qpn + " is corrupt");
        }
        long total = gatherLocal(w, numSge, op == WrOpcode.READ ? AccessFlags.LOCAL_WRITE : 0);
        if (total < 0) {
            return fail(seq, w, WcStatus.LOC_PROT_ERR, failDetail);
        }
        if (total > SoftLimits.MAX_MESSAGE_SIZE) {
            return fail(seq, w, WcStatus.LOC_LEN_ERR, "message of " + total + " bytes exceeds the maximum of "
                    + SoftLimits.MAX_MESSAGE_SIZE);
        }
        switch (op) {
            case SEND:
            case SEND_WITH_IMM:
                return executeSend(seq, w, op, numSge, (int) total, peer);
            case WRITE:
            case WRITE_WITH_IMM:
                return executeWrite(seq, w, op, numSge, (int) total, peer);
            default:
                return executeRead(seq, w, numSge, (int) total, peer);
        }
    }

    /** Resolves the request's local entries into the local scratch arrays; -1 with {@link #failDetail} on error. */
    private long gatherLocal(int w, int numSge, int requiredAccess) {
        long total = 0;
        for (int i = 0; i < numSge; i++) {
            int g = w + QpLayout.SQ_SGES + i * QpLayout.SGE_SIZE;
            long addr = mem.getLong(g + QpLayout.SGE_ADDR);
            int len = mem.getInt(g + QpLayout.SGE_LENGTH);
            int lkey = mem.getInt(g + QpLayout.SGE_LKEY);
            SoftMemoryRegion mr = context.localRegion(lkey);
            if (mr == null) {
                failDetail = "lkey 0x" + Integer.toHexString(lkey) + " names no registered region of this context";
                return -1;
            }
            if (mr.pdId != pd.id) {
                failDetail = "lkey 0x" + Integer.toHexString(lkey) + " belongs to another protection domain";
                return -1;
            }
            if ((mr.access & requiredAccess) != requiredAccess) {
                failDetail = "region 0x" + Integer.toHexString(lkey) + " lacks " + AccessFlags.toString(requiredAccess);
                return -1;
            }
            long off = RegionKeys.offsetIn(mr.address, mr.length, addr, len);
            if (off < 0) {
                failDetail = "entry [0x" + Long.toHexString(addr) + ", +" + len + ") lies outside region 0x"
                        + Integer.toHexString(lkey) + " [0x" + Long.toHexString(mr.address) + ", +" + mr.length + ")";
                return -1;
            }
            localBuf[i] = mr.memory;
            localOff[i] = (int) off;
            localLen[i] = len;
            total += len;
        }
        return total;
    }

    /**
     * Claims the peer's next receive: a read of the slot's posted part, which the end of the previous
     * run fetched already ({@link #prefetchPeerRecv}); we never write it, so the owner's copy of the
     * line stays good and nothing passes between the processes here. Returns the slot offset, or -1
     * for "none posted" (RNR), or -2 after failing the request (the peer's queue is corrupt).
     */
    private int claimPeerRecv(long seq, int w, PeerLink peer) {
        long n = peer.peerRqNext;
        int r = peer.peerRecvSlot(n);
        long posted = SharedMemory.getLongAcquire(peer.peerQp, r + QpLayout.RQ_POST_SEQ);
        if (posted != n + 1) {
            // 0: never posted, or flushed (the owner flushes only while no run of ours is under way,
            // H_INBOUND, or once it found us dead); previous: the slot's last receive, not posted anew yet
            long previous = n + 1 - peer.peerRqDepth;
            if (posted == 0 || posted == previous) {
                return -1;
            }
            fail(seq, w, WcStatus.REM_OP_ERR, peer.peerName + " receive queue is corrupt: slot " + (n % peer.peerRqDepth)
                    + " holds sequence " + posted + ", expected " + (n + 1) + " or an older one");
            return -2;
        }
        claimedPeerRecv = r;
        return r;
    }

    /**
     * At the end of a run, while this thread would only wait: reads the peer's next posted receive,
     * so that the next claim finds the line here instead of fetching it from the owner's core on
     * the way of a message (the owner posts receives in batches, long before they are used).
     */
    private void prefetchPeerRecv(PeerLink peer) {
        try {
            prefetched = SharedMemory.getLongAcquire(peer.peerQp, peer.peerRecvSlot(peer.peerRqNext) + QpLayout.RQ_POST_SEQ);
        } catch (RuntimeException | InternalError fault) {
            // the peer's file faults (cut short): its next request fails the run, not this read ahead
        }
    }

    /** The value {@link #prefetchPeerRecv} read (kept so that the read is never taken for dead code). */
    private long prefetched;

    /**
     * Publishes the completion of the claimed peer receive at slot offset {@code r}; the peer is
     * woken (if armed for it) by the doorbell at the end of this run.
     */
    private void completePeerRecv(PeerLink peer, int r, WcStatus status, WcOpcode opcode, int byteLen, boolean imm, int immData,
                                  boolean solicited) {
        completePeerRecv(peer, r, status, opcode, byteLen, imm, immData, solicited, false);
    }

    /** As above; {@code inline}: the message's bytes were written into the done part (FLAG_INLINE). */
    private void completePeerRecv(PeerLink peer, int r, WcStatus status, WcOpcode opcode, int byteLen, boolean imm, int immData,
                                  boolean solicited, boolean inline) {
        ByteBuffer p = peer.peerQp;
        p.putInt(r + QpLayout.RQ_STATUS, status.ibv());
        p.putInt(r + QpLayout.RQ_OPCODE, opcode.ibv());
        p.putInt(r + QpLayout.RQ_BYTE_LEN, byteLen);
        p.putInt(r + QpLayout.RQ_IMM, immData);
        p.putInt(r + QpLayout.RQ_FLAGS, (imm ? QpLayout.FLAG_IMM : 0) | (inline ? QpLayout.FLAG_INLINE : 0));
        long n = peer.peerRqNext;
        SharedMemory.putLongRelease(p, r + QpLayout.RQ_DONE_SEQ, n + 1);
        peer.peerRqNext = n + 1;
        claimedPeerRecv = -1;
        int raises = status != WcStatus.SUCCESS || solicited ? QpLayout.RAISES_ANY_ARM : QpLayout.RAISES_FULL_ARM;
        peerDoorbell = Math.max(peerDoorbell, raises);
    }

    /**
     * After publishing completions (or an error) in the peer's memory: wakes the peer if its arm
     * is one that {@code raises} (QpLayout.RAISES_*) raises, taking the arm (CAS to 0) so that one
     * publisher wakes it once. True when it woke the peer.
     */
    private static boolean wakePeerIfArmed(PeerLink peer, int raises) {
        SharedMemory.fullFence(); // published, then read "armed": see SharedMemory.fullFence
        int arm = SharedMemory.getIntVolatile(peer.peerQp, QpLayout.H_NOTIFY_ARMED);
        if (QpLayout.raises(arm, raises) && SharedMemory.compareAndSetInt(peer.peerQp, QpLayout.H_NOTIFY_ARMED, arm, 0)) {
            peer.wakePeer();
            return true;
        }
        return false;
    }

    private boolean solicited(int w) {
        return (mem.getInt(w + QpLayout.SQ_FLAGS) & QpLayout.SQ_SOLICITED) != 0;
    }

    /** The fault hook's checkpoint; a run that is about to stop there rings its doorbells first (the peer may wait for them). */
    private boolean freezeCheckpoint(WrOpcode op) {
        if (freeze == null) {
            return false;
        }
        if (freeze.armedFor(op)) {
            ringDoorbells(link);
        }
        return freeze.checkpoint(op);
    }

    private int executeSend(long seq, int w, WrOpcode op, int numSge, int total, PeerLink peer) {
        int r = claimPeerRecv(seq, w, peer);
        if (r == -1) {
            return RNR;
        }
        if (r == -2) {
            return FAILED;
        }
        ByteBuffer p = peer.peerQp;
        int recvSges = p.getInt(r + QpLayout.RQ_NUM_SGE);
        WcStatus responder = WcStatus.SUCCESS;
        WcStatus requester = WcStatus.SUCCESS;
        String detail = null;
        long capacity = 0;
        if (recvSges < 0 || recvSges > peer.peerMaxRecvSge) {
            responder = WcStatus.LOC_QP_OP_ERR;
            requester = WcStatus.REM_OP_ERR;
            detail = peer.peerName + " posted a malformed receive (" + recvSges + " scatter/gather entries)";
        } else {
            for (int i = 0; i < recvSges; i++) {
                int g = r + QpLayout.RQ_SGES + i * QpLayout.SGE_SIZE;
                long addr = p.getLong(g + QpLayout.SGE_ADDR);
                int len = p.getInt(g + QpLayout.SGE_LENGTH);
                int lkey = p.getInt(g + QpLayout.SGE_LKEY);
                ByteBuffer b = len < 0 ? null : peer.resolve(lkey, AccessFlags.LOCAL_WRITE, addr, len);
                if (b == null) {
                    responder = WcStatus.LOC_PROT_ERR;
                    requester = WcStatus.REM_OP_ERR;
                    detail = peer.peerName + " posted a receive whose buffer is invalid: "
                            + (len < 0 ? "negative length " + len : peer.resolveError);
                    break;
                }
                remoteBuf[i] = b;
                remoteOff[i] = peer.resolvedOffset;
                remoteLen[i] = len;
                capacity += len;
            }
            if (responder == WcStatus.SUCCESS && total > capacity) {
                responder = WcStatus.LOC_LEN_ERR;
                requester = WcStatus.REM_INV_REQ_ERR;
                detail = "message of " + total + " bytes exceeds the " + capacity + "-byte receive buffer posted by " + peer.peerName;
            }
        }
        boolean frozen = freezeCheckpoint(op);
        boolean inline = responder == WcStatus.SUCCESS && total <= QpLayout.RQ_INLINE_MAX;
        if (inline) {
            // into the done part the owner polls; it scatters the bytes into its buffer when it takes the completion
            remoteBuf[0] = p;
            remoteOff[0] = r + QpLayout.RQ_INLINE;
            remoteLen[0] = total;
            copy(localBuf, localOff, localLen, numSge, remoteBuf, remoteOff, remoteLen, 1, total);
        } else if (responder == WcStatus.SUCCESS) {
            copy(localBuf, localOff, localLen, numSge, remoteBuf, remoteOff, remoteLen, recvSges, total);
        }
        boolean imm = op == WrOpcode.SEND_WITH_IMM;
        completePeerRecv(peer, r, responder, WcOpcode.RECV, responder == WcStatus.SUCCESS ? total : 0, imm,
                imm ? mem.getInt(w + QpLayout.SQ_IMM) : 0, solicited(w), inline);
        if (frozen) {
            freeze.finished();
        }
        if (requester != WcStatus.SUCCESS) {
            return fail(seq, w, requester, detail);
        }
        complete(seq, w, WcStatus.SUCCESS, total);
        return DONE;
    }

    private int executeWrite(long seq, int w, WrOpcode op, int numSge, int total, PeerLink peer) {
        long remoteAddr = mem.getLong(w + QpLayout.SQ_REMOTE_ADDR);
        int rkey = mem.getInt(w + QpLayout.SQ_RKEY);
        ByteBuffer dst = peer.resolve(rkey, AccessFlags.REMOTE_WRITE, remoteAddr, total);
        if (dst == null) {
            return remoteAccessError(seq, w, peer, "WRITE to ");
        }
        int dstOff = peer.resolvedOffset;
        int r = 0;
        if (op == WrOpcode.WRITE_WITH_IMM) {
            r = claimPeerRecv(seq, w, peer);
            if (r == -1) {
                return RNR;
            }
            if (r == -2) {
                return FAILED;
            }
        }
        remoteBuf[0] = dst;
        remoteOff[0] = dstOff;
        remoteLen[0] = total;
        boolean frozen = freezeCheckpoint(op);
        copy(localBuf, localOff, localLen, numSge, remoteBuf, remoteOff, remoteLen, 1, total);
        if (op == WrOpcode.WRITE_WITH_IMM) {
            completePeerRecv(peer, r, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, total, true, mem.getInt(w + QpLayout.SQ_IMM),
                    solicited(w));
        }
        if (frozen) {
            freeze.finished();
        }
        complete(seq, w, WcStatus.SUCCESS, total);
        return DONE;
    }

    private int executeRead(long seq, int w, int numSge, int total, PeerLink peer) {
        long remoteAddr = mem.getLong(w + QpLayout.SQ_REMOTE_ADDR);
        int rkey = mem.getInt(w + QpLayout.SQ_RKEY);
        ByteBuffer src = peer.resolve(rkey, AccessFlags.REMOTE_READ, remoteAddr, total);
        if (src == null) {
            return remoteAccessError(seq, w, peer, "READ from ");
        }
        remoteBuf[0] = src;
        remoteOff[0] = peer.resolvedOffset;
        remoteLen[0] = total;
        copy(remoteBuf, remoteOff, remoteLen, 1, localBuf, localOff, localLen, numSge, total);
        complete(seq, w, WcStatus.SUCCESS, total);
        return DONE;
    }

    /** A bad rkey or range: the requester fails, and so does the responder (IBV_EVENT_QP_ACCESS_ERR), as on hardware. */
    private int remoteAccessError(long seq, int w, PeerLink peer, String what) {
        SharedMemory.putIntVolatile(peer.peerQp, QpLayout.H_REMOTE_ERROR, WcStatus.REM_ACCESS_ERR.ibv());
        peerDoorbell = QpLayout.RAISES_ANY_ARM; // an error raises any arm
        return fail(seq, w, WcStatus.REM_ACCESS_ERR, what + peer.resolveError);
    }

    /** Copies {@code total} bytes from a gather list to a scatter list (both long enough). */
    static void copy(ByteBuffer[] sb, int[] so, int[] sl, int sn, ByteBuffer[] db, int[] dof, int[] dl, int dn, int total) {
        int si = 0;
        int sp = 0;
        int di = 0;
        int dp = 0;
        int left = total;
        while (left > 0) {
            while (sp == sl[si]) {
                si++;
                sp = 0;
            }
            while (dp == dl[di]) {
                di++;
                dp = 0;
            }
            int chunk = Math.min(Math.min(sl[si] - sp, dl[di] - dp), left);
            db[di].put(dof[di] + dp, sb[si], so[si] + sp, chunk);
            sp += chunk;
            dp += chunk;
            left -= chunk;
        }
    }

    // ------------------------------------------------------------ receive completions

    /**
     * Arms the peer's wake-up ({@code arm}: QpLayout.ARM_ANY or ARM_SOLICITED); the caller polls
     * afterwards, behind a full fence (see SharedMemory.fullFence).
     */
    void armNotification(int arm) {
        SharedMemory.putIntVolatile(mem, QpLayout.H_NOTIFY_ARMED, arm);
    }

    /** The owner's poller woke: its peer need not wake it (a plain store; the next arm is volatile and fenced). */
    void disarmNotification() {
        SharedMemory.putIntRelease(mem, QpLayout.H_NOTIFY_ARMED, 0);
    }

    /** What {@link #pollRecv} read of the next slot's second line, kept so that the read is not optimised away. */
    private long secondLineWarm;

    /**
     * Moves the next receive completion into {@code wc}, if there is one: written by the peer
     * (checked before it is believed), or a flush once the queue pair is in error.
     */
    boolean pollRecv(WorkCompletion wc) {
        long n = rqPolled;
        if (n == rqPosted) {
            if (state != QpState.ERROR && SharedMemory.getIntVolatile(mem, QpLayout.H_REMOTE_ERROR) != 0) {
                noticeRemoteError();
            }
            return false;
        }
        int slot = (int) (n % rqDepth);
        int r = QpLayout.HEADER_SIZE + slot * rqSlotSize;
        long done = SharedMemory.getLongAcquire(mem, r + QpLayout.RQ_DONE_SEQ);
        if (done == n + 1) {
            deliverRecv(wc, n, slot, r);
            return true;
        }
        // Not there yet. Read the done part's second line as well, so that this core holds both: a small message's
        // bytes (FLAG_INLINE) span the two, and once the sender has written them the next poll misses on both at
        // once, instead of on the second only after the first showed the sequence (one more cache line's trip
        // between cores, 100-450 ns on the hosts measured). An L1 hit while nothing comes.
        secondLineWarm ^= mem.getLong(r + QpLayout.RQ_DONE_SECOND_LINE);
        long previous = n + 1 - rqDepth;
        if (done != 0 && done != previous) {
            enterError("receive slot " + slot + " of queue pair " + qpn + " holds completion sequence " + done
                    + " where " + (n + 1) + " was expected: the peer corrupted the shared receive queue");
            wc.set(rqWrId[slot], WcStatus.LOC_QP_OP_ERR, WcOpcode.RECV, 0, qpn);
            wc.setErrorDetail(errorCause);
            rqPolled = n + 1;
            return true;
        }
        if (state != QpState.ERROR) {
            if (SharedMemory.getIntVolatile(mem, QpLayout.H_REMOTE_ERROR) == 0) {
                return false;
            }
            noticeRemoteError();
        }
        // In error: flush the receive unless a request of the peer is still under way — it may have
        // passed its check of our state before we entered ERROR, and still copy into our memory (a
        // receive it took, or a WRITE's destination). A flush thus tells the owner the peer is done.
        // A run that ended after our first look at the slot may have completed it: look again.
        PeerLink peer = link;
        runHook(beforeFlushCheck);
        if (peer != null && !peer.isDead() && SharedMemory.getIntVolatile(mem, QpLayout.H_INBOUND) != 0) {
            return false;
        }
        if (SharedMemory.getLongAcquire(mem, r + QpLayout.RQ_DONE_SEQ) == n + 1) {
            deliverRecv(wc, n, slot, r);
            return true;
        }
        runHook(beforeFlushStore);
        SharedMemory.putLongRelease(mem, r + QpLayout.RQ_POST_SEQ, 0); // a peer that looks finds nothing posted
        wc.set(rqWrId[slot], WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, qpn);
        wc.setErrorDetail(errorCause);
        rqPolled = n + 1;
        return true;
    }

    /**
     * Tests: runs in an ERROR queue pair's poll between its first look at a receive's completion and
     * its check of the peer's runs under way (the racing points of a flush). Null in production.
     */
    static volatile Runnable beforeFlushCheck;
    /** Tests: runs in that poll after it decided to flush, before it marks the receive flushed. Null in production. */
    static volatile Runnable beforeFlushStore;
    /** Tests: runs in {@link #enterError} once the queue pair reads ERROR, before it wakes anyone. Null in production. */
    static volatile Runnable afterErrorState;
    /** Tests: runs in {@link #scatterInline} between a region's lookup and the copy into it. Null in production. */
    static volatile Runnable duringInlineScatter;

    private static void runHook(Runnable hook) {
        if (hook != null) {
            hook.run();
        }
    }

    private void noticeRemoteError() {
        int code = SharedMemory.getIntVolatile(mem, QpLayout.H_REMOTE_ERROR);
        PeerLink peer = link;
        enterError((peer != null ? peer.peerName : "the peer") + " reported " + SoftCompletionQueue.statusOf(code)
                + " on a request it sent us (e.g. an rkey we do not have): our queue pair fails too, as on hardware");
    }

    private void deliverRecv(WorkCompletion wc, long n, int slot, int r) {
        try {
            takeCompletion(wc, slot, r);
        } finally {
            // Only now is the slot free: a postRecv on another thread may fill it (its record here, and
            // the shared part the peer then writes), so nothing of it may be read after this.
            rqPolled = n + 1;
        }
    }

    private void takeCompletion(WorkCompletion wc, int slot, int r) {
        int statusCode = mem.getInt(r + QpLayout.RQ_STATUS);
        int opcodeCode = mem.getInt(r + QpLayout.RQ_OPCODE);
        int byteLen = mem.getInt(r + QpLayout.RQ_BYTE_LEN);
        int flags = mem.getInt(r + QpLayout.RQ_FLAGS);
        WcStatus status = WcStatus.fromIbv(statusCode);
        WcOpcode opcode = WcOpcode.fromIbv(opcodeCode);
        String malformed = null;
        if (status == null) {
            malformed = "unknown status " + statusCode;
        } else if (opcode != WcOpcode.RECV && opcode != WcOpcode.RECV_RDMA_WITH_IMM) {
            malformed = "opcode " + opcodeCode + " is not a receive opcode";
        } else if (byteLen < 0 || (opcode == WcOpcode.RECV && byteLen > rqCapacity[slot])) {
            malformed = "byte length " + byteLen + " does not fit the " + rqCapacity[slot] + "-byte receive posted";
        } else if ((flags & ~(QpLayout.FLAG_IMM | QpLayout.FLAG_INLINE)) != 0) {
            malformed = "unknown flags 0x" + Integer.toHexString(flags);
        } else if ((flags & QpLayout.FLAG_INLINE) != 0 && (opcode != WcOpcode.RECV || byteLen > QpLayout.RQ_INLINE_MAX)) {
            malformed = "an inline " + opcode + " of " + byteLen + " bytes (inline carries a SEND of up to " + QpLayout.RQ_INLINE_MAX
                    + ")";
        }
        if (malformed != null) {
            enterError("the peer wrote a malformed completion into receive slot " + slot + " of queue pair " + qpn + ": " + malformed);
            wc.set(rqWrId[slot], WcStatus.LOC_QP_OP_ERR, WcOpcode.RECV, 0, qpn);
            wc.setErrorDetail(errorCause);
            return;
        }
        String scatterFailure = (flags & QpLayout.FLAG_INLINE) != 0 && status == WcStatus.SUCCESS ? scatterInline(slot, r, byteLen) : null;
        if (scatterFailure != null) {
            enterError("receive " + rqWrId[slot] + " of queue pair " + qpn + " cannot take its message: " + scatterFailure);
            wc.set(rqWrId[slot], WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, qpn);
            wc.setErrorDetail(errorCause);
            return;
        }
        wc.set(rqWrId[slot], status, opcode, byteLen, qpn);
        if ((flags & QpLayout.FLAG_IMM) != 0) {
            wc.setImmediate(mem.getInt(r + QpLayout.RQ_IMM));
        }
        if (status != WcStatus.SUCCESS) {
            enterError(status == WcStatus.LOC_LEN_ERR
                    ? "a message larger than the posted receive buffer (" + rqCapacity[slot] + " bytes) arrived"
                    : "receive failed: " + status.description());
            wc.setErrorDetail(errorCause);
        }
    }

    /**
     * Copies an inline message from the done part at {@code r} into the scatter list the receive in
     * {@code slot} was posted with (the peer checked it against our region table; it is checked again
     * here, as the region could have gone since). Null when done, else why it could not be.
     */
    private String scatterInline(int slot, int r, int byteLen) {
        // Counted as a copy into local regions, as a run of the send queue is: a region closed meanwhile
        // is unmapped (shm) only once no such copy is under way (SoftContext.anySendQueueRunning).
        scattering.getAndSet(1); // a full fence before the region lookups: the closer's fence pairs with it
        try {
            int from = r + QpLayout.RQ_INLINE;
            int left = byteLen;
            for (int i = 0; i < rqNumSge[slot] && left > 0; i++) {
                int e = slot * maxRecvSge + i;
                int len = Math.min(left, rqSgeLength[e]);
                SoftMemoryRegion mr = context.localRegion(rqSgeLkey[e]);
                long off = mr == null || mr.pdId != pd.id || (mr.access & AccessFlags.LOCAL_WRITE) == 0 ? -1
                        : RegionKeys.offsetIn(mr.address, mr.length, rqSgeAddr[e], len);
                if (off < 0) {
                    return "its buffer [0x" + Long.toHexString(rqSgeAddr[e]) + ", +" + len + ") is no longer in a registered, "
                            + "locally writable region of its protection domain (lkey 0x" + Integer.toHexString(rqSgeLkey[e]) + ")";
                }
                runHook(duringInlineScatter);
                mr.memory.put((int) off, mem, from, len);
                from += len;
                left -= len;
            }
            return null;
        } finally {
            scattering.set(0);
        }
    }

    // ------------------------------------------------------------ errors and teardown

    /**
     * Moves the queue pair to ERROR (once): outstanding sends are flushed by whoever runs the send
     * queue next, receives by the next polls, and blocked pollers are woken.
     */
    void enterError(String cause) {
        synchronized (this) {
            if (state == QpState.ERROR || state == QpState.DESTROYED) {
                return;
            }
            errorCause = cause;
            // Shared first, then the field the pollers read: a poller that sees ERROR and then reads
            // H_INBOUND 0 knows that a peer counting itself in later reads ERROR here (volatile: a full
            // fence), so it may flush. The other order let a peer slip in between and fill a flushed receive.
            SharedMemory.putIntVolatile(mem, QpLayout.H_STATE, QpState.ERROR.ibv());
            state = QpState.ERROR;
        }
        runHook(afterErrorState);
        sendCq.notifyEvent();
        recvCq.notifyEvent();
        runSendQueue();
    }

    /** The provider thread found the peer dead: the next request run fails with RETRY_EXC_ERR, the rest are flushed. */
    void peerDied(String cause) {
        nextErrorStatus = WcStatus.RETRY_EXC_ERR;
        enterError(cause);
    }

    @Override
    public void close() {
        SoftConnection c;
        synchronized (this) {
            if (state == QpState.DESTROYED) {
                return;
            }
        }
        PeerLink peer = link;
        c = peer != null ? peer.connection : null;
        if (c != null) {
            c.disconnect();
        }
        synchronized (this) {
            state = QpState.DESTROYED;
        }
        SharedMemory.putIntRelease(mem, QpLayout.H_STATE, QpState.DESTROYED.ibv());
        recvCq.detachRecv(this);
        sendCq.detachSend(this);
        context.removeQp(this);
        if (peer != null) {
            peer.close();
        }
        context.fabric.releaseStructure(structureName);
    }

    @Override
    public String toString() {
        return "QueuePair{qpn=" + qpn + ", " + state + (link != null ? ", peer=" + link.peerName : "")
                + (errorCause != null ? ", cause=" + errorCause : "") + "}";
    }
}
