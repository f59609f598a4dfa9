package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.disni.calls.NotifyCalls;
import io.reactorrdma.verbs.disni.work.CompletionMapper;
import io.reactorrdma.verbs.disni.cm.CmEventLoop;
import io.reactorrdma.verbs.work.tracking.CqRoom;
import io.reactorrdma.verbs.work.tracking.QueuePairUsers;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * A completion queue with its own completion channel ({@code ibv_create_comp_channel} +
 * {@code ibv_create_cq}). One channel per queue because DiSNI's {@code getCqEvent} does not say
 * which queue fired.
 *
 * <p>Sizing: the hardware queue holds {@code 2 × capacity} entries; the send depths of the queue
 * pairs attached may use up to {@code capacity} (the SPI's rule, as on the soft provider) and
 * their receive depths another {@code capacity}, so the queue can never overrun (an overrun is a
 * fatal asynchronous error on hardware).
 *
 * <p>Polling uses one prebuilt {@code SVCPollCq} per batch size (DiSNI fixes {@code ne} when the
 * call is built), so a poll is one JNI call and allocates nothing; likewise one prebuilt
 * {@code SVCReqNotify} per arm kind ({@link NotifyCalls}).
 */
final class DisniCompletionQueue implements CompletionQueue {

    /** Most completions one poll returns; {@code poll(wcs, max)} with a larger max returns at most this many. */
    static final int MAX_POLL = 64;
    /**
     * How long one wait on the completion channel lasts before the wakeup flag and interrupts are
     * checked. libibverbs cannot wake a thread blocked on the channel, so this bounds how long work
     * handed to an idle I/O thread waits: short, at the cost of ~500 empty wake-ups a second while idle.
     */
    static final int WAIT_SLICE_MILLIS = 2;
    /** Events are acknowledged ({@code ibv_ack_cq_events}, which takes a mutex) in batches of this many. */
    static final int ACK_BATCH = 16;

    private final DisniContext context;
    private final int capacity;
    private final IbvCompChannel channel;
    private final IbvCQ cq;
    private final CompletionMapper mapper;
    private final IbvWC[] ibvWcs = new IbvWC[MAX_POLL];
    private final SVCPollCq[] pollCalls = new SVCPollCq[MAX_POLL + 1];
    private final NotifyCalls notify;
    /** Events read and not yet acknowledged; volatile because {@code close()} may run on another thread. */
    private volatile int unacked;
    private volatile boolean wakeup;
    /** The room its queue pairs' depths take (guarded by this). */
    private final CqRoom room;
    /** The poller's: the last {@link CqRoom#heldStamp} a short poll gave back. */
    private long drained;
    /** The queue pairs that have room here: a close waits for the teardown of those being closed. */
    private final QueuePairUsers queuePairs = new QueuePairUsers("completion queue");
    private boolean closed;

    DisniCompletionQueue(DisniContext context, int capacity, IbvCompChannel channel, IbvCQ cq, CompletionMapper mapper) throws IOException {
        this.context = context;
        this.capacity = capacity;
        this.room = new CqRoom(capacity);
        this.channel = channel;
        this.cq = cq;
        this.mapper = mapper;
        for (int i = 0; i < MAX_POLL; i++) {
            ibvWcs[i] = new IbvWC();
        }
        this.notify = new NotifyCalls(cq::reqNotification);
    }

    IbvCQ ibv() {
        return cq;
    }

    /** Reserves room for a queue pair's completions, or says what size the queue needs. */
    synchronized void reserve(int sendDepth, int recvDepth) {
        if (closed) {
            throw new IllegalStateException("completion queue is closed");
        }
        room.reserve(sendDepth, recvDepth);
        queuePairs.attached();
    }

    /** A queue pair with room here began closing: its teardown gives the room back ({@link #releaseDestroyed}). */
    void queuePairClosing() {
        queuePairs.closing();
    }

    /** Gives back what {@link #reserve} took for a queue pair that never reached the device. */
    synchronized void release(int sendDepth, int recvDepth) {
        room.release(sendDepth, recvDepth);
        queuePairs.abandoned();
    }

    /**
     * As {@link #release}, for a queue pair destroyed on the device: the room of its requests not seen complete comes
     * back with the first poll that finds the queue empty, as their flushes may still be here (see {@link CqRoom}).
     */
    synchronized void releaseDestroyed(int sendDepth, int recvDepth, int sendOutstanding, int recvOutstanding) {
        room.releaseDestroyed(sendDepth, recvDepth, sendOutstanding, recvOutstanding);
        queuePairs.released();
        if (room.holds()) {
            wakeup(); // a waiting poller polls again
        }
    }

    @Override
    public int poll(WorkCompletion[] wcs, int max) {
        int n = Math.min(Math.min(max, wcs.length), MAX_POLL);
        if (n <= 0) {
            return 0;
        }
        SVCPollCq call = pollCalls[n];
        long held = room.heldStamp(); // before the poll: a short poll then proves those queue pairs' completions gone
        try {
            if (call == null) {
                call = cq.poll(ibvWcs, n); // built once per batch size
                pollCalls[n] = call;
            }
            call.execute();
        } catch (IOException e) {
            throw new VerbsException("ibv_poll_cq failed: " + e.getMessage() + " (the completion queue overran or was destroyed)", e);
        }
        int got = call.getPolls();
        if (got < n && held != drained) {
            drained = held;
            synchronized (this) {
                room.drained(held);
            }
        }
        int out = 0;
        for (int i = 0; i < got; i++) {
            if (mapper.map(ibvWcs[i], wcs[out])) {
                out++;
            }
        }
        return out;
    }

    @Override
    public void requestNotification() {
        requestNotification(false);
    }

    /** {@code ibv_req_notify_cq(cq, solicitedOnly)}: the NIC decides what raises the arm (see CompletionQueue). */
    @Override
    public void requestNotification(boolean solicitedOnly) {
        try {
            notify.arm(solicitedOnly);
        } catch (IOException e) {
            throw new VerbsException("ibv_req_notify_cq(solicited_only=" + (solicitedOnly ? 1 : 0) + ") failed: " + e.getMessage()
                    + " (the completion queue was destroyed, or the device failed)", e);
        }
    }

    @Override
    public boolean awaitNotification(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            if (wakeup) {
                wakeup = false;
                return false;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMillis <= 0) {
                return false;
            }
            boolean fired;
            try {
                // libdisni polls the channel fd with this timeout; the native wait ignores interrupts, hence slices
                fired = channel.getCqEvent(cq, (int) Math.min(leftMillis, WAIT_SLICE_MILLIS));
            } catch (IOException e) {
                throw new VerbsException("waiting on the completion channel failed: " + e.getMessage(), e);
            }
            if (fired) {
                if (++unacked >= ACK_BATCH) {
                    ackEvents();
                }
                return true;
            }
        }
    }

    private void ackEvents() {
        if (unacked == 0) {
            return;
        }
        try {
            cq.ackEvents(unacked);
        } catch (IOException e) {
            throw new VerbsException("ibv_ack_cq_events failed: " + e.getMessage(), e);
        }
        unacked = 0;
    }

    @Override
    public void wakeup() {
        wakeup = true;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        // queue pairs closed just before hand their destruction to the CM thread: wait for it (outside this lock, which
        // their release takes); one never closed is refused at once
        queuePairs.awaitReleasedOrFail(CmEventLoop.CALL_TIMEOUT);
        synchronized (this) {
            if (closed) {
                return;
            }
            if (queuePairs.count() > 0) { // a queue pair was created on it meanwhile (reserve takes this lock)
                throw new IllegalStateException("completion queue still has queue pairs: one was created on it while it was "
                        + "being closed; close them first");
            }
            closed = true;
        }
        String failure = null;
        try {
            try {
                ackEvents(); // ibv_destroy_cq blocks until every event taken with ibv_get_cq_event is acknowledged
            } catch (RuntimeException e) {
                failure = e.getMessage();
            }
            for (SVCPollCq c : pollCalls) {
                if (c != null) {
                    c.free();
                }
            }
            notify.free();
            try {
                int rc = cq.destroyCQ(); // DiSNI returns ibv_destroy_cq's result instead of throwing
                if (rc != 0) {
                    failure = "ibv_destroy_cq returned " + rc + " (EBUSY: a queue pair still uses it; close queue pairs first)";
                }
            } catch (IOException | RuntimeException e) {
                failure = "ibv_destroy_cq failed: " + e.getMessage();
            }
            try {
                // always tried, so a failed ibv_destroy_cq does not also leak the channel's fd when it can go
                int rc = channel.destroyCompChannel();
                if (rc != 0 && failure == null) {
                    failure = "ibv_destroy_comp_channel returned " + rc + " (EBUSY: a completion queue still uses it)";
                }
            } catch (IOException | RuntimeException e) {
                if (failure == null) {
                    failure = "ibv_destroy_comp_channel failed: " + e.getMessage();
                }
            }
        } finally {
            context.forget(this);
        }
        if (failure != null) {
            throw new VerbsException("closing the completion queue failed: " + failure);
        }
    }
}
