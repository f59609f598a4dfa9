package io.reactorrdma.rsocket.fallback;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Serves one RSocket acceptor over RDMA and TCP at once, so a client that cannot use RDMA (see
 * {@link FallbackClientTransport}) reaches the same service over TCP.
 *
 * <pre>{@code
 * DualServer server = RdmaServers.dual(acceptor, RdmaServerTransport.create(rdmaServer),
 *         new InetSocketAddress("0.0.0.0", 7001)).block();
 * }</pre>
 *
 * The RDMA side binds first; if the TCP side then fails to bind, the RDMA side is closed again and
 * the error says which side failed. A caller that gives up before both are bound (a
 * {@code block(timeout)} that times out cancels) leaves nothing bound: a side already bound is
 * closed, one that binds later is closed as it comes.
 */
public final class RdmaServers {

    private RdmaServers() {
    }

    /**
     * {@code acceptor} on RDMA at {@code rdmaAddress} (on the JVM-wide {@link RdmaResources#global()})
     * and on TCP at {@code tcpAddress}, with RSocket's default server settings. Port 0 picks a free port.
     */
    public static Mono<DualServer> dual(SocketAcceptor acceptor, InetSocketAddress rdmaAddress, InetSocketAddress tcpAddress) {
        Objects.requireNonNull(rdmaAddress, "rdmaAddress");
        return Mono.defer(() -> dual(acceptor, RdmaServerTransport.create(rdmaAddress.getHostString(), rdmaAddress.getPort()), tcpAddress));
    }

    /** {@code acceptor} on the given RDMA server transport and on TCP at {@code tcpAddress}, RSocket's default server settings. */
    public static Mono<DualServer> dual(SocketAcceptor acceptor, RdmaServerTransport rdma, InetSocketAddress tcpAddress) {
        return dual(RSocketServer.create(Objects.requireNonNull(acceptor, "acceptor")), rdma, tcpAddress);
    }

    /**
     * A configured {@code server} (payload decoder, leases, fragmentation, interceptors...) bound on
     * both transports. Resumption works per transport: a session resumes on the transport it began on.
     */
    public static Mono<DualServer> dual(RSocketServer server, RdmaServerTransport rdma, InetSocketAddress tcpAddress) {
        Objects.requireNonNull(tcpAddress, "tcpAddress");
        return dual(server, rdma, TcpServerTransport.create(tcpAddress));
    }

    /** A configured {@code server} bound on both given transports. */
    public static Mono<DualServer> dual(RSocketServer server, RdmaServerTransport rdma, TcpServerTransport tcp) {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(rdma, "rdma");
        Objects.requireNonNull(tcp, "tcp");
        return Mono.defer(() -> {
            Binding binding = new Binding();
            return server.bind(rdma)
                    .onErrorMap(e -> new IllegalStateException("binding the RDMA side of the dual server failed: " + e
                            + "; nothing was bound. Check the RDMA address and provider, or serve TCP alone", e))
                    .doOnNext(binding::rdmaBound)
                    .flatMap(r -> server.bind(tcp)
                            .onErrorResume(e -> closeAndFail(r, e))
                            .doOnNext(binding::tcpBound)
                            .filter(t -> binding.deliver())
                            .map((CloseableChannel t) -> new DualServer(r, t)))
                    .doOnCancel(binding::cancel);
        });
    }

    /**
     * One dual bind that its caller may give up on ({@code block(timeout)} cancels when it times
     * out): a side bound before or after the cancel is closed, never left serving. Atomics, no lock:
     * the sides bind on provider and event-loop threads.
     */
    private static final class Binding {
        private static final int BINDING = 0;
        private static final int DELIVERED = 1;
        private static final int CANCELLED = 2;
        private final java.util.concurrent.atomic.AtomicInteger phase = new java.util.concurrent.atomic.AtomicInteger();
        private volatile RdmaServerTransport.Bound rdma;
        private volatile CloseableChannel tcp;

        void rdmaBound(RdmaServerTransport.Bound r) {
            rdma = r;
            if (phase.get() == CANCELLED) {
                r.dispose(); // the cancel may have missed it: disposing twice is harmless
            }
        }

        void tcpBound(CloseableChannel t) {
            tcp = t;
            if (phase.get() == CANCELLED) {
                t.dispose();
            }
        }

        boolean deliver() {
            return phase.compareAndSet(BINDING, DELIVERED);
        }

        void cancel() {
            if (phase.compareAndSet(BINDING, CANCELLED)) {
                RdmaServerTransport.Bound r = rdma;
                CloseableChannel t = tcp;
                if (r != null) {
                    r.dispose();
                }
                if (t != null) {
                    t.dispose();
                }
            }
        }
    }

    private static Mono<CloseableChannel> closeAndFail(RdmaServerTransport.Bound rdma, Throwable e) {
        rdma.dispose();
        return rdma.onClose().onErrorResume(ignored -> Mono.empty())
                .then(Mono.error(new IllegalStateException("binding the TCP side of the dual server failed: " + e
                        + "; the RDMA side (" + rdma.address() + ") was closed again. Check the TCP address (in use?)", e)));
    }
}
