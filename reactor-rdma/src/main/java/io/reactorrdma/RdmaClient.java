package io.reactorrdma;

import io.reactorrdma.engine.EngineSocket;
import io.reactorrdma.engine.ThreadDomain;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An RDMA client, configured like Reactor Netty's {@code TcpClient}: immutable, each call returns
 * a new configuration. Every {@link #connect()} opens a new connection (socket); connections to
 * one address share a queue pair: the address picks the thread domain, and a domain keeps one
 * engine per address.
 */
public final class RdmaClient {

    private final String host;
    private final int port;
    private final RdmaResources resources;
    private final Duration connectTimeout;

    private RdmaClient(String host, int port, RdmaResources resources, Duration connectTimeout) {
        this.host = host;
        this.port = port;
        this.resources = resources;
        this.connectTimeout = connectTimeout;
    }

    public static RdmaClient create() {
        return new RdmaClient("127.0.0.1", 0, null, Duration.ofSeconds(10));
    }

    public RdmaClient host(String host) {
        return new RdmaClient(Objects.requireNonNull(host, "host"), port, resources, connectTimeout);
    }

    public RdmaClient port(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535, got " + port);
        }
        return new RdmaClient(host, port, resources, connectTimeout);
    }

    public RdmaClient runOn(RdmaResources resources) {
        return new RdmaClient(host, port, Objects.requireNonNull(resources, "resources"), connectTimeout);
    }

    /** The resources this client runs on ({@link #runOn}), or null before {@code runOn}. */
    public RdmaResources resources() {
        return resources;
    }

    public RdmaClient connectTimeout(Duration timeout) {
        return new RdmaClient(host, port, resources, Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Connects when subscribed. Cancelled before the connection is emitted, it closes the socket
     * as soon as it has opened (the engine to the address stays, for later connections).
     */
    public Mono<RdmaConnection> connect() {
        return Mono.defer(() -> {
            if (resources == null) {
                return Mono.error(new IllegalStateException("no RdmaResources: call runOn(resources) before connect"));
            }
            if (port == 0) {
                return Mono.error(new IllegalStateException("no port: call port(n) before connect"));
            }
            InetSocketAddress address = new InetSocketAddress(host, port);
            ThreadDomain[] domains = resources.domains();
            ThreadDomain domain = domains[Math.floorMod(address.hashCode(), domains.length)];
            CompletableFuture<EngineSocket> opening = domain.openSocket(address, connectTimeout);
            // Exactly one of "emitted" and "cancelled" wins: the socket goes to the subscriber or is closed.
            AtomicBoolean settled = new AtomicBoolean();
            return Mono.fromFuture(opening, true)
                    .<RdmaConnection>handle((socket, sink) -> {
                        if (settled.compareAndSet(false, true)) {
                            sink.next(new RdmaConnection(socket, resources));
                        } else {
                            socket.close();
                        }
                    })
                    .doOnCancel(() -> {
                        if (settled.compareAndSet(false, true)) {
                            opening.thenAccept(EngineSocket::close);
                        }
                    })
                    .doOnDiscard(RdmaConnection.class, RdmaConnection::dispose); // emitted into a cancel
        });
    }

    public RdmaConnection connectNow() {
        return connectNow(connectTimeout.plusSeconds(5));
    }

    public RdmaConnection connectNow(Duration timeout) {
        return Objects.requireNonNull(connect().block(timeout), "connect");
    }
}
