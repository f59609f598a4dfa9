package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmId;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * A client's connect request, with its own CM id: answered once, by {@link #accept} (the queue pair is created on
 * that id, then {@code rdma_accept} and ESTABLISHED) or {@link #reject} ({@code rdma_reject}, the id destroyed).
 */
final class FfmConnectionRequest implements ConnectionRequest {

    /** How long an accept waits for ESTABLISHED. */
    static final Duration ACCEPT_TIMEOUT = Duration.ofSeconds(20);
    private static final byte[] NONE = new byte[0];

    private final FfmContext ctx;
    private final CmId id;
    private final ByteBuffer privateData;
    private final InetSocketAddress remote;
    private boolean answered;

    FfmConnectionRequest(FfmContext ctx, CmId id, byte[] privateData) {
        this.ctx = ctx;
        this.id = id;
        this.privateData = ByteBuffer.wrap(privateData).asReadOnlyBuffer();
        this.remote = id.remoteAddress();
    }

    @Override
    public ByteBuffer privateData() {
        return privateData.duplicate();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public CmConnection accept(QueuePair qp, ByteBuffer data) {
        byte[] bytes = FfmContext.bytes(data, CmId.MAX_ACCEPT_PRIVATE_DATA, "an accept");
        if (!(qp instanceof FfmQueuePair q)) {
            throw new IllegalArgumentException("the queue pair must come from the listener's ffm context");
        }
        answer();
        String peer = remote.toString();
        long deadline = System.nanoTime() + ACCEPT_TIMEOUT.toNanos();
        CmEvents events = new CmEvents();
        ctx.cm().register(id.address(), events);
        boolean done = false;
        boolean sent = false;
        boolean established = false;
        try {
            if (!ctx.isOwnDevice(id)) {
                throw new VerbsException(ctx.requestOnOtherDevice(remote, id));
            }
            q.attach(id);
            id.accept(bytes, ctx.responderResources(), ctx.initiatorDepth(q), q.attributes().rnrRetry());
            sent = true;
            events.await(VerbsConstants.RDMA_CM_EVENT_ESTABLISHED, deadline, peer);
            established = true;
            q.established();
            FfmConnection c = new FfmConnection(ctx, q, id, privateData);
            events.handOver(c::onCmEvent);
            ctx.adopt(c);
            done = true;
            return c;
        } catch (RuntimeException e) {
            throw e instanceof VerbsException ? e : new VerbsException("accepting " + peer + " failed: " + e.getMessage(), e);
        } finally {
            if (!done) {
                if (q.cmId() == id) {
                    // the id is the queue pair's now: the client is rejected (or disconnected) rather than left to time out
                    q.fail("accepting " + peer + " failed");
                    FfmConnector.abandonAttached(ctx, id, q, events, sent, established, true);
                } else {
                    // the queue pair was refused (destroyed, or another connection's): leave it alone, tell the client
                    ctx.cm().unregister(id.address());
                    refuse(id);
                }
            }
        }
    }

    @Override
    public void reject(ByteBuffer data) {
        byte[] bytes = FfmContext.bytes(data, CmId.MAX_REJECT_PRIVATE_DATA, "a reject");
        answer();
        try {
            id.reject(bytes);
        } catch (RuntimeException e) {
            throw new VerbsException("could not reject " + remote + ": " + e.getMessage(), e);
        } finally {
            id.close();
        }
    }

    private synchronized void answer() {
        if (answered) {
            throw new IllegalStateException("the request from " + remote + " was already answered");
        }
        answered = true;
    }

    /** The listener closed before anybody took this request. */
    void refuseUnanswered() {
        synchronized (this) {
            if (answered) {
                return;
            }
            answered = true;
        }
        refuse(id);
    }

    /** Rejects a request and destroys its id. */
    static void refuse(CmId request) {
        try {
            request.reject(NONE);
        } catch (RuntimeException ignored) {
            // the client gives up on its own then; destroying the id is what matters
        } finally {
            request.close();
        }
    }
}
