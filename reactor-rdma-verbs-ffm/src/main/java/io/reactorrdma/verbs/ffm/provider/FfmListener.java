package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmEvent;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmId;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A listening CM id. The CM thread turns each {@code RDMA_CM_EVENT_CONNECT_REQUEST} into a {@link FfmConnectionRequest}
 * (its id and the client's private data) that {@link #poll} hands out; requests nobody took are rejected at close.
 */
final class FfmListener implements CmListener {

    private final FfmContext ctx;
    private final CmId id;
    private final InetSocketAddress local;
    private final LinkedBlockingQueue<FfmConnectionRequest> requests = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    private FfmListener(FfmContext ctx, CmId id) {
        this.ctx = ctx;
        this.id = id;
        this.local = id.localAddress();
    }

    static FfmListener open(FfmContext ctx, InetSocketAddress address, int backlog) {
        CmId id = CmId.create(ctx.channel());
        try {
            id.bind(address);
            FfmListener l = new FfmListener(ctx, id);
            ctx.cm().register(id.address(), l::onEvent);
            id.listen(Math.max(1, backlog));
            return l;
        } catch (RuntimeException e) {
            ctx.cm().unregister(id.address());
            id.close();
            throw new VerbsException("rdma_listen on " + address + " failed: " + e.getMessage(), e);
        }
    }

    /** The native address of the listening id, under which the CM thread dispatches its events (tests). */
    long cmIdAddress() {
        return id.address();
    }

    /** CM thread: a connect request for this listener, or the removal of its device. */
    private void onEvent(CmEvent event) {
        if (event.type() == VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL) {
            ctx.deviceRemoved();
        } else if (event.type() == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
            onConnectRequest(event);
        }
    }

    private void onConnectRequest(CmEvent event) {
        CmId request = CmId.ofRequest(ctx.channel(), event);
        if (closed) {
            FfmConnectionRequest.refuse(request);
            return;
        }
        requests.add(new FfmConnectionRequest(ctx, request, event.privateData()));
        if (closed) { // close() may have drained the queue before the add
            refuseQueued();
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public ConnectionRequest poll(Duration timeout) throws InterruptedException {
        if (closed) {
            return null;
        }
        return requests.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            ctx.cm().unregister(id.address());
            id.close();
            refuseQueued();
        } finally {
            ctx.forget(this);
        }
    }

    private void refuseQueued() {
        FfmConnectionRequest r;
        while ((r = requests.poll()) != null) {
            r.refuseUnanswered();
        }
    }
}
