package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.RdmaCmId;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.QueuePair;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * An established connection: its cm id's events ({@code DISCONNECTED}, {@code DEVICE_REMOVAL})
 * arrive on the context's CM thread, which fails the queue pair, answers with its own
 * {@code rdma_disconnect} (both sides should call it) and completes {@link #onDisconnect()}.
 */
final class DisniConnection implements CmConnection {

    private final DisniContext context;
    private final DisniQueuePair qp;
    private final RdmaCmId id;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final ByteBuffer remotePrivateData;
    private final CompletableFuture<String> disconnected = new CompletableFuture<>();

    DisniConnection(DisniContext context, DisniQueuePair qp, RdmaCmId id, InetSocketAddress local, InetSocketAddress remote,
                    ByteBuffer remotePrivateData) {
        this.context = context;
        this.qp = qp;
        this.id = id;
        this.local = local;
        this.remote = remote;
        this.remotePrivateData = remotePrivateData.asReadOnlyBuffer();
    }

    /** CM thread. */
    void onCmEvent(int event, RdmaCmId conn) {
        if (!CmEvents.endsConnection(event) || disconnected.isDone()) {
            return;
        }
        String reason = "disconnected by the peer " + remote + " (" + CmEvents.name(event) + ")";
        qp.fail(reason);
        try {
            if (id.isOpen()) id.disconnect();
        } catch (IOException ignored) {
            // the peer is gone; our side is in error either way
        }
        disconnected.complete(reason);
    }

    @Override
    public QueuePair qp() {
        return qp;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
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
    public void disconnect() {
        if (disconnected.isDone()) return;
        String reason = "disconnected locally from " + remote;
        qp.fail(reason);
        context.cm().call("rdma_disconnect", DisniConfig.CM_CALL_TIMEOUT, () -> id.isOpen() ? id.disconnect() : 0);
        disconnected.complete(reason);
    }

    @Override
    public void close() {
        try {
            disconnect();
        } finally {
            context.forget(this);
        }
    }
}
