package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmEvent;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmId;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The client side of a connection: resolve the address and the route, create the queue pair on the id, connect with
 * the private data (rdma_cm carries it: no side channel), and wait for ESTABLISHED with the server's. Each step
 * waits for the event the CM thread passes on. Connection setup only.
 */
final class FfmConnector {

    private FfmConnector() {
    }

    static FfmConnection connect(FfmContext ctx, InetSocketAddress address, FfmQueuePair qp, byte[] privateData, Duration timeout) {
        String peer = address.toString();
        long deadline = System.nanoTime() + timeout.toNanos();
        CmEvents events = new CmEvents();
        CmId id;
        try {
            id = CmId.create(ctx.channel());
        } catch (RuntimeException e) {
            throw new VerbsException("connecting to " + peer + " failed: " + e.getMessage(), e);
        }
        ctx.cm().register(id.address(), events);
        boolean done = false;
        try {
            id.resolveAddress(address, remainingMillis(deadline, peer));
            events.await(VerbsConstants.RDMA_CM_EVENT_ADDR_RESOLVED, deadline, peer);
            id.resolveRoute(remainingMillis(deadline, peer));
            events.await(VerbsConstants.RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, peer);
            if (id.device().contextAddress() != ctx.device().contextAddress()) {
                throw new VerbsException("the route to " + peer + " leaves through another RDMA device than this context's ("
                        + ctx.deviceName() + "), and a queue pair cannot use a protection domain of another device. On a host "
                        + "with several RDMA devices set -D" + FfmSettings.ADDRESS + " to the IPv4 address of the interface that "
                        + "reaches the peer");
            }
            qp.attach(id);
            id.connect(privateData, ctx.responderResources(), ctx.initiatorDepth(qp), qp.attributes().rnrRetry());
            CmEvent established = events.await(VerbsConstants.RDMA_CM_EVENT_ESTABLISHED, deadline, peer);
            qp.established();
            FfmConnection c = new FfmConnection(ctx, qp, id, ByteBuffer.wrap(established.privateData()));
            events.handOver(c::onCmEvent); // a DISCONNECTED right after ESTABLISHED must reach the connection
            done = true;
            return c;
        } catch (RuntimeException e) {
            throw e instanceof VerbsException || e instanceof IllegalArgumentException ? e
                    : new VerbsException("connecting to " + peer + " failed: " + e.getMessage(), e);
        } finally {
            if (!done) {
                abandon(ctx, id, qp);
            }
        }
    }

    /**
     * Undoes a connection that was not established. The queue pair stays in INIT: a rejected or unreachable connect
     * never reached it; it keeps the id it was created on (destroyed when it is closed) and cannot connect again.
     */
    static void abandon(FfmContext ctx, CmId id, FfmQueuePair qp) {
        ctx.cm().unregister(id.address());
        if (qp.cmId() != id) {
            id.close();
        }
    }

    static int remainingMillis(long deadline, String peer) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
            throw new VerbsException("connection to " + peer + " timed out");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }
}
