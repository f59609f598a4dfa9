package io.reactorrdma.perf.verbs;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsContext;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * One end of a benchmark connection: protection domain, one completion queue for sends and
 * receives, an RC queue pair, and the connection once made. Post receives before
 * {@link #connect} or {@link #accept} so that the peer never meets an empty receive queue.
 */
final class RdmaEndpoint implements AutoCloseable {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    private CmConnection connection;

    private RdmaEndpoint(ProtectionDomain pd, CompletionQueue cq, QueuePair qp) {
        this.pd = pd;
        this.cq = cq;
        this.qp = qp;
    }

    /** An unconnected endpoint whose completion queue holds every send and receive of its queue pair. */
    static RdmaEndpoint create(VerbsContext ctx, int sendDepth, int recvDepth) {
        ProtectionDomain pd = ctx.allocPd();
        CompletionQueue cq = null;
        try {
            cq = ctx.createCq(sendDepth + recvDepth);
            QueuePair qp = ctx.createQp(pd, QpAttributes.create(cq).withMaxSendWr(sendDepth).withMaxRecvWr(recvDepth)
                    .withMaxSendSge(1).withMaxRecvSge(1));
            return new RdmaEndpoint(pd, cq, qp);
        } catch (RuntimeException e) {
            if (cq != null) {
                cq.close();
            }
            pd.close();
            throw e;
        }
    }

    MemoryRegion allocate(int size, int access) {
        return pd.allocate(size, access);
    }

    /** Client side: connects and returns the private data the server accepted with. */
    ByteBuffer connect(VerbsContext ctx, InetSocketAddress address, ByteBuffer privateData) {
        connection = ctx.connect(address, qp, privateData, CONNECT_TIMEOUT);
        return connection.remotePrivateData();
    }

    /** Server side: accepts a request with our private data. */
    void accept(ConnectionRequest request, ByteBuffer privateData) {
        connection = request.accept(qp, privateData);
    }

    /** Server side: waits for a connection request, giving up when {@code stop} says so or after the connect timeout. */
    static ConnectionRequest awaitRequest(CmListener listener, BooleanSupplier stop) throws InterruptedException {
        long deadline = System.nanoTime() + CONNECT_TIMEOUT.toNanos();
        while (!stop.getAsBoolean()) {
            ConnectionRequest r = listener.poll(Duration.ofMillis(100));
            if (r != null) {
                return r;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new PerfException("no client connected within " + CONNECT_TIMEOUT.toSeconds() + " s");
            }
        }
        throw new PerfException("stopped before a client connected");
    }

    boolean isConnected() {
        return connection != null && connection.isConnected();
    }

    /** Disconnects (the peer's outstanding receives are flushed), then destroys queue pair, queue and domain. */
    @Override
    public void close() {
        try {
            if (connection != null) {
                connection.close();
            }
        } finally {
            try {
                qp.close();
            } finally {
                try {
                    cq.close();
                } finally {
                    pd.close();
                }
            }
        }
    }
}
