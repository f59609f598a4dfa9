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
        boolean sent = false;
        boolean established = false;
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
            sent = true;
            CmEvent reply = events.await(VerbsConstants.RDMA_CM_EVENT_ESTABLISHED, deadline, peer);
            established = true;
            qp.established();
            FfmConnection c = new FfmConnection(ctx, qp, id, ByteBuffer.wrap(reply.privateData()));
            events.handOver(c::onCmEvent); // a DISCONNECTED right after ESTABLISHED must reach the connection
            done = true;
            return c;
        } catch (RuntimeException e) {
            throw e instanceof VerbsException || e instanceof IllegalArgumentException ? e
                    : new VerbsException("connecting to " + peer + " failed: " + e.getMessage(), e);
        } finally {
            if (!done) {
                if (qp.cmId() != id) {
                    ctx.cm().unregister(id.address());
                    id.close();
                } else {
                    abandonAttached(ctx, id, qp, events, sent, established, false);
                }
            }
        }
    }

    /**
     * Undoes a connection that was not established (a timeout, an interrupt, a refusal, a failed accept) on an id the
     * queue pair owns now: it keeps the id (destroyed when it is closed) and cannot connect again. Its peer must not be
     * left waiting, nor established with nobody on this side:
     * <ul>
     *   <li>{@code refuse} (the accepting side): the client's request is rejected ({@code rdma_reject}), or, if it is
     *   too late for that (the connection got established), disconnected;</li>
     *   <li>once {@code rdma_connect} or {@code rdma_accept} went out ({@code sent}), the id stays registered and its
     *   ESTABLISHED, already here or arriving later, is answered with {@code rdma_disconnect}, so the peer sees
     *   DISCONNECTED; as it is at once when ESTABLISHED came already ({@code established}).</li>
     * </ul>
     * The native calls run on the CM thread, which also runs the queue pair's teardown: they are skipped once that
     * began, as it disconnects and destroys the id itself.
     */
    static void abandonAttached(FfmContext ctx, CmId id, FfmQueuePair qp, CmEvents events, boolean sent, boolean established,
                                boolean refuse) {
        if (established) {
            ctx.cm().submit(() -> disconnectQuietly(id, qp));
        }
        if (sent) {
            events.handOver(event -> {
                if (event.type() == VerbsConstants.RDMA_CM_EVENT_ESTABLISHED) {
                    ctx.cm().submit(() -> disconnectQuietly(id, qp));
                }
            });
        } else {
            ctx.cm().unregister(id.address());
        }
        if (refuse && !established) {
            ctx.cm().submit(() -> {
                if (qp.isClosing()) {
                    return;
                }
                try {
                    id.reject(new byte[0]);
                } catch (RuntimeException tooLate) {
                    disconnectQuietly(id, qp); // established meanwhile: a reject is refused then, a disconnect is not
                }
            });
        }
    }

    /** CM thread: {@code rdma_disconnect} of an abandoned connection, unless the queue pair's teardown has the id. */
    private static void disconnectQuietly(CmId id, FfmQueuePair qp) {
        if (!qp.isClosing()) {
            try {
                id.disconnect();
            } catch (RuntimeException ignored) {
                // not connected (rejected, unreachable, or disconnected already): the peer is not established then
            }
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
