package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.soft.fault.CompletionFault;
import io.reactorrdma.verbs.soft.shared.CqLayout;
import io.reactorrdma.verbs.soft.shared.QpLayout;
import io.reactorrdma.verbs.soft.shared.SharedMemory;
import io.reactorrdma.verbs.soft.shared.WakeSocket;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A soft completion queue: a ring of send completions ({@link CqLayout}) plus the receive queues of
 * the queue pairs attached to it, whose completions the peers write in place ({@link QpLayout}).
 * {@link #poll} drains the ring, then visits the receive queues round-robin.
 *
 * <p>Notification: {@link #requestNotification(boolean)} arms the queue locally and in every attached
 * receive queue's shared header, for every completion or for solicited ones (and errors) only;
 * whoever adds a completion that raises the arm disarms and wakes the waiter, once per run of its
 * send queue (the doorbell: after the whole batch, not per completion) —
 * directly when in this process; when the peer is another process, by a byte on the queue's
 * {@link WakeSocket}, in whose selector the waiter itself blocks (or, without one, through the
 * link's control socket and the provider thread). A wait that ends on a completion uses the arm
 * up (all of it: the local flag and every receive queue's), as on an RNIC, and an arm drops an
 * event left from the last one, so a running poller is not signalled by its own sends.
 */
final class SoftCompletionQueue implements CompletionQueue {

    private static final SoftQueuePair[] NONE = new SoftQueuePair[0];
    private static final WcStatus[] STATUS_BY_IBV = new WcStatus[32];
    private static final WcOpcode[] SEND_OPCODES = {WcOpcode.SEND, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ};

    static {
        for (WcStatus s : WcStatus.values()) {
            STATUS_BY_IBV[s.ibv()] = s;
        }
    }

    final SoftContext context;
    final String name;
    /** The number in {@link #name} ({@code cq<number>}); peers find our {@link WakeSocket} by it. */
    final int number;
    /** Where the waiter blocks on the shm fabric (peers' bytes wake it); null: it parks (loopback, or no socket). */
    private final WakeSocket wakeSocket;
    private final int capacity;
    private final ByteBuffer ring;
    private long head;
    /** Polls since the start; every {@link WakeSocket#DEFAULT_REAP_INTERVAL_POLLS}th reaps the wake socket. */
    private int polls;
    private volatile SoftQueuePair[] recvQps = NONE;
    private int roundRobin;
    private int reservedSlots;
    private int attachedQps;
    /** 0, QpLayout.ARM_ANY or QpLayout.ARM_SOLICITED: the local arm, for send completions and errors of this process. */
    private volatile int armed;
    private final AtomicInteger event = new AtomicInteger();
    private final AtomicInteger wakeups = new AtomicInteger();
    private volatile Thread waiter;
    private volatile boolean closed;
    /** The fault hook (tests), or null; with it, the completions it holds back wait here in order. */
    private final CompletionFault fault;
    private final java.util.ArrayDeque<WorkCompletion> held;
    private final WorkCompletion discard = new WorkCompletion();

    SoftCompletionQueue(SoftContext context, int number, int capacity, ByteBuffer ring, WakeSocket wakeSocket) {
        this.context = context;
        this.number = number;
        this.wakeSocket = wakeSocket;
        this.fault = context.faults.completionFault();
        this.held = fault != null ? new java.util.ArrayDeque<>() : null;
        this.name = nameOf(number);
        this.capacity = capacity;
        this.ring = ring;
    }

    /** The structure name of completion queue {@code number}. */
    static String nameOf(int number) {
        return "cq" + number;
    }

    boolean hasWakeSocket() {
        return wakeSocket != null;
    }

    /** Open connections of peers to this queue's wake socket (tests). */
    int wakeConnections() {
        return wakeSocket != null ? wakeSocket.connections() : 0;
    }

    /** Wake-ups that came as a peer's byte on this queue's wake socket (0 without one). */
    long socketWakeups() {
        return wakeSocket != null ? wakeSocket.socketWakeups() : 0;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    /**
     * Every send-queue and receive-queue slot may hold one completion here, so the depths must fit
     * the queue: an RNIC would overrun it (IBV_EVENT_CQ_ERR, its queue pairs in error), so the
     * soft provider refuses the queue pair up front, as the disni provider does.
     */
    synchronized void reserveSlots(int sendDepth, int recvDepth, boolean send) {
        if (closed) {
            throw new IllegalStateException("completion queue " + name + " is closed");
        }
        int depth = sendDepth + recvDepth;
        if ((long) reservedSlots + depth > capacity) {
            throw new IllegalArgumentException("completion queue " + name + " holds " + capacity + " completions and its queue pairs "
                    + "already take " + reservedSlots + "; a queue pair with " + (send ? "send queue depth " + sendDepth : "")
                    + (send && recvDepth > 0 ? " and " : "") + (recvDepth > 0 ? "receive queue depth " + recvDepth : "")
                    + " does not fit. Create a larger completion queue (at least the sum of the send- and receive-queue "
                    + "depths of the queue pairs using it)");
        }
        reservedSlots += depth;
        if (send) {
            attachedQps++;
        }
    }

    synchronized void releaseSlots(int depth, boolean send) {
        reservedSlots -= depth;
        if (send) {
            attachedQps--;
        }
    }

    synchronized void attachRecv(SoftQueuePair qp) {
        SoftQueuePair[] next = Arrays.copyOf(recvQps, recvQps.length + 1);
        next[next.length - 1] = qp;
        recvQps = next;
        int arm = armed;
        if (arm != 0) {
            qp.armNotification(arm);
        }
    }

    synchronized void detachRecv(SoftQueuePair qp) {
        SoftQueuePair[] cur = recvQps;
        int n = 0;
        SoftQueuePair[] next = new SoftQueuePair[cur.length];
        for (SoftQueuePair q : cur) {
            if (q != qp) {
                next[n++] = q;
            }
        }
        recvQps = n == 0 ? NONE : Arrays.copyOf(next, n);
        if (n < cur.length) {
            reservedSlots -= qp.rqDepth;
        }
    }

    synchronized void detachSend(SoftQueuePair qp) {
        releaseSlots(qp.sqDepth, true);
    }

    /**
     * Adds a send completion; called by whoever runs the queue pair's send queue (many
     * producers), which then calls {@link #ring} once for the run. Allocation-free.
     */
    void push(int qpn, long sqIndex, long wrId, WcStatus status, WcOpcode opcode, int byteLen) {
        long claim = SharedMemory.getAndAddLong(ring, CqLayout.H_TAIL, 1);
        int e = CqLayout.entryOffset(claim, capacity);
        ring.putLong(e + CqLayout.E_WR_ID, wrId);
        ring.putLong(e + CqLayout.E_SQ_INDEX, sqIndex);
        ring.putInt(e + CqLayout.E_QPN, qpn);
        ring.putInt(e + CqLayout.E_STATUS, status.ibv());
        ring.putInt(e + CqLayout.E_OPCODE, opcode.ibv());
        ring.putInt(e + CqLayout.E_BYTE_LEN, byteLen);
        SharedMemory.putLongRelease(ring, e + CqLayout.E_SEQ, claim + 1);
        // no wake-up here: the queue pair rings once, after the whole run of its send queue (ring)
    }

    /**
     * The doorbell of one run of a send queue that pushed completions here: wakes the waiter if the
     * queue is armed and the completions pushed raise that arm ({@code level}: QpLayout.RAISES_*;
     * a solicited-only arm is raised by an error only). True when it signalled an event.
     */
    boolean ring(int level) {
        SharedMemory.fullFence(); // published, then read "armed": see SharedMemory.fullFence
        if (QpLayout.raises(armed, level)) {
            notifyEvent();
            return true;
        }
        return false;
    }

    @Override
    public int poll(WorkCompletion[] wcs, int max) {
        if (closed) {
            throw new IllegalStateException("completion queue " + name + " is closed");
        }
        if (wakeSocket != null && (++polls & (WakeSocket.DEFAULT_REAP_INTERVAL_POLLS - 1)) == 0) {
            wakeSocket.reap(); // before the scan below: a byte drained here is for a completion that scan sees
        }
        int limit = Math.min(max, wcs.length);
        int n = 0;
        long startHead = head;
        if (fault != null) {
            while (n < limit && !held.isEmpty() && fault.actionFor(held.peek().qpNum()) != CompletionFault.DELAY) {
                copy(held.poll(), wcs[n++]);
            }
        }
        while (n < limit) {
            int e = CqLayout.entryOffset(head, capacity);
            if (SharedMemory.getLongAcquire(ring, e + CqLayout.E_SEQ) != head + 1) {
                break;
            }
            int qpn = ring.getInt(e + CqLayout.E_QPN);
            long sqIndex = ring.getLong(e + CqLayout.E_SQ_INDEX);
            WcStatus status = statusOf(ring.getInt(e + CqLayout.E_STATUS));
            WorkCompletion wc = wcs[n];
            wc.set(ring.getLong(e + CqLayout.E_WR_ID), status, sendOpcodeOf(ring.getInt(e + CqLayout.E_OPCODE)),
                    ring.getInt(e + CqLayout.E_BYTE_LEN), qpn);
            SoftQueuePair qp = context.qp(qpn);
            if (qp != null) {
                if (status != WcStatus.SUCCESS) {
                    wc.setErrorDetail(qp.errorCause());
                }
                qp.retireSends(sqIndex + 1);
            }
            head++;
            int action = fault != null ? fault.actionFor(qpn) : CompletionFault.NONE;
            if (action != CompletionFault.NONE) {
                if (action == CompletionFault.DELAY) {
                    held.add(WorkCompletion.copyOf(wc));
                } else {
                    fault.countDropped();
                }
                continue;
            }
            n++;
        }
        if (head != startHead) {
            ring.putLong(CqLayout.H_HEAD, head);
        }
        SoftQueuePair[] qps = recvQps;
        int k = qps.length;
        if (k > 0 && n < limit) {
            int start = roundRobin;
            for (int i = 0; i < k && n < limit; i++) {
                SoftQueuePair qp = qps[(start + i) % k];
                int action = fault != null ? fault.actionFor(qp.qpn) : CompletionFault.NONE;
                if (action != CompletionFault.NONE) {
                    if (action == CompletionFault.DROP) {
                        while (qp.pollRecv(discard)) {
                            fault.countDropped();
                        }
                    }
                    continue; // DELAY: its receive completions stay where the peer wrote them
                }
                while (n < limit && qp.pollRecv(wcs[n])) {
                    n++;
                }
            }
            roundRobin = (start + 1) % k;
        }
        return n;
    }

    private static void copy(WorkCompletion from, WorkCompletion to) {
        to.set(from.wrId(), from.status(), from.opcode(), from.byteLen(), from.qpNum());
        to.setErrorDetail(from.errorDetail());
    }

    /** The status with this code; anything unknown reads as a general error. */
    static WcStatus statusOf(int ibv) {
        WcStatus s = ibv >= 0 && ibv < STATUS_BY_IBV.length ? STATUS_BY_IBV[ibv] : null;
        return s != null ? s : WcStatus.GENERAL_ERR;
    }

    private static WcOpcode sendOpcodeOf(int ibv) {
        return ibv >= 0 && ibv < SEND_OPCODES.length ? SEND_OPCODES[ibv] : WcOpcode.SEND;
    }

    @Override
    public void requestNotification() {
        requestNotification(false);
    }

    /**
     * Arms locally and in every attached receive queue's shared header, with the arm's kind:
     * {@link QpLayout#ARM_ANY}, or {@link QpLayout#ARM_SOLICITED}, which only a solicited receive
     * completion or an error raises (ibv_req_notify_cq(3)); what raises it is decided by the
     * publisher, at its doorbell ({@link #ring}, {@code SoftQueuePair}).
     */
    @Override
    public void requestNotification(boolean solicitedOnly) {
        int arm = solicitedOnly ? QpLayout.ARM_SOLICITED : QpLayout.ARM_ANY;
        // An event left from an earlier arm (our own send completion pushed while we ran, after a
        // poll had already found work) is stale: the poll the caller makes next sees its completion.
        // Cleared before the arm, so an event of this arm always survives (see awaitNotification).
        event.set(0);
        armed = arm;
        for (SoftQueuePair qp : recvQps) {
            qp.armNotification(arm);
        }
        // Arm, then let the caller poll: the fence keeps that poll from running before the arm
        // stores are visible to publishers (see SharedMemory.fullFence).
        SharedMemory.fullFence();
    }

    /** A completion arrived on an armed queue: disarm and wake the waiter. */
    void notifyEvent() {
        armed = 0;
        event.set(1);
        Thread w = waiter;
        if (w != null) {
            signal(w);
        }
    }

    /** Ends the wait of {@code w}, blocked in {@link #awaitNotification} (or about to be). */
    private void signal(Thread w) {
        if (wakeSocket != null) {
            wakeSocket.wakeup(w);
        } else {
            LockSupport.unpark(w);
        }
    }

    /**
     * The wait ended on a completion event: the arm is used up, as {@code ibv_req_notify_cq}'s is
     * by the first completion. Whoever woke us disarmed only its own flag (a peer its queue pair's
     * shared one, an in-process completion the local one); the rest are cleared here, so that
     * while the poller runs, neither its own send completions nor a peer's next message signal it
     * again (a stale event or a stale byte would end its next wait at once: an extra wake-up per
     * message). Safe for wake-ups: the poller arms again, behind a full fence, before it waits.
     */
    private void consumeArm() {
        armed = 0;
        for (SoftQueuePair qp : recvQps) {
            qp.disarmNotification();
        }
    }

    @Override
    public boolean awaitNotification(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        waiter = Thread.currentThread();
        try {
            while (true) {
                if (event.getAndSet(0) != 0) {
                    consumeArm();
                    return true;
                }
                if (wakeups.getAndSet(0) != 0) {
                    return false;
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || closed) {
                    return false;
                }
                if (wakeSocket == null) {
                    LockSupport.parkNanos(this, left);
                } else if (wakeSocket.await(left)) {
                    consumeArm();
                    return true; // a peer's byte: one context switch, no provider thread in between
                }
            }
        } finally {
            waiter = null;
        }
    }

    @Override
    public void wakeup() {
        wakeups.set(1);
        Thread w = waiter;
        if (w != null) {
            signal(w);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (attachedQps > 0 || recvQps.length > 0) {
            throw new VerbsException("completion queue " + name + " still serves " + Math.max(attachedQps, recvQps.length)
                    + " queue pair(s); destroy them first (ibv_destroy_cq fails with EBUSY likewise)");
        }
        forceClose();
    }

    /** Closes regardless of users (context close). */
    synchronized void forceClose() {
        if (closed) {
            return;
        }
        closed = true;
        Thread w = waiter;
        if (w != null) {
            signal(w);
        }
        if (wakeSocket != null) {
            context.fabric.closeWakeSocket(wakeSocket);
        }
        context.removeCq(this);
        context.fabric.releaseStructure(name);
    }
}
