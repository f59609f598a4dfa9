package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmEvent;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmId;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * An established connection. Its id's events ({@code DISCONNECTED}, {@code DEVICE_REMOVAL}) arrive on the context's
 * CM thread, which fails the queue pair, answers with its own {@code rdma_disconnect} (both sides should call it) and
 * completes {@link #onDisconnect()}. The id belongs to the queue pair, which destroys it when closed.
 */
final class FfmConnection implements CmConnection {

    private final FfmContext context;
    private final FfmQueuePair qp;
    private final CmId id;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final ByteBuffer remotePrivateData;
    private final CompletableFuture<String> disconnected = new CompletableFuture<>();

    FfmConnection(FfmContext context, FfmQueuePair qp, CmId id, ByteBuffer remotePrivateData) {
        this.context = context;
        this.qp = qp;
        this.id = id;
        this.local = id.localAddress();
        this.remote = id.remoteAddress();
        this.remotePrivateData = remotePrivateData.asReadOnlyBuffer();
    }

    CmId id() {
        return id;
    }

    /** CM thread. ADDR_CHANGE (a bonding failover, say) leaves the connection up, as rdma_cm does. */
    void onCmEvent(CmEvent event) {
        if (event.type() == VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL) {
            context.markRemoved(); // before the future completes: whoever it wakes finds the context saying so
            end("the RDMA device " + context.deviceName() + " was removed (" + event.typeName() + "); the connection to "
                    + remote + " is gone and the provider must be opened again once the device is back");
            context.deviceRemoved();
        } else if (event.type() == VerbsConstants.RDMA_CM_EVENT_DISCONNECTED) {
            end("disconnected by the peer " + remote + " (" + event.typeName() + ")");
        }
    }

    private void end(String reason) {
        if (disconnected.isDone()) {
            return;
        }
        qp.fail(reason);
        answerDisconnect();
        disconnected.complete(reason);
    }

    /** CM thread: our own rdma_disconnect, unless the queue pair's teardown destroys (or destroyed) the id. */
    private void answerDisconnect() {
        if (!qp.isClosing()) {
            try {
                id.disconnect();
            } catch (RuntimeException ignored) {
                // disconnected already, or the peer is gone: our side is in error either way
            }
        }
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
     * Moves the queue pair to ERROR and completes {@link #onDisconnect()} at once; {@code rdma_disconnect} itself runs
     * on the CM thread, because I/O threads call this (Engine.fail) and must never wait for the CM.
     */
    @Override
    public void disconnect() {
        if (disconnected.isDone()) {
            return;
        }
        String reason = "disconnected locally from " + remote;
        qp.fail(reason);
        if (disconnected.complete(reason)) {
            context.cm().submit(this::answerDisconnect);
        }
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
