package io.reactorrdma.rsocket.fallback;

import io.netty.buffer.ByteBuf;
import io.rsocket.frame.LeaseFrameCodec;

/**
 * When a leased session may move its new requests to the connection it switches to. RSocket-Java
 * 1.1.5 counts one lease at a time and a new LEASE replaces the count, so a request must go to the
 * connection whose lease it was counted under: the connection left keeps the new requests while
 * the client still has requests of its lease, and the new connection's latest LEASE is kept here
 * until that lease is used up. Then no request can be counted under it any more (RSocket queues
 * them until a LEASE comes), so the move and that LEASE cannot race a request.
 *
 * <p>Not thread-safe: guarded by the {@link SwitchingDuplexConnection}'s lock.
 */
final class LeaseHandOver {

    /** Requests the client may still send under the current connection's latest lease. */
    private int permits;
    /** The latest LEASE of the connection switched to, not yet handed to RSocket. */
    private ByteBuf held;

    /** A LEASE of the current connection is about to reach RSocket: its count replaces what was left. */
    void leaseOnCurrent(ByteBuf lease) {
        permits = LeaseFrameCodec.numRequests(lease);
    }

    /**
     * A request opened a stream on the current connection, under its lease.
     *
     * @return whether that used the lease up while a LEASE of the new connection waits: move now
     */
    boolean requestSent() {
        if (permits > 0) {
            permits--;
        }
        return permits == 0 && held != null;
    }

    /**
     * A LEASE came on the new connection.
     *
     * @return true when the current lease is used up, so the LEASE may go to RSocket now (the caller
     *         delivers it and moves); false when it was kept (replacing one kept before)
     */
    boolean leaseOnNew(ByteBuf lease) {
        if (permits == 0) {
            release();
            return true;
        }
        release();
        held = lease.retain();
        return false;
    }

    /** The kept LEASE, whose reference passes to the caller. */
    ByteBuf take() {
        ByteBuf lease = held;
        held = null;
        return lease;
    }

    /** Whether a LEASE of the new connection is kept. */
    boolean keeps() {
        return held != null;
    }

    /** Releases a kept LEASE (the new connection closed, or the whole connection). */
    void release() {
        if (held != null) {
            held.release();
            held = null;
        }
    }

    @Override
    public String toString() {
        return "LeaseHandOver{permits=" + permits + ", leaseKept=" + (held != null) + "}";
    }
}
