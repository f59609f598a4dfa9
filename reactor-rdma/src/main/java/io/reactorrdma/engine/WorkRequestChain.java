package io.reactorrdma.engine;

import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.work.SendWr;

/**
 * The engine's send-side work requests (paper §5.4.1): a circular chain as long as the send
 * queue, in three contiguous segments —
 * <pre>
 *   retired ........ posted ........ prepared ........ retired + depth
 *   |   in flight    |    pending     |       free        |
 * </pre>
 * The scheduler {@link #prepare prepares} requests into free slots; {@link #post} hands every
 * pending request to the queue pair in one call (one doorbell) with only the last one signaled —
 * and never more than depth - 1 unsignaled in a row, so the send queue can always be retired; a
 * signaled completion {@link #retire retires} its slot and every slot before it, releasing what
 * each carried. Preallocated, so nothing on this path allocates; used by one thread (the engine's
 * I/O thread).
 */
final class WorkRequestChain {

    /** What to do with a slot's attachment when the slot is retired (success) or abandoned (failure). */
    interface Releaser {
        void release(Object attachment, int bytes, boolean success);
    }

    private final SendWr[] slots;
    private final Object[] attachments;
    private final int[] bytes;
    private final SendWr[] batch;
    private final int depth;
    private final int maxUnsignaled;
    private long retired;
    private long posted;
    private long prepared;
    private long lastSignaled = -1;
    private long doorbells;
    private long postedRequests;
    private long signaledRequests;

    WorkRequestChain(int depth, int maxSge) {
        if (depth < 2) {
            throw new IllegalArgumentException("a work-request chain needs a depth of at least 2, got " + depth);
        }
        this.depth = depth;
        // A batch never exceeds the depth and its last request is signaled, so unsignaled runs stay
        // below the depth; the explicit bound keeps that true even for a batch filling the chain.
        this.maxUnsignaled = depth - 1;
        this.slots = new SendWr[depth];
        this.attachments = new Object[depth];
        this.bytes = new int[depth];
        this.batch = new SendWr[depth];
        for (int i = 0; i < depth; i++) {
            slots[i] = new SendWr(maxSge);
        }
    }

    int depth() {
        return depth;
    }

    /** Free slots: what the scheduler may still prepare. */
    int free() {
        return (int) (depth - (prepared - retired));
    }

    /** Prepared, not yet posted. */
    int pending() {
        return (int) (prepared - posted);
    }

    /** Posted, not yet retired. */
    int inFlight() {
        return (int) (posted - retired);
    }

    /**
     * Takes the next free slot for a request carrying {@code attachment} (released on retirement)
     * and {@code byteCount} bytes (for the send window). The returned request's wr id is its
     * sequence number; fill in opcode, entries and remote address, leave the id alone.
     *
     * @throws IllegalStateException when no slot is free (callers check {@link #free()} first)
     */
    SendWr prepare(Object attachment, int byteCount) {
        if (free() == 0) {
            throw new IllegalStateException("work-request chain full: " + depth + " requests in flight or pending");
        }
        long seq = prepared++;
        int i = (int) (seq % depth);
        SendWr wr = slots[i];
        wr.clearSges();
        wr.wrId(seq).immData(0).remote(0, 0).signaled(false).solicited(false);
        attachments[i] = attachment;
        bytes[i] = byteCount;
        return wr;
    }

    /**
     * Marks the last pending request that consumes a receive at the peer as solicited: on RC the
     * peer's receive completions come in order, so the one event it raises finds every earlier
     * message of the batch in its completion queue. Nothing is marked when no pending request
     * consumes a receive.
     */
    void solicitLastReceiveConsuming() {
        for (long seq = prepared - 1; seq >= posted; seq--) {
            SendWr wr = slots[(int) (seq % depth)];
            if (wr.opcode().consumesRecv()) {
                wr.solicited(true);
                return;
            }
        }
    }

    /**
     * Posts every pending request with one {@link QueuePair#postSend} call (one doorbell).
     *
     * @return how many were posted
     */
    int post(QueuePair qp) {
        int n = pending();
        if (n == 0) {
            return 0;
        }
        for (int k = 0; k < n; k++) {
            long seq = posted + k;
            SendWr wr = slots[(int) (seq % depth)];
            boolean signal = k == n - 1 || seq - lastSignaled >= maxUnsignaled;
            wr.signaled(signal);
            if (signal) {
                lastSignaled = seq;
                signaledRequests++;
            }
            batch[k] = wr;
        }
        qp.postSend(batch, 0, n);
        posted += n;
        doorbells++;
        postedRequests += n;
        return n;
    }

    /**
     * A signaled request completed: retires it and every earlier in-flight slot, handing each
     * attachment to {@code releaser}.
     *
     * @return slots retired
     */
    int retire(long wrId, Releaser releaser) {
        if (wrId < retired || wrId >= posted) {
            throw new IllegalStateException("completion for request " + wrId + " outside the in-flight range ["
                    + retired + ", " + posted + ")");
        }
        int n = 0;
        while (retired <= wrId) {
            int i = (int) (retired % depth);
            Object a = attachments[i];
            attachments[i] = null;
            releaser.release(a, bytes[i], true);
            retired++;
            n++;
        }
        return n;
    }

    /** Whether request {@code wrId} is posted and not yet retired. */
    boolean isInFlight(long wrId) {
        return wrId >= retired && wrId < posted;
    }

    /**
     * The queue pair failed: releases the prepared requests that were never posted (no one reads
     * their memory); the in-flight ones stay until their (flush) completions retire them.
     */
    int abandonPending(Releaser releaser) {
        int n = 0;
        while (prepared > posted) {
            prepared--;
            int i = (int) (prepared % depth);
            Object a = attachments[i];
            attachments[i] = null;
            releaser.release(a, bytes[i], false);
            n++;
        }
        return n;
    }

    /** The queue pair is gone: abandons every in-flight and pending slot. */
    int abandonAll(Releaser releaser) {
        int n = 0;
        while (retired < prepared) {
            int i = (int) (retired % depth);
            Object a = attachments[i];
            attachments[i] = null;
            releaser.release(a, bytes[i], false);
            retired++;
            n++;
        }
        posted = prepared;
        return n;
    }

    /** Post calls made (doorbells rung). */
    long doorbells() {
        return doorbells;
    }

    long postedRequests() {
        return postedRequests;
    }

    long signaledRequests() {
        return signaledRequests;
    }
}
