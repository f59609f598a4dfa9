package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.WorkRequestLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A completion queue ({@code struct ibv_cq}). {@link #poll} and {@link #requestNotification} are the data path: they
 * call the device's operation table as verbs.h's inline functions do, without allocating. One thread polls it.
 */
public final class RdmaCq implements AutoCloseable {

    private final RdmaDevice device;
    private final Libibverbs lib;
    private final MemorySegment cq;
    private int unackedEvents;
    private boolean closed;

    RdmaCq(RdmaDevice device, Libibverbs lib, MemorySegment cq) {
        this.device = device;
        this.lib = lib;
        this.cq = cq;
    }

    /** Its address, as {@link RdmaCompletionChannel#awaitEvent()} returns it. */
    public long address() {
        return cq.address();
    }

    MemorySegment segment() {
        return cq;
    }

    /** A buffer for {@code n} work completions ({@code struct ibv_wc}) to {@link #poll} into. */
    public static MemorySegment completions(Arena arena, int n) {
        return arena.allocate(WorkRequestLayouts.IBV_WC, n);
    }

    /**
     * Takes up to {@code max} completions into {@code wcs} ({@code ibv_poll_cq}); returns how many.
     *
     * @throws IllegalStateException when the device reports an error polling (the CQ is in error)
     */
    public int poll(MemorySegment wcs, int max) {
        if (closed) {
            throw new IllegalStateException("completion queue of " + device.name() + " is destroyed");
        }
        int n;
        try {
            n = (int) device.pollCq.invokeExact(cq, max, wcs);
        } catch (Throwable t) {
            throw new IllegalStateException("calling poll_cq failed", t);
        }
        if (n < 0) {
            throw new IllegalStateException("poll_cq(" + device.name() + ") failed (" + n + "): the completion queue is in"
                    + " error, after an overrun or a device failure");
        }
        return n;
    }

    /**
     * Arms the queue for one event ({@code ibv_req_notify_cq}): on the next completion, or with {@code solicitedOnly} on
     * the next receive of a solicited message or error.
     */
    public void requestNotification(boolean solicitedOnly) {
        int rc;
        try {
            rc = (int) device.reqNotifyCq.invokeExact(cq, solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw new IllegalStateException("calling req_notify_cq failed", t);
        }
        if (rc != 0) {
            throw new IllegalStateException("req_notify_cq(" + device.name() + ") failed with " + Errno.name(rc)
                    + ": the queue has no completion channel");
        }
    }

    /** Counts {@code n} events of this queue taken from its channel; they are acknowledged together at close. */
    public void ackEvents(int n) {
        unackedEvents += n;
        if (unackedEvents >= 1024) {
            flushAcks();
        }
    }

    private void flushAcks() {
        if (unackedEvents > 0) {
            try {
                lib.ackCqEvents.invokeExact(cq, unackedEvents);
            } catch (Throwable t) {
                throw new IllegalStateException("calling ibv_ack_cq_events failed", t);
            }
            unackedEvents = 0;
        }
    }

    /** Destroys the queue ({@code ibv_destroy_cq}) after acknowledging its events; later calls do nothing. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            flushAcks();
            NativeCalls.destroy(lib.destroyCq, cq, "ibv_destroy_cq", device.name(), "queue pairs still use it");
        }
    }
}
