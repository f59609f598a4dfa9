package io.reactorrdma.verbs.soft;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A link to a queue pair of another context in this JVM: its structures and regions are reached directly. */
final class LoopbackLink extends PeerLink {

    private final SoftQueuePair peer;

    LoopbackLink(SoftQueuePair qp, SoftQueuePair peer) {
        super(qp, "loopback context " + peer.context.id + " qp " + peer.qpn, peer.mem, peer.rqDepth,
                peer.attributes().maxRecvSge(), peer.pd.id);
        this.peer = peer;
    }

    @Override
    ByteBuffer resolve(int key, int requiredAccess, long address, long length) {
        SoftMemoryRegion mr = peer.context.localRegion(key);
        if (mr == null) {
            resolveError = "key 0x" + Integer.toHexString(key) + ", which names no registered region of " + peerName;
            return null;
        }
        return check(mr.memory, mr.address, mr.length, mr.access, mr.pdId, key, requiredAccess, address, length);
    }

    @Override
    void wakePeer() {
        peer.recvCq().notifyEvent();
    }

    @Override
    void sendDisconnect() {
        long delay = qp.context.config.cmDelay().toNanos();
        if (delay > 0) {
            // strict mode: the peer learns of it when the DREQ arrives, not within our call
            CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(this::deliverDisconnect);
        } else {
            deliverDisconnect();
        }
    }

    private void deliverDisconnect() {
        if (peer.context.hasVanished()) {
            return;
        }
        PeerLink back = peer.link();
        SoftConnection c = back != null ? back.connection : null;
        if (c != null) {
            c.peerDisconnected();
        }
    }

    @Override
    String checkPeer(long nowNanos) {
        return peer.context.hasVanished() ? peerName + " vanished without disconnecting (no answer within the peer timeout)" : null;
    }

    @Override
    void close() {
        // nothing held
    }
}
