package io.reactorrdma.rsocket.boot;

import io.reactorrdma.verbs.VerbsException;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.reactorrdma.rsocket.RdmaServerTransport;
import org.springframework.boot.rsocket.server.RSocketServerException;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Boot's {@link org.springframework.boot.rsocket.server.RSocketServer} over RDMA (and TCP when a TCP
 * port is configured), made by {@link RdmaRSocketServerFactory}. {@link #address()} is the RDMA
 * address; {@link #tcpAddress()} the TCP one.
 */
public final class RdmaRSocketServer implements org.springframework.boot.rsocket.server.RSocketServer {

    private static final System.Logger LOG = System.getLogger(RdmaRSocketServer.class.getName());

    private final Function<SocketAcceptor, RSocketServer> server;
    private final SocketAcceptor acceptor;
    private final Supplier<RdmaServerTransport> rdma;
    private final int rdmaPort;
    private final Supplier<TcpServerTransport> tcp;
    private final int tcpPort;
    private final Duration timeout;
    private volatile DualRSocketServerBinding binding;

    RdmaRSocketServer(Function<SocketAcceptor, RSocketServer> server, SocketAcceptor acceptor, Supplier<RdmaServerTransport> rdma, int rdmaPort,
                      Supplier<TcpServerTransport> tcp, int tcpPort, Duration timeout) {
        this.server = server;
        this.acceptor = acceptor;
        this.rdma = rdma;
        this.rdmaPort = rdmaPort;
        this.tcp = tcp;
        this.tcpPort = tcpPort;
        this.timeout = timeout;
    }

    /** Binds; a port that is taken is an {@link RdmaPortInUseException}, any other failure an {@link RSocketServerException}. */
    @Override
    public synchronized void start() {
        if (binding != null) {
            return;
        }
        RdmaServerTransport rdmaTransport = rdma.get();
        TcpServerTransport tcpTransport = tcp == null ? null : tcp.get();
        try {
            binding = DualRSocketServerBinding.bind(server, acceptor, rdmaTransport, tcpTransport, timeout);
        } catch (RuntimeException e) {
            Throwable inUse = portInUse(e);
            if (inUse != null) {
                boolean tcpFailed = inUse instanceof BindException;
                throw new RdmaPortInUseException(tcpFailed ? "TCP" : "RDMA", tcpFailed ? tcpPort : rdmaPort, inUse);
            }
            throw new RSocketServerException("Unable to start the RSocket server over RDMA on port " + rdmaPort, e);
        }
        LOG.log(System.Logger.Level.INFO, "RSocket over RDMA serving on {0}{1}", binding.rdmaAddress(),
                binding.tcpAddress() == null ? "" : " and over TCP on " + binding.tcpAddress());
    }

    /** The cause that says a port is taken: a TCP bind refused, or a provider that says its port is in use. */
    private static Throwable portInUse(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return t;
            }
            if (t instanceof VerbsException && t.getMessage() != null
                    && (t.getMessage().contains("in use") || t.getMessage().contains("already has a listener"))) {
                return t;
            }
            // Reactor Netty reports a taken TCP port with the native errno text only.
            if (t.getMessage() != null && t.getMessage().contains("Address already in use")) {
                return new BindException(t.getMessage());
            }
        }
        return null;
    }

    @Override
    public synchronized void stop() {
        DualRSocketServerBinding b = binding;
        binding = null;
        if (b != null) {
            b.close(timeout);
        }
    }

    /** The RDMA address bound, or null before {@link #start()}. */
    @Override
    public InetSocketAddress address() {
        DualRSocketServerBinding b = binding;
        return b == null ? null : b.rdmaAddress();
    }

    /** The TCP address bound, or null before {@link #start()} or when serving RDMA only. */
    public InetSocketAddress tcpAddress() {
        DualRSocketServerBinding b = binding;
        return b == null ? null : b.tcpAddress();
    }
}
