package io.reactorrdma.perf.rsocket;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.measure.EchoTemplates;
import io.reactorrdma.perf.measure.RdmaEchoResources;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.peer.InJvmServer;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.peer.ServerTask;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.rsocket.Closeable;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.ServerTransport;
import io.rsocket.transport.local.LocalServerTransport;
import io.rsocket.transport.netty.server.TcpServerTransport;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The server end of rsocket-rr and rsocket-stream: an {@link RSocketServer} with
 * {@code PayloadDecoder.ZERO_COPY} answering with {@link RSocketPerfResponder}, bound on one of
 * the transports — RDMA ({@link RdmaServerTransport} on its own {@link RdmaEchoResources}, meters
 * in a registry of its own), RSocket's {@link TcpServerTransport} or its {@link LocalServerTransport}.
 */
public final class RSocketServerEnd implements InJvmServer {

    static final String NAME = "rsocket-server";
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final SimpleMeterRegistry registry;
    private final RdmaResources resources;
    private final RSocketPerfResponder responder;
    private final Closeable server;
    private final int port;

    private RSocketServerEnd(SimpleMeterRegistry registry, RdmaResources resources, RSocketPerfResponder responder,
            Closeable server, int port) {
        this.registry = registry;
        this.resources = resources;
        this.responder = responder;
        this.server = server;
        this.port = port;
    }

    /** Over RDMA on {@code provider} (shm, loopback), 127.0.0.1, a port the provider picks; stream payloads in registered memory. */
    public static RSocketServerEnd rdma(String provider, PollMode poll, int size) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RdmaResources resources = RdmaEchoResources.create(NAME, provider, poll, registry);
        try {
            RSocketPerfResponder responder = responder(resources.allocator().byteBufAllocator(), size);
            RdmaServerTransport.Bound bound = bind(responder,
                    RdmaServerTransport.create(RdmaServer.create().host("127.0.0.1").port(0).runOn(resources)), "RDMA (" + provider + ")");
            return new RSocketServerEnd(registry, resources, responder, bound, bound.address().getPort());
        } catch (RuntimeException e) {
            resources.dispose();
            throw e;
        }
    }

    /** RSocket's TCP transport (Reactor Netty) on 127.0.0.1, a free port. */
    public static RSocketServerEnd tcp(int size) {
        RSocketPerfResponder responder = responder(PooledByteBufAllocator.DEFAULT, size);
        var bound = bind(responder, TcpServerTransport.create("127.0.0.1", 0), "TCP");
        return new RSocketServerEnd(null, null, responder, bound, bound.address().getPort());
    }

    /** RSocket's in-JVM Local transport under {@code name}; it has no port. */
    static RSocketServerEnd local(String name, int size) {
        RSocketPerfResponder responder = responder(PooledByteBufAllocator.DEFAULT, size);
        return new RSocketServerEnd(null, null, responder, bind(responder, LocalServerTransport.create(name), "Local"), 0);
    }

    private static RSocketPerfResponder responder(ByteBufAllocator alloc, int size) {
        return new RSocketPerfResponder(EchoTemplates.filled(alloc.directBuffer(size, size), size, RSocketPerfResponder.STREAM_PATTERN));
    }

    private static <T extends Closeable> T bind(RSocketPerfResponder responder, ServerTransport<T> transport, String what) {
        try {
            T bound = RSocketServer.create(SocketAcceptor.with(responder)).payloadDecoder(PayloadDecoder.ZERO_COPY)
                    .bind(transport).block(BIND_TIMEOUT);
            if (bound == null) {
                throw new PerfException("the RSocket server over " + what + " did not bind");
            }
            return bound;
        } catch (RuntimeException e) {
            responder.release();
            throw e instanceof PerfException ? e : new PerfException("cannot start the RSocket server over " + what + ": " + e, e);
        }
    }

    /**
     * As a forked peer's task: reports READY with the port, serves until told to stop, and lets the peer report its
     * meters at each mark.
     */
    public static ServerTask task(Supplier<RSocketServerEnd> start, Consumer<Supplier<String>> meterReports) {
        return (reporter, stop) -> {
            try (RSocketServerEnd s = start.get()) {
                meterReports.accept(() -> s.meters().format());
                reporter.report(PeerReporter.READY, Integer.toString(s.port()));
                while (!stop.getAsBoolean()) {
                    Thread.sleep(50);
                }
            }
        };
    }

    @Override
    public int port() {
        return port;
    }

    /** What the RDMA engine counted so far; {@link EngineMeters#NONE} for tcp and local. */
    @Override
    public EngineMeters meters() {
        return registry == null ? EngineMeters.NONE : EngineMeters.snapshot(registry);
    }

    /** RDMA: the server's I/O and provider threads; tcp and local: none of their own (reads -1). */
    @Override
    public CpuMeter threadsCpu() {
        return resources == null ? () -> -1 : RdmaEchoResources.threadsCpu(resources);
    }

    @Override
    public void close() {
        try {
            server.dispose();
            server.onClose().onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(CLOSE_TIMEOUT);
        } finally {
            responder.release();
            if (resources != null) {
                resources.dispose();
                long live = resources.allocator().liveBuffers();
                if (live != 0) {
                    throw new PerfException("the RSocket server's registered allocator still holds " + live + " buffers after the run: "
                            + "a frame or payload was not released (a bug in the perf tool, the transport or the engine; "
                            + "run with -Dio.netty.leakDetection.level=paranoid)");
                }
            }
        }
    }
}
