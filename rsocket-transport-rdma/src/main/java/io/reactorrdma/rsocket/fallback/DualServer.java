package io.reactorrdma.rsocket.fallback;

import io.reactorrdma.rsocket.RdmaServerTransport;
import io.rsocket.Closeable;
import io.rsocket.transport.netty.server.CloseableChannel;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;

/**
 * One RSocket acceptor served over RDMA and TCP at once (see {@link RdmaServers#dual}): both bound
 * addresses, and one {@link #dispose()} that closes both sides. {@link #onClose()} completes when
 * both have closed.
 */
public final class DualServer implements Closeable {

    private final RdmaServerTransport.Bound rdma;
    private final CloseableChannel tcp;

    DualServer(RdmaServerTransport.Bound rdma, CloseableChannel tcp) {
        this.rdma = rdma;
        this.tcp = tcp;
    }

    /** The address the RDMA side listens on (the real port when 0 was asked for). */
    public InetSocketAddress rdmaAddress() {
        return rdma.address();
    }

    /** The address the TCP side listens on (the real port when 0 was asked for). */
    public InetSocketAddress tcpAddress() {
        return tcp.address();
    }

    /** The RDMA side alone, for a caller that must close it on its own (e.g. to take RDMA down for maintenance). */
    public RdmaServerTransport.Bound rdmaServer() {
        return rdma;
    }

    /** The TCP side alone. */
    public CloseableChannel tcpServer() {
        return tcp;
    }

    /** Completes when both sides have closed; errors with the first side's error if one failed. */
    @Override
    public Mono<Void> onClose() {
        return Mono.whenDelayError(rdma.onClose(), tcp.onClose());
    }

    /** Closes both sides: stops listening on both ports. */
    @Override
    public void dispose() {
        try {
            rdma.dispose();
        } finally {
            tcp.dispose();
        }
    }

    /** True once both sides are disposed. */
    @Override
    public boolean isDisposed() {
        return rdma.isDisposed() && tcp.isDisposed();
    }

    @Override
    public String toString() {
        return "DualServer{rdma=" + rdmaAddress() + ", tcp=" + tcpAddress() + "}";
    }
}
