package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.Libc;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCompletionChannel;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCq;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaDevice;
import io.reactorrdma.verbs.ffm.rdmacore.WorkCompletions;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.tracking.CompletionDecoder;
import io.reactorrdma.verbs.work.tracking.CqRoom;
import io.reactorrdma.verbs.work.tracking.QueuePairUsers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The SPI's completion queue over rdma-core: a CQ with a completion channel of its own, polled through the device's
 * operation table into a native buffer and decoded into the caller's {@link WorkCompletion}s (no allocation): each
 * {@code wr_id} is a token of the context's queue-pair table, which gives back the caller's id. A
 * waiting I/O thread blocks in {@code poll(2)} on the channel's descriptor and an eventfd, so {@link #wakeup()} wakes
 * it at once: no time slices, unlike the DiSNI provider, whose library cannot wake a thread blocked on the channel.
 *
 * <p>A failed completion carries its work request id, status and queue-pair number only (ibv_poll_cq(3) leaves
 * the rest undefined): its byte count is passed on as 0, and which request it was — send or receive, opcode — comes
 * from the queue pairs' own records of what they posted ({@link CompletionDecoder}).
 *
 * <p>Sizing as the DiSNI provider: the CQ holds twice {@link #capacity()}, room for the send depths and the receive
 * depths of its queue pairs, so it can never overrun.
 */
public final class FfmCompletionQueue implements CompletionQueue {

    /** Most completions one poll returns. */
    static final int MAX_POLL = 64;

    private final int capacity;
    private final CompletionDecoder decoder;
    /** Tells the context the queue is gone. */
    private final Consumer<? super FfmCompletionQueue> forget;
    private final RdmaCompletionChannel channel;
    private final RdmaCq cq;
    private final Libc.Waiter waiter;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs = RdmaCq.completions(arena, MAX_POLL);
    private volatile boolean closed;
    /** Set by the one {@link #close} that goes on: reserve refuses from then, and a concurrent close returns. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /**
     * Calls into the queue in progress (poll, arm, wait). {@link #close} from another thread (a device removal on the CM
     * thread) waits for them to leave before it destroys anything: a woken poller must not touch a destroyed queue.
     */
    private final AtomicInteger inUse = new AtomicInteger();
    /** How long a close from another thread waits for pollers to leave; past it the native queue is left, not freed. */
    private static final long LEAVE_NANOS = 2_000_000_000L;
    /** Queue pairs with room here: a close waits for the teardown of closing ones (past it, the queue is left). */
    private final QueuePairUsers queuePairs = new QueuePairUsers("completion queue");
    private static final Logger LOG = Loggers.getLogger(FfmCompletionQueue.class);
    /** The room its queue pairs' depths take (guarded by this, but for its heldStamp). */
    private final CqRoom room;
    /** The poller's: the last {@link CqRoom#heldStamp} a short poll gave back. */
    private long drained;

    /** A queue of {@code capacity} completions on {@code device}, whose tokens {@code decoder} reads. */
    FfmCompletionQueue(RdmaDevice device, int capacity, CompletionDecoder decoder, Consumer<? super FfmCompletionQueue> forget) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a completion queue holds at least one completion, got " + capacity);
        }
        this.capacity = capacity;
        this.room = new CqRoom(capacity);
        this.decoder = decoder;
        this.forget = forget;
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

    /** Takes room for a queue pair's send and receive depths; refused when they would not fit. */
    synchronized void reserve(int sendDepth, int recvDepth) {
        if (closing.get()) { // set before closed, and kept once closed
            throw new IllegalStateException("completion queue is closed");
        }
        room.reserve(sendDepth, recvDepth);
        queuePairs.attached();
    }

    /** Gives back what {@link #reserve} took for a queue pair whose creation failed (it never closes). */
    synchronized void release(int sendDepth, int recvDepth) {
        room.release(sendDepth, recvDepth);
        queuePairs.abandoned();
    }

    /** A queue pair with room here began closing: a close of this queue waits for its release. */
    void queuePairClosing() {
        queuePairs.closing();
    }

    /**
     * Gives back what {@link #reserve} took for a queue pair destroyed on the device, but for its requests not seen
     * complete: their flushes may still be here (rxe and siw leave them; mlx5 removes them), so that room comes back
     * with the first poll that finds the queue empty (see {@link CqRoom}). A waiting poller is woken to make that poll.
     */
    synchronized void releaseDestroyed(int sendDepth, int recvDepth, int sendOutstanding, int recvOutstanding) {
        room.releaseDestroyed(sendDepth, recvDepth, sendOutstanding, recvOutstanding);
        queuePairs.released();
        if (room.holds()) {
            waiter.wake(); // a no-op once closed
        }
    }

    @Override
    public int poll(WorkCompletion[] out, int max) {
        int n = Math.min(Math.min(max, out.length), MAX_POLL);
        if (n <= 0) {
            return 0;
        }
        enter();
        try {
            return pollEntered(out, n);
        } finally {
            inUse.decrementAndGet();
        }
    }

    private int pollEntered(WorkCompletion[] out, int n) {
        long held = room.heldStamp(); // before the poll: a short poll then proves those queue pairs' completions gone
        int got;
        try {
            got = cq.poll(wcs, n);
        } catch (IllegalStateException e) {
            if (closed) {
                throw new VerbsException(e.getMessage(), e);
            }
            throw new VerbsException(e.getMessage() + "; the completions of its queue pairs are lost. This provider reserves "
                    + "room for every queue pair's depths, so an overrun means more completions came than were posted: "
                    + "a device failure, or a bug to report", e);
        }
        if (got < n && held != drained) {
            drained = held;
            synchronized (this) {
                room.drained(held);
            }
        }
        int filled = 0;
        for (int i = 0; i < got; i++) {
            boolean withImm = (WorkCompletions.flags(wcs, i) & VerbsConstants.IBV_WC_WITH_IMM) != 0;
            // imm_data is big-endian on the wire (__be32): the peer wrote htonl(value)
            if (decoder.decode(WorkCompletions.wrId(wcs, i), WorkCompletions.status(wcs, i), WorkCompletions.opcode(wcs, i),
                    WorkCompletions.byteLen(wcs, i), WorkCompletions.qpNum(wcs, i), withImm,
                    withImm ? Immediates.fromWire(WorkCompletions.immediate(wcs, i)) : 0, out[filled])) {
                filled++;
            }
        }
        return filled;
    }

    @Override
    public void requestNotification() {
        requestNotification(false);
    }

    @Override
    public void requestNotification(boolean solicitedOnly) {
        enter();
        try {
            cq.requestNotification(solicitedOnly);
        } finally {
            inUse.decrementAndGet();
        }
    }

    /** Counts a call in, or refuses it once the queue is closing. */
    private void enter() {
        inUse.incrementAndGet();
        if (closed) {
            inUse.decrementAndGet();
            throw new VerbsException("completion queue of " + capacity + " completions is destroyed");
        }
    }

    @Override
    public boolean awaitNotification(long timeout, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long millis = Math.max(0, unit.toMillis(timeout)); // poll(2) waits forever on a negative timeout
        int wait = (int) Math.min(Integer.MAX_VALUE, millis == 0 && timeout > 0 ? 1 : millis);
        enter();
        try {
            Libc.Waiter.Ready ready = waiter.await(wait);
            if (ready == Libc.Waiter.Ready.FD && !closed) {
                channel.awaitEvent(); // readable: does not block
                cq.ackEvents(1);
                return true;
            }
            return false;
        } finally {
            inUse.decrementAndGet();
        }
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
        if (closing.compareAndSet(false, true)) { // one close goes on; another, or a later one, returns
            boolean released = queuePairs.awaitReleasedOrReopen(closing, Duration.ofMillis(FfmContext.TEARDOWN_MILLIS));
            closed = true;
            if (!released) {
                waiter.wake();
                forget.accept(this);
                LOG.warn("completion queue closed while {} queue pairs on it were still being destroyed after {} ms (their "
                        + "teardown runs on the connection manager's thread); its native queue is left, not freed",
                        queuePairs.count(), FfmContext.TEARDOWN_MILLIS);
                return;
            }
            waiter.wake(); // a poller blocked in poll(2) returns now: closing a polled descriptor does not wake it
            long deadline = System.nanoTime() + LEAVE_NANOS;
            while (inUse.get() > 0) {
                if (System.nanoTime() - deadline > 0) {
                    LOG.warn("completion queue closed while a thread is still inside it; its native queue is left, not freed");
                    return;
                }
                LockSupport.parkNanos(100_000L); // a close from another thread only: the poller leaves within a call
            }
            try {
                cq.close();
            } finally {
                try {
                    channel.close();
                } finally {
                    try {
                        waiter.close();
                    } finally {
                        try {
                            arena.close();
                        } finally {
                            forget.accept(this);
                        }
                    }
                }
            }
        }
    }
}
