package io.reactorrdma.rsocket;

import io.reactorrdma.DisposableRdmaServer;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.rsocket.Closeable;
import io.rsocket.transport.ServerTransport;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;
import java.util.Objects;

/** RSocket's {@link ServerTransport} over RDMA, in the style of {@code TcpServerTransport}. */
public final class RdmaServerTransport implements ServerTransport<RdmaServerTransport.Bound> {

    private final RdmaServer server;
    private final int maxFrameLength;

    private RdmaServerTransport(RdmaServer server, int maxFrameLength) {
        this.server = server;
        this.maxFrameLength = maxFrameLength;
    }

    /** Listens on {@code host:port} (0 picks a free port) on the JVM-wide default {@link RdmaResources#global()}. */
    public static RdmaServerTransport create(String host, int port) {
        RdmaResources resources = RdmaResources.global();
        return create(RdmaServer.create().host(host).port(port).runOn(resources));
    }

    /**
     * Listens with a fully configured server, like {@code TcpServerTransport.create(TcpServer)}: it
     * carries the {@link RdmaResources} it runs on ({@link RdmaServer#runOn}), whose engine's maximum
     * message size bounds a frame.
     */
    public static RdmaServerTransport create(RdmaServer server) {
        RdmaResources resources = Objects.requireNonNull(server, "server").resources();
        if (resources == null) {
            throw new IllegalArgumentException(
                    "the RdmaServer runs on no RdmaResources: call runOn(resources) before RdmaServerTransport.create(server)");
        }
        return new RdmaServerTransport(server,
                Math.min(resources.engineConfig().maxMessageSize(), RdmaDuplexConnection.RSOCKET_FRAME_LENGTH_LIMIT));
    }

    @Override
    public Mono<Bound> start(ConnectionAcceptor acceptor) {
        return server.handleConnection(connection -> acceptor.apply(new RdmaDuplexConnection(connection)).then(connection.onDispose()))
                .bind()
                .map(Bound::new);
    }

    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }

    /** The running server: its address, and closing it. */
    public static final class Bound implements Closeable {
        private final DisposableRdmaServer server;

        Bound(DisposableRdmaServer server) {
            this.server = server;
        }

        public InetSocketAddress address() {
            return server.address();
        }

        @Override
        public Mono<Void> onClose() {
            return server.onDispose();
        }

        @Override
        public void dispose() {
            server.dispose();
        }

        @Override
        public boolean isDisposed() {
            return server.isDisposed();
        }
    }
}
