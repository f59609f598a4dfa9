package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.DisniConfig;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import io.reactorrdma.verbs.ConnectionRejectedException;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.disni.cm.CmEventLoop;
import io.reactorrdma.verbs.disni.cm.CmEvents;
import io.reactorrdma.verbs.disni.cm.PendingCmEvents;
import io.reactorrdma.verbs.disni.cm.SideChannel;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The client side of a connection: the {@link SideChannel} handshake, then
 * {@code rdma_resolve_addr} → {@code rdma_resolve_route} → create the queue pair →
 * {@code rdma_connect} → {@code ESTABLISHED}, then the accept's private data. Also the CM steps
 * the listener shares (waiting for an event, connection parameters, handing the id to its connection).
 */
final class DisniConnector {

    private DisniConnector() {
    }

    static DisniConnection connect(DisniContext ctx, InetSocketAddress address, DisniQueuePair qp, ByteBuffer privateData,
                                   Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String peer = address.getHostString() + ":" + address.getPort();
        ctx.cm().wake(); // the CM calls of this setup follow: short event waits from now
        try (Socket s = new Socket()) {
            try {
                s.connect(address, (int) Math.max(1, timeout.toMillis()));
            } catch (ConnectException e) {
                throw new VerbsException("nothing listens at " + peer + " (the reactor-rdma disni listener's handshake "
                        + "port refused the connection: " + e.getMessage() + ")", e);
            } catch (SocketTimeoutException e) {
                throw new VerbsException("connecting to " + peer + " timed out after " + timeout + " (handshake port)", e);
            }
            s.setTcpNoDelay(true);
            s.setSoTimeout(remainingMillis(deadline, peer));
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(s.getInputStream());
            SideChannel.write(out, SideChannel.HELLO, qp.attributes().rnrRetry(), privateData);
            SideChannel.Frame answer = SideChannel.read(in, peer);
            if (answer.type() == SideChannel.REJECT) {
                throw new ConnectionRejectedException("the listener at " + peer + " rejected the connection", answer.data());
            }
            expect(answer, SideChannel.GO, peer);
            PendingCmEvents events = new PendingCmEvents();
            RdmaCmId id = establishAsClient(ctx, address, qp, answer.rnrRetry(), deadline, peer, events);
            boolean done = false;
            try {
                s.setSoTimeout(remainingMillis(deadline, peer));
                SideChannel.Frame accepted = SideChannel.read(in, peer);
                expect(accepted, SideChannel.ACCEPT, peer);
                InetSocketAddress local = ctx.cm().call("rdma_get_local_addr", CmEventLoop.CALL_TIMEOUT,
                        () -> (InetSocketAddress) id.getSource());
                DisniConnection c = handOver(ctx, qp, id, local, address, accepted.data(), events);
                done = true;
                return c;
            } finally {
                // the queue pair is connected at the RDMA level: without the ACCEPT it must not stay so
                if (!done) {
                    abandon(ctx, id, qp, "connecting to " + peer + " failed after the RDMA connection was established");
                }
            }
        } catch (SocketTimeoutException e) {
            throw new VerbsException("connecting to " + peer + " timed out after " + timeout + " waiting for the listener's answer", e);
        } catch (IOException e) {
            throw new VerbsException("connecting to " + peer + " failed: " + e.getMessage(), e);
        }
    }

    private static RdmaCmId establishAsClient(DisniContext ctx, InetSocketAddress address, DisniQueuePair qp, int peerRnrRetry,
                                              long deadline, String peer, PendingCmEvents events) {
        CmEventLoop cm = ctx.cm();
        RdmaCmId id = cm.call("rdma_create_id", CmEventLoop.CALL_TIMEOUT, () -> {
            RdmaCmId created = ctx.channel().createId(RdmaCm.RDMA_PS_TCP);
            cm.register(created, events);
            return created;
        });
        boolean done = false;
        try {
            cm.call("rdma_resolve_addr(" + peer + ")", CmEventLoop.CALL_TIMEOUT, () -> {
                id.resolveAddr(null, address, remainingMillis(deadline, peer));
                return null;
            });
            events.await(CmEvents.ADDR_RESOLVED, deadline, peer);
            cm.call("rdma_resolve_route(" + peer + ")", CmEventLoop.CALL_TIMEOUT, () -> {
                id.resolveRoute(remainingMillis(deadline, peer));
                return null;
            });
            events.await(CmEvents.ROUTE_RESOLVED, deadline, peer);
            cm.call("rdma_connect(" + peer + ")", CmEventLoop.CALL_TIMEOUT, () -> {
                qp.attach(id);
                id.connect(connParam(ctx.config(), peerRnrRetry));
                return null;
            });
            events.await(CmEvents.ESTABLISHED, deadline, peer);
            qp.established();
            done = true;
            return id;
        } finally {
            if (!done) {
                abandon(ctx, id, qp, "connecting to " + peer + " failed");
            }
        }
    }

    /**
     * {@code rdma_conn_param} for rdma_connect or rdma_accept. {@code rnr_retry_count} is what the
     * <em>peer's</em> queue pair uses (rdma_connect(3): "a send operation from the remote peer"; the
     * IB CM applies the REQ's value to the passive QP and the REP's to the active one), so it is the
     * peer's {@code QpAttributes.rnrRetry}, received in the side channel. {@code retry_count}: the
     * connecting side's value configures both queue pairs (the REP has no such field, so the kernel
     * ignores it on accept); DiSNI's default 0 fails on the first lost packet.
     */
    static RdmaConnParam connParam(DisniConfig config, int peerRnrRetry) throws IOException {
        RdmaConnParam p = new RdmaConnParam();
        p.setRetry_count((byte) config.retryCount());
        p.setRnr_retry_count((byte) peerRnrRetry);
        return p;
    }

    /** Gives the established id's events to its new connection, and those that came in between. */
    static DisniConnection handOver(DisniContext ctx, DisniQueuePair qp, RdmaCmId id, InetSocketAddress local,
                                    InetSocketAddress remote, ByteBuffer remoteData, PendingCmEvents pending) {
        DisniConnection c = new DisniConnection(ctx, qp, id, local, remote, remoteData);
        ctx.cm().call("register connection", CmEventLoop.CALL_TIMEOUT, () -> {
            ctx.cm().register(id, c::onCmEvent);
            pending.handOver(id, c::onCmEvent); // a DISCONNECTED after ESTABLISHED must reach the connection
            return null;
        });
        return c;
    }

    /** Undoes a half-made connection: the queue pair is failed (it may already exist on this id), the id destroyed. */
    static void abandon(DisniContext ctx, RdmaCmId id, DisniQueuePair qp, String why) {
        if (qp.cmId() == id) {
            qp.fail(why);
        }
        try {
            ctx.cm().call("rdma_destroy_id", CmEventLoop.CALL_TIMEOUT, () -> {
                ctx.cm().unregister(id);
                if (qp.cmId() == id && id.isOpen()) {
                    try {
                        id.destroyQP();
                    } catch (IOException ignored) {
                        // destroying the id below releases it too
                    }
                }
                CmEventLoop.destroyQuietly(id);
                return null;
            });
        } catch (RuntimeException ignored) {
            // the original failure is what the caller reports
        }
    }

    static void expect(SideChannel.Frame f, byte type, String peer) {
        if (f.type() != type) {
            throw new VerbsException("handshake with " + peer + " out of order: expected " + SideChannel.name(type)
                    + ", got " + SideChannel.name(f.type()));
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
