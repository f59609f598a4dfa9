package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.disni.cm.CmEventLoop;
import io.reactorrdma.verbs.disni.cm.CmEvents;
import io.reactorrdma.verbs.disni.cm.ListenerCmEvents;
import io.reactorrdma.verbs.disni.cm.PendingCmEvents;
import io.reactorrdma.verbs.disni.cm.RequestPairing;
import io.reactorrdma.verbs.disni.cm.SideChannel;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A listener: a TCP server socket for the {@link SideChannel} handshake and an rdma_cm id
 * listening on the same address and port. {@link #poll} returns a request once a client's HELLO
 * arrived; accepting it tells the client to send its rdma_cm connect request and pairs that
 * request with the handshake. Accepts are serialised per listener — one GO outstanding at a time —
 * and a request is paired only if it comes from the handshake's IP address, so concurrent clients
 * cannot be crossed. Connection setup only: nothing here is on the data path.
 */
final class DisniListener implements CmListener {

    /** How long a client has to send its HELLO once its TCP connection is accepted. */
    static final int HELLO_TIMEOUT_MILLIS = 5000;
    /** How long an accept waits for the client's rdma_cm request and the ESTABLISHED event. */
    static final Duration ACCEPT_TIMEOUT = Duration.ofSeconds(20);

    private final DisniContext ctx;
    private final ServerSocket server;
    private final RdmaCmId listenId;
    private final InetSocketAddress local;
    private final RequestPairing<RdmaCmId> pairing = new RequestPairing<>();
    private volatile boolean closed;

    private DisniListener(DisniContext ctx, ServerSocket server, RdmaCmId listenId, InetSocketAddress local) {
        this.ctx = ctx;
        this.server = server;
        this.listenId = listenId;
        this.local = local;
    }

    static DisniListener open(DisniContext ctx, InetSocketAddress address, int backlog) {
        ServerSocket server;
        try {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(address, Math.max(1, backlog));
        } catch (IOException e) {
            throw new VerbsException("cannot listen on " + address + " (TCP handshake port): " + e.getMessage(), e);
        }
        InetSocketAddress local = new InetSocketAddress(address.getAddress(), server.getLocalPort());
        RdmaCmId id;
        try {
            id = ctx.cm().call("rdma_listen(" + local + ")", CmEventLoop.CALL_TIMEOUT, () -> {
                RdmaCmId l = ctx.channel().createId(RdmaCm.RDMA_PS_TCP);
                try {
                    l.bindAddr(local);
                    l.listen(Math.max(1, backlog));
                } catch (IOException e) {
                    CmEventLoop.destroyQuietly(l);
                    throw e;
                }
                return l;
            });
        } catch (RuntimeException e) {
            closeQuietly(server);
            throw new VerbsException("rdma_listen on " + local + " failed: " + e.getMessage() + ". The address must be an "
                    + "IPv4 address of an RDMA interface (or 0.0.0.0), and the port free in rdma_cm's TCP port space", e);
        }
        DisniListener l = new DisniListener(ctx, server, id, local);
        ctx.cm().call("register listener", CmEventLoop.CALL_TIMEOUT, () -> {
            ctx.cm().register(id, new ListenerCmEvents(l::onConnectRequest, ctx::deviceRemoved));
            return null;
        });
        return l;
    }

    /** CM thread: a connect request for this listener. */
    private void onConnectRequest(RdmaCmId conn) {
        InetSocketAddress from = null;
        try {
            from = (InetSocketAddress) conn.getDestination();
        } catch (IOException | RuntimeException e) {
            // no peer address: it cannot be paired
        }
        if (closed || from == null || !pairing.offer(from.getAddress(), conn)) {
            CmEventLoop.destroyQuietly(conn); // nobody from that host is being accepted: refuse
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public ConnectionRequest poll(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!closed) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return null;
            }
            Socket s;
            try {
                server.setSoTimeout((int) Math.min(left, 200)); // accept() ignores interrupts: wait in slices
                s = server.accept();
            } catch (SocketTimeoutException e) {
                continue;
            } catch (IOException e) {
                if (closed) {
                    return null;
                }
                throw new VerbsException("accepting a handshake on " + local + " failed: " + e.getMessage(), e);
            }
            ConnectionRequest r = readHello(s);
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    private ConnectionRequest readHello(Socket s) {
        InetSocketAddress remote = (InetSocketAddress) s.getRemoteSocketAddress();
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(HELLO_TIMEOUT_MILLIS);
            SideChannel.Frame f = SideChannel.read(new DataInputStream(s.getInputStream()), remote.toString());
            DisniConnector.expect(f, SideChannel.HELLO, remote.toString());
            ctx.cm().wake(); // an accept's CM calls may follow: short event waits from now
            return new DisniConnectionRequest(this, s, remote, f.rnrRetry(), f.data());
        } catch (IOException | RuntimeException e) {
            closeQuietly(s); // a bad or silent client must not stop the listener
            return null;
        }
    }

    /** Completes an accepted handshake: GO, pair the client's CM request, rdma_accept, ESTABLISHED, ACCEPT. */
    DisniConnection accept(DisniConnectionRequest request, DisniQueuePair qp, ByteBuffer privateData) {
        String peer = request.remoteAddress().toString();
        InetAddress ip = request.remoteAddress().getAddress();
        try {
            pairing.begin(ip); // one handshake per client IP address at a time
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            request.closeSocket();
            throw new VerbsException("interrupted while waiting to accept " + peer, e);
        }
        try {
            long deadline = System.nanoTime() + ACCEPT_TIMEOUT.toNanos();
            request.send(SideChannel.GO, qp.attributes().rnrRetry(), null);
            RdmaCmId conn = awaitRequestFrom(ip, deadline, peer);
            PendingCmEvents events = new PendingCmEvents();
            boolean done = false;
            try {
                ctx.cm().call("rdma_accept(" + peer + ")", CmEventLoop.CALL_TIMEOUT, () -> {
                    ctx.cm().register(conn, events);
                    qp.attach(conn);
                    conn.accept(DisniConnector.connParam(ctx.config(), request.peerRnrRetry()));
                    return null;
                });
                events.await(CmEvents.ESTABLISHED, deadline, peer);
                qp.established();
                request.send(SideChannel.ACCEPT, privateData);
                InetSocketAddress remote = ctx.cm().call("rdma_get_peer_addr", CmEventLoop.CALL_TIMEOUT,
                        () -> (InetSocketAddress) conn.getDestination());
                DisniConnection c = DisniConnector.handOver(ctx, qp, conn, local, remote != null ? remote : request.remoteAddress(),
                        request.privateData(), events);
                ctx.adopt(c);
                done = true;
                return c;
            } finally {
                if (!done) {
                    DisniConnector.abandon(ctx, conn, qp, "accepting " + peer + " failed");
                }
            }
        } catch (IOException e) {
            throw new VerbsException("the handshake with " + peer + " failed: " + e.getMessage(), e);
        } finally {
            refuse(pairing.end(ip)); // requests from that host that were not this handshake's
            request.closeSocket();
        }
    }

    private RdmaCmId awaitRequestFrom(InetAddress ip, long deadline, String peer) {
        RdmaCmId conn;
        try {
            conn = pairing.await(ip, deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("interrupted while waiting for the rdma_cm request of " + peer, e);
        }
        if (conn == null) {
            throw new VerbsException("the client " + peer + " finished the handshake but its rdma_cm connect request did not "
                    + "arrive within " + ACCEPT_TIMEOUT + " (is " + local + " reachable over RDMA from it?)");
        }
        return conn;
    }

    private void refuse(java.util.List<RdmaCmId> requests) {
        if (requests.isEmpty()) {
            return;
        }
        ctx.cm().submit("refuse unpaired requests", () -> {
            for (RdmaCmId r : requests) {
                CmEventLoop.destroyQuietly(r);
            }
            return null;
        });
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeQuietly(server);
        try {
            ctx.cm().call("rdma_destroy_id(listener)", CmEventLoop.CALL_TIMEOUT, () -> {
                ctx.cm().unregister(listenId);
                for (RdmaCmId r : pairing.drainAll()) {
                    CmEventLoop.destroyQuietly(r);
                }
                CmEventLoop.destroyQuietly(listenId);
                return null;
            });
        } finally {
            ctx.forget(this);
        }
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing: nothing to report
        }
    }
}
