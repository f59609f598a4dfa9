package io.reactorrdma.rsocket.boot;

import io.rsocket.Closeable;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.reactorrdma.rsocket.RdmaServerTransport;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Function;

/**
 * One acceptor served over RDMA and, optionally, over TCP: two RSocket server binds that open and
 * close together. (Issue 11's {@code RdmaServers.dual} does the same job; this one stays internal
 * until the recovery layer is merged.)
 */
final class DualRSocketServerBinding {

    private final RdmaServerTransport.Bound rdma;
    private final CloseableChannel tcp;

    private DualRSocketServerBinding(RdmaServerTransport.Bound rdma, CloseableChannel tcp) {
        this.rdma = rdma;
        this.tcp = tcp;
    }

    /**
     * Binds {@code acceptor} on {@code rdmaTransport} and, when {@code tcpTransport} is not null,
     * on it too; {@code server} makes each configured RSocket server. When the second bind fails
     * the first is closed before the failure is thrown.
     */
    static DualRSocketServerBinding bind(Function<SocketAcceptor, RSocketServer> server, SocketAcceptor acceptor,
                                         RdmaServerTransport rdmaTransport, TcpServerTransport tcpTransport, Duration timeout) {
        RdmaServerTransport.Bound rdma = server.apply(acceptor).bind(rdmaTransport).block(timeout);
        if (tcpTransport == null) {
            return new DualRSocketServerBinding(rdma, null);
        }
        try {
            return new DualRSocketServerBinding(rdma, server.apply(acceptor).bind(tcpTransport).block(timeout));
        } catch (RuntimeException e) {
            close(rdma, timeout);
            throw e;
        }
    }

    InetSocketAddress rdmaAddress() {
        return rdma.address();
    }

    /** The TCP address, or null when serving RDMA only. */
    InetSocketAddress tcpAddress() {
        return tcp == null ? null : tcp.address();
    }

    /** Closes both servers and waits, at most {@code timeout} each, until they are closed. */
    void close(Duration timeout) {
        try {
            if (tcp != null) {
                close(tcp, timeout);
            }
        } finally {
            close(rdma, timeout);
        }
    }

    private static void close(Closeable c, Duration timeout) {
        c.dispose();
        c.onClose().onErrorResume(e -> Mono.empty()).block(timeout); // a close error is the transport's to log, not shutdown's
    }
}
