package io.reactorrdma.rsocket.boot;

import io.rsocket.SocketAcceptor;
import org.springframework.boot.rsocket.context.RSocketServerBootstrap;

import java.util.Objects;

/**
 * Boot's {@link RSocketServerBootstrap} for an {@link RdmaRSocketServer}: starts it with the context
 * (publishing Boot's {@code RSocketServerInitializedEvent}) and stops it when the context closes.
 * Boot's own bootstrap takes a server as running only while it has an {@code address()}; an
 * {@link RdmaRSocketServer} serving TCP only (its RDMA provider cannot open) has none, so Boot would
 * never stop it. This one asks the server whether it serves.
 */
public class RdmaRSocketServerBootstrap extends RSocketServerBootstrap {

    private final RdmaRSocketServer server;

    /** Creates the server from {@code factory}, serving {@code acceptor}. */
    public RdmaRSocketServerBootstrap(RdmaRSocketServerFactory factory, SocketAcceptor acceptor) {
        this(Objects.requireNonNull(factory, "factory").create(acceptor), acceptor);
    }

    private RdmaRSocketServerBootstrap(RdmaRSocketServer server, SocketAcceptor acceptor) {
        super(a -> server, acceptor);
        this.server = server;
    }

    /** The server it starts and stops. */
    public RdmaRSocketServer server() {
        return server;
    }

    /** Whether the server serves (RDMA, TCP or both). */
    @Override
    public boolean isRunning() {
        return server.isRunning();
    }
}
