package io.reactorrdma.rsocket.boot;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.server.TcpServerTransport;
import org.springframework.boot.rsocket.server.RSocketServerCustomizer;
import org.springframework.boot.rsocket.server.RSocketServerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Boot's {@link RSocketServerFactory} for RSocket over RDMA on shared {@link RdmaResources}, with the
 * same handlers also over TCP when {@link #setTcpPort(Integer) a TCP port} is set. Boot's
 * {@link RSocketServerCustomizer}s apply to both servers (so, for example, rsocket-micrometer
 * interceptors keep working).
 */
public class RdmaRSocketServerFactory implements RSocketServerFactory {

    /** Default port: 0, a free one. */
    public static final int DEFAULT_PORT = 0;
    /** How long binding (and closing) a server may take before startup (or shutdown) fails. */
    public static final Duration DEFAULT_BIND_TIMEOUT = Duration.ofSeconds(30);

    private final Supplier<RdmaResources> resources;
    private InetAddress address;
    private int port = DEFAULT_PORT;
    private Integer tcpPort;
    private Duration bindTimeout = DEFAULT_BIND_TIMEOUT;
    private final List<RSocketServerCustomizer> customizers = new ArrayList<>();

    /** A factory for servers on {@code resources} (which the caller disposes, after the servers). */
    public RdmaRSocketServerFactory(RdmaResources resources) {
        Objects.requireNonNull(resources, "resources");
        this.resources = () -> resources;
    }

    /**
     * A factory whose servers take their resources from {@code resources} when they start. When it
     * fails with a {@code ProviderUnavailableException} and a TCP port is set, a server serves TCP
     * only (see {@link RdmaRSocketServer}).
     */
    public RdmaRSocketServerFactory(Supplier<RdmaResources> resources) {
        this.resources = Objects.requireNonNull(resources, "resources");
    }

    /** The address to bind; null (the default): every local address. */
    public void setAddress(InetAddress address) {
        this.address = address;
    }

    /** The RDMA port; default {@value #DEFAULT_PORT}, a free one. */
    public void setPort(int port) {
        if (port < 0 || port > 65535) {
            throw new InvalidRdmaPropertyException("reactor.rdma.rsocket.server.port", port, "a port is 0 (a free one) to 65535");
        }
        this.port = port;
    }

    /** The TCP port to serve the same handlers on too; null (the default): RDMA only. */
    public void setTcpPort(Integer tcpPort) {
        if (tcpPort != null && (tcpPort < 0 || tcpPort > 65535)) {
            throw new InvalidRdmaPropertyException("reactor.rdma.rsocket.server.tcp-port", tcpPort, "a port is 0 (a free one) to 65535");
        }
        this.tcpPort = tcpPort;
    }

    /** How long a bind may take; default {@link #DEFAULT_BIND_TIMEOUT}. */
    public void setBindTimeout(Duration bindTimeout) {
        this.bindTimeout = Objects.requireNonNull(bindTimeout, "bindTimeout");
    }

    /** Adds customizers applied, in order, to each RSocket server (RDMA and TCP). */
    public void addServerCustomizers(RSocketServerCustomizer... customizers) {
        this.customizers.addAll(List.of(customizers));
    }

    /** The resources the servers run on (created now if they were not yet; fails with the provider's error when they cannot be). */
    public RdmaResources resources() {
        return resources.get();
    }

    @Override
    public RdmaRSocketServer create(SocketAcceptor acceptor) {
        Objects.requireNonNull(acceptor, "acceptor");
        List<RSocketServerCustomizer> cs = List.copyOf(customizers);
        String host = address == null ? "0.0.0.0" : address.getHostAddress();
        int rdmaPort = port;
        Integer tcp = tcpPort;
        return new RdmaRSocketServer(a -> {
            RSocketServer server = RSocketServer.create(a);
            cs.forEach(c -> c.customize(server));
            return server;
        }, acceptor,
                () -> {
                    RdmaResources r = resources.get();
                    return RdmaServerTransport.create(RdmaServer.create().host(host).port(rdmaPort).runOn(r));
                }, rdmaPort,
                tcp == null ? null : () -> TcpServerTransport.create(new InetSocketAddress(host, tcp)), tcp == null ? -1 : tcp,
                bindTimeout);
    }
}
