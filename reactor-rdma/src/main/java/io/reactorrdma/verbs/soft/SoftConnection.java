package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.QueuePair;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** An established soft connection: a queue pair, its link to the peer, and the disconnect event. */
final class SoftConnection implements CmConnection {

    final SoftContext context;
    final SoftQueuePair qp;
    final PeerLink link;
    private final InetSocketAddress localAddress;
    private final InetSocketAddress remoteAddress;
    private final ByteBuffer remotePrivateData;
    private final CompletableFuture<String> disconnected = new CompletableFuture<>();
    /** Set by the ending that completed {@link #disconnected}, before it completes (its callbacks read it). */
    private volatile boolean peerLost;
    private boolean ended; // guarded by this

    SoftConnection(SoftContext context, SoftQueuePair qp, PeerLink link, InetSocketAddress localAddress,
                   InetSocketAddress remoteAddress, ByteBuffer remotePrivateData) {
        this.context = context;
        this.qp = qp;
        this.link = link;
        this.localAddress = localAddress;
        this.remoteAddress = remoteAddress;
        this.remotePrivateData = remotePrivateData.asReadOnlyBuffer();
        link.connection = this;
        context.connections.add(this);
    }

    @Override
    public QueuePair qp() {
        return qp;
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public ByteBuffer remotePrivateData() {
        return remotePrivateData.duplicate();
    }

    @Override
    public CompletableFuture<String> onDisconnect() {
        return disconnected;
    }

    @Override
    public boolean isConnected() {
        return !disconnected.isDone();
    }

    @Override
    public boolean peerLost() {
        return peerLost;
    }

    @Override
    public void disconnect() {
        if (end("disconnected locally", false)) {
            link.sendDisconnect();
            qp.enterError("disconnected locally");
        }
    }

    /** The peer sent its disconnect. */
    void peerDisconnected() {
        if (end("disconnected by " + link.peerName, false)) {
            qp.enterError(link.peerName + " disconnected");
        }
    }

    /** The peer died or vanished: outstanding work fails with RETRY_EXC_ERR. */
    void peerDied(String cause) {
        link.markDead(cause);
        if (end(cause, true)) {
            qp.peerDied(cause);
        }
    }

    /**
     * Only the first ending counts (a process that exits after disconnecting is not lost); it sets
     * {@link #peerLost} before completing {@link #disconnected}, outside the lock (callbacks run then).
     */
    private boolean end(String reason, boolean lost) {
        synchronized (this) {
            if (ended) {
                return false;
            }
            ended = true;
            peerLost = lost;
        }
        disconnected.complete(reason);
        context.connections.remove(this);
        return true;
    }

    @Override
    public void close() {
        disconnect();
    }

    @Override
    public String toString() {
        return "CmConnection{" + localAddress + " -> " + remoteAddress + ", qp=" + qp.qpn + (isConnected() ? "" : ", disconnected") + "}";
    }
}
