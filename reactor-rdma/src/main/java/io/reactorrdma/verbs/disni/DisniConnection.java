package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.RdmaCmId;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.disni.cm.CmEvents;

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
    private volatile CompletableFuture<Void> teardown = CompletableFuture.completedFuture(null);

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
        String reason = event == CmEvents.DEVICE_REMOVAL
                ? "the RDMA device " + context.deviceName() + " was removed (" + CmEvents.name(event) + "); the connection to "
                        + remote + " is gone and the provider must be opened again once the device is back"
                : "disconnected by the peer " + remote + " (" + CmEvents.name(event) + ")";
        qp.fail(reason);
        try {
            if (id != null && id.isOpen()) {
                id.disconnect();
            }
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

    /**
     * Moves the queue pair to ERROR and completes {@link #onDisconnect()} at once; the
     * {@code rdma_disconnect} itself is handed to the CM thread ({@link #teardown()}), because
     * this is called from I/O threads (Engine.fail), which must never wait for the CM thread.
     */
    @Override
    public void disconnect() {
        if (disconnected.isDone()) {
            return;
        }
        String reason = "disconnected locally from " + remote;
        qp.fail(reason);
        if (!disconnected.complete(reason)) {
            return; // the CM thread's DISCONNECTED came first: it answered already
        }
        teardown = context.cm().submit("rdma_disconnect", () -> {
            if (id != null && id.isOpen()) {
                id.disconnect();
            }
            return null;
        }).handle((ok, e) -> null); // the peer may be gone already: our side is in error either way
    }

    /** Completes once the {@code rdma_disconnect} handed to the CM thread ran (at once if none was). */
    CompletableFuture<Void> teardown() {
        return teardown;
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
