package io.reactorrdma;

import io.reactorrdma.engine.ThreadDomain;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRequest;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiFunction;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * An RDMA server, configured like Reactor Netty's {@code TcpServer}: immutable, each call
 * returns a new configuration.
 *
 * <pre>{@code
 * DisposableRdmaServer server = RdmaServer.create()
 *     .host("127.0.0.1").port(7000).runOn(resources)
 *     .handle((in, out) -> out.send(in.receive().map(this::answer)))
 *     .bindNow();
 * }</pre>
 * The handler runs for every connection (socket) a client opens; when the publisher it returns
 * completes, the connection is closed.
 */
public final class RdmaServer {

    private static final Logger LOG = Loggers.getLogger(RdmaServer.class);

    private static final java.util.function.Function<RdmaConnection, Publisher<Void>> NOTHING = c -> Mono.never();

    private final String host;
    private final int port;
    private final RdmaResources resources;
    private final java.util.function.Function<? super RdmaConnection, ? extends Publisher<Void>> handler;
    private final int backlog;

    private RdmaServer(String host, int port, RdmaResources resources,
                       java.util.function.Function<? super RdmaConnection, ? extends Publisher<Void>> handler, int backlog) {
        this.host = host;
        this.port = port;
        this.resources = resources;
        this.handler = handler;
        this.backlog = backlog;
    }

    public static RdmaServer create() {
        return new RdmaServer("127.0.0.1", 0, null, NOTHING, 128);
    }

    public RdmaServer host(String host) {
        return new RdmaServer(Objects.requireNonNull(host, "host"), port, resources, handler, backlog);
    }

    public RdmaServer port(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
        return new RdmaServer(host, port, resources, handler, backlog);
    }

    public RdmaServer runOn(RdmaResources resources) {
        return new RdmaServer(host, port, Objects.requireNonNull(resources, "resources"), handler, backlog);
    }

    /** The resources this server runs on ({@link #runOn}), or null before {@code runOn}. */
    public RdmaResources resources() {
        return resources;
    }

    public RdmaServer handle(BiFunction<? super RdmaInbound, ? super RdmaOutbound, ? extends Publisher<Void>> handler) {
        Objects.requireNonNull(handler, "handler");
        return new RdmaServer(host, port, resources, c -> handler.apply(c.inbound(), c.outbound()), backlog);
    }

    /** Like {@link #handle} but given the whole connection (what a transport adapter needs). */
    public RdmaServer handleConnection(java.util.function.Function<? super RdmaConnection, ? extends Publisher<Void>> handler) {
        return new RdmaServer(host, port, resources, Objects.requireNonNull(handler, "handler"), backlog);
    }

    public RdmaServer backlog(int backlog) {
        if (backlog < 1) {
            throw new IllegalArgumentException("backlog must be at least 1, got " + backlog);
        }
        return new RdmaServer(host, port, resources, handler, backlog);
    }

    /** Binds when subscribed. */
    public Mono<DisposableRdmaServer> bind() {
        return Mono.fromCallable(this::doBind).subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic());
    }

    public DisposableRdmaServer bindNow() {
        return bindNow(Duration.ofSeconds(45));
    }

    public DisposableRdmaServer bindNow(Duration timeout) {
        return Objects.requireNonNull(bind().block(timeout), "bind");
    }

    private DisposableRdmaServer doBind() {
        if (resources == null) {
            throw new IllegalStateException("no RdmaResources: call runOn(resources) before bind");
        }
        CmListener listener = resources.context().listen(new InetSocketAddress(host, port), backlog);
        Bound bound = new Bound(listener);
        Thread acceptor = new Thread(bound::acceptLoop, resources.name() + "-accept-" + listener.localAddress().getPort());
        acceptor.setDaemon(true);
        acceptor.start();
        return bound;
    }

    private final class Bound implements DisposableRdmaServer {
        private final CmListener listener;
        private final Sinks.Empty<Void> stopped = Sinks.empty();
        private volatile boolean disposed;

        Bound(CmListener listener) {
            this.listener = listener;
        }

        void acceptLoop() {
            try {
                while (!disposed) {
                    ConnectionRequest request;
                    try {
                        request = listener.poll(Duration.ofMillis(100));
                    } catch (InterruptedException e) {
                        return;
                    } catch (IllegalStateException closed) {
                        return;
                    }
                    if (request == null) {
                        continue;
                    }
                    ThreadDomain domain;
                    try {
                        domain = resources.domainWithRoom();
                    } catch (RuntimeException e) {
                        ThreadDomain.rejectQuietly(request, e); // the client's error says why
                        continue;
                    }
                    try {
                        domain.accept(request, socket -> {
                            RdmaConnection c = new RdmaConnection(socket, resources);
                            Publisher<Void> p;
                            try {
                                p = handler.apply(c);
                            } catch (RuntimeException e) {
                                c.dispose();
                                return;
                            }
                            Mono.from(p).subscribe(null, error -> c.dispose(), c::dispose);
                        });
                    } catch (RuntimeException e) {
                        // ThreadDomain.accept rejected the request with this reason where it still could
                        LOG.warn("accepting a connection on {} failed: {}", listener.localAddress(), e.toString());
                    }
                }
            } finally {
                stopped.tryEmitEmpty();
            }
        }

        @Override
        public InetSocketAddress address() {
            return listener.localAddress();
        }

        @Override
        public Mono<Void> onDispose() {
            return stopped.asMono();
        }

        @Override
        public void dispose() {
            if (!disposed) {
                disposed = true;
                listener.close();
            }
        }

        @Override
        public boolean isDisposed() {
            return disposed;
        }
    }
}
