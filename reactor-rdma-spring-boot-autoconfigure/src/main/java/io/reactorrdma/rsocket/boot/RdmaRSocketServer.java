package io.reactorrdma.rsocket.boot;

import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.fallback.DualServer;
import io.reactorrdma.rsocket.fallback.RdmaServers;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.VerbsException;
import io.rsocket.Closeable;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import org.springframework.boot.rsocket.server.RSocketServerException;
import reactor.core.publisher.Mono;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * Boot's {@link org.springframework.boot.rsocket.server.RSocketServer} over RDMA (and TCP when a TCP
 * port is configured, through {@link RdmaServers#dual}), made by {@link RdmaRSocketServerFactory}.
 * {@link #address()} is the RDMA address; {@link #tcpAddress()} the TCP one.
 *
 * <p>When the RDMA provider cannot open here ({@link ProviderUnavailableException}: no device, no
 * libdisni, an shm directory it may not use) and a TCP port is configured, the server serves TCP only
 * and logs a WARNING with the provider's diagnosis ({@link #rdmaUnavailable()} holds it; health
 * {@code rdma} is DOWN with it): clients that fall back to TCP keep working. RDMA is not retried;
 * fix the provider and restart. Without a TCP port, start fails with the provider's error.
 */
public final class RdmaRSocketServer implements org.springframework.boot.rsocket.server.RSocketServer {

    private static final Logger LOG = Loggers.getLogger(RdmaRSocketServer.class);

    private final Function<SocketAcceptor, RSocketServer> server;
    private final SocketAcceptor acceptor;
    private final Supplier<RdmaServerTransport> rdma;
    private final int rdmaPort;
    private final Supplier<TcpServerTransport> tcp;
    private final int tcpPort;
    private final Duration timeout;
    private Closeable serving; // under this
    private volatile InetSocketAddress rdmaAddress;
    private volatile InetSocketAddress tcpAddress;
    private volatile Throwable rdmaUnavailable; // set while serving TCP only

    RdmaRSocketServer(Function<SocketAcceptor, RSocketServer> server, SocketAcceptor acceptor,
                      Supplier<RdmaServerTransport> rdma, int rdmaPort,
                      Supplier<TcpServerTransport> tcp, int tcpPort, Duration timeout) {
        this.server = server;
        this.acceptor = acceptor;
        this.rdma = rdma;
        this.rdmaPort = rdmaPort;
        this.tcp = tcp;
        this.tcpPort = tcpPort;
        this.timeout = timeout;
    }

    /**
     * Binds; a port that is taken is an {@link RdmaPortInUseException}, an RDMA provider that cannot
     * open without a TCP port its {@link ProviderUnavailableException}, any other failure an
     * {@link RSocketServerException}.
     */
    @Override
    public synchronized void start() {
        if (serving != null) {
            return;
        }
        try {
            RdmaServerTransport rdmaTransport;
            try {
                rdmaTransport = rdma.get();
            } catch (RuntimeException e) {
                ProviderUnavailableException unavailable = providerUnavailable(e);
                if (unavailable == null || tcp == null) {
                    throw unavailable != null ? unavailable : e;
                }
                startTcpOnly(unavailable);
                return;
            }
            if (tcp == null) {
                RdmaServerTransport.Bound bound = server.apply(acceptor).bind(rdmaTransport).block(timeout);
                serving = bound;
                rdmaAddress = bound.address();
            } else {
                DualServer dual = RdmaServers.dual(server.apply(acceptor), rdmaTransport, tcp.get()).block(timeout);
                serving = dual;
                rdmaAddress = dual.rdmaAddress();
                tcpAddress = dual.tcpAddress();
            }
        } catch (ProviderUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            throw failure(e);
        }
        LOG.info("RSocket over RDMA serving on {}{}", rdmaAddress,
                tcpAddress == null ? "" : " and over TCP on " + tcpAddress);
        awaitClose(serving);
    }

    /**
     * Keeps the JVM alive while serving, as Boot's own RSocket server does: the RDMA I/O threads and
     * Reactor Netty's are daemons, so an application without a web server would otherwise exit
     * right after startup. The thread ends when the server is stopped.
     */
    private void awaitClose(Closeable closeable) {
        Thread await = new Thread(() -> {
            try {
                closeable.onClose().block();
            } catch (RuntimeException e) {
                LOG.debug("the RSocket server closed with an error", e);
            }
        }, "rdma-rsocket-server-await");
        await.setDaemon(false);
        await.start();
    }

    private void startTcpOnly(ProviderUnavailableException unavailable) {
        CloseableChannel channel = server.apply(acceptor).bind(tcp.get()).block(timeout);
        serving = channel;
        tcpAddress = channel.address();
        rdmaUnavailable = unavailable;
        awaitClose(channel);
        LOG.warn("RSocket serving over TCP only, on " + tcpAddress + ": the RDMA provider cannot be used here ("
                + unavailable.getMessage() + "). Clients with reactor.rdma.rsocket.client.tcp-fallback=true reach this server over TCP; "
                + "fix the provider (see health 'rdma') or set reactor.rdma.provider, then restart to serve RDMA on port " + rdmaPort);
    }

    private RuntimeException failure(RuntimeException e) {
        Throwable inUse = portInUse(e);
        if (inUse != null) {
            boolean tcpFailed = inUse instanceof BindException;
            return new RdmaPortInUseException(tcpFailed ? "TCP" : "RDMA", tcpFailed ? tcpPort : rdmaPort, inUse);
        }
        return new RSocketServerException("Unable to start the RSocket server over RDMA on port " + rdmaPort, e);
    }

    private static ProviderUnavailableException providerUnavailable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ProviderUnavailableException p) {
                return p;
            }
        }
        return null;
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

    /** Closes what is bound and waits, at most the bind timeout, until it is closed. */
    @Override
    public synchronized void stop() {
        Closeable c = serving;
        serving = null;
        rdmaAddress = null;
        tcpAddress = null;
        rdmaUnavailable = null;
        if (c != null) {
            c.dispose();
            c.onClose().onErrorResume(e -> Mono.empty()).block(timeout); // a close error is the transport's to log, not shutdown's
        }
    }

    /** Whether it serves, over RDMA, TCP or both: from {@link #start()} until {@link #stop()}. */
    public synchronized boolean isRunning() {
        return serving != null;
    }

    /**
     * The RDMA address bound, or null before {@link #start()} and when serving TCP only (so Boot's
     * plain {@code RSocketServerBootstrap}, which asks this, does not see a TCP-only server running:
     * use {@link RdmaRSocketServerBootstrap}, which the auto-configuration does).
     */
    @Override
    public InetSocketAddress address() {
        return rdmaAddress;
    }

    /** The TCP address bound, or null before {@link #start()} or when serving RDMA only. */
    public InetSocketAddress tcpAddress() {
        return tcpAddress;
    }

    /** Why RDMA is not served, while the server serves TCP only because its provider cannot open here. */
    public Optional<Throwable> rdmaUnavailable() {
        return Optional.ofNullable(rdmaUnavailable);
    }
}
