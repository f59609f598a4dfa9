package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.soft.shared.QpLayout;
import io.reactorrdma.verbs.soft.shared.RegionKeys;

import java.nio.ByteBuffer;

/**
 * One connected queue pair's view of its peer: the peer's header and receive queue, the peer's
 * regions, a way to wake the peer, and whether the peer is alive. The fields without
 * {@code volatile} are used only by whoever runs the local send queue (one thread at a time).
 */
abstract class PeerLink {

    final SoftQueuePair qp;
    /** The peer for messages: fabric, context and queue-pair number. */
    final String peerName;
    /** The peer's {@link QpLayout} header and receive queue. */
    final ByteBuffer peerQp;
    final int peerRqDepth;
    final int peerMaxRecvSge;
    final int peerPdId;
    final int peerRqSlotSize;
    /** The next peer receive to consume. */
    long peerRqNext;

    /** Offset in {@link #peerQp} of the slot of the peer's receive {@code n}. */
    int peerRecvSlot(long n) {
        return QpLayout.HEADER_SIZE + (int) (n % peerRqDepth) * peerRqSlotSize;
    }
    /** Offset into the buffer {@link #resolve} returned last. */
    int resolvedOffset;
    /** Why the last {@link #resolve} failed. */
    String resolveError;
    private volatile String deathCause;
    volatile SoftConnection connection;

    PeerLink(SoftQueuePair qp, String peerName, ByteBuffer peerQp, int peerRqDepth, int peerMaxRecvSge, int peerPdId) {
        this.qp = qp;
        this.peerName = peerName;
        this.peerQp = peerQp;
        this.peerRqDepth = peerRqDepth;
        this.peerMaxRecvSge = peerMaxRecvSge;
        this.peerPdId = peerPdId;
        this.peerRqSlotSize = QpLayout.rqSlotSize(peerMaxRecvSge);
    }

    /**
     * The peer memory that holds {@code [address, address + length)} in the peer region named by
     * {@code key}, if that region is live, belongs to the peer queue pair's protection domain and
     * grants {@code requiredAccess}; {@link #resolvedOffset} is then the offset of
     * {@code address}. Otherwise null, with {@link #resolveError} saying why.
     */
    abstract ByteBuffer resolve(int key, int requiredAccess, long address, long length);

    /**
     * Called by whoever runs the send queue before each request, while no mapping {@link #resolve}
     * returned is in use: the moment to release mappings of regions the peer deregistered.
     */
    void beforeRequest() {
    }

    /** Wakes the peer's armed completion queue. */
    abstract void wakePeer();

    /** Tells the peer we disconnect. */
    abstract void sendDisconnect();

    /** Provider thread: heartbeats, and whether the peer is still there; returns the cause of death or null. */
    abstract String checkPeer(long nowNanos);

    /** Releases what the link holds (mappings, socket). */
    abstract void close();

    /** Common checks once the region is known; sets {@link #resolvedOffset} or {@link #resolveError}. */
    final ByteBuffer check(ByteBuffer memory, long base, int regionLength, int access, int pdId, int key,
                           int requiredAccess, long address, long length) {
        if (pdId != peerPdId) {
            resolveError = "key 0x" + Integer.toHexString(key) + " belongs to another protection domain of " + peerName;
            return null;
        }
        if ((access & requiredAccess) != requiredAccess) {
            resolveError = "region 0x" + Integer.toHexString(key) + " of " + peerName + " grants " + AccessFlags.toString(access)
                    + ", the request needs " + AccessFlags.toString(requiredAccess);
            return null;
        }
        long offset = RegionKeys.offsetIn(base, Math.min(regionLength, memory.capacity()), address, length);
        if (offset < 0) {
            resolveError = "range [0x" + Long.toHexString(address) + ", +" + length + ") lies outside region 0x"
                    + Integer.toHexString(key) + " [0x" + Long.toHexString(base) + ", +" + regionLength + ") of " + peerName;
            return null;
        }
        resolvedOffset = (int) offset;
        return memory;
    }

    final boolean isDead() {
        return deathCause != null;
    }

    final String deathCause() {
        return deathCause;
    }

    /** Records the peer's death once; returns false if it was already known. */
    final synchronized boolean markDead(String cause) {
        if (deathCause != null) {
            return false;
        }
        deathCause = cause;
        return true;
    }
}
