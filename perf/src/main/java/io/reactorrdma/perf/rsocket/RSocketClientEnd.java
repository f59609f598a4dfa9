package io.reactorrdma.perf.rsocket;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.measure.RdmaEchoResources;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.local.LocalClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The client end of rsocket-rr and rsocket-stream: {@code connections} RSocket requesters made by
 * {@link RSocketConnector} with {@code PayloadDecoder.ZERO_COPY} over one transport — RDMA
 * ({@link RdmaClientTransport} on its own {@link RdmaEchoResources}; the connections are sockets
 * sharing one queue pair), RSocket's {@link TcpClientTransport} or its {@link LocalClientTransport}.
 */
final class RSocketClientEnd implements AutoCloseable {

    static final String NAME = "rsocket-client";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final SimpleMeterRegistry registry;
    private final RdmaResources resources;
    private final List<RSocket> sockets = new ArrayList<>();

    private RSocketClientEnd(SimpleMeterRegistry registry, RdmaResources resources) {
        this.registry = registry;
        this.resources = resources;
    }

    /** Over RDMA on {@code provider} (shm, loopback) to 127.0.0.1:{@code port}. */
    static RSocketClientEnd rdma(String provider, PollMode poll, int port, int connections) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RSocketClientEnd c = new RSocketClientEnd(registry, RdmaEchoResources.create(NAME, provider, poll, registry));
        return c.connect(RdmaClientTransport.create(RdmaClient.create().host("127.0.0.1").port(port).runOn(c.resources)),
                connections, "RDMA (" + provider + ") on 127.0.0.1:" + port);
    }

    /** RSocket's TCP transport (Reactor Netty) to 127.0.0.1:{@code port}. */
    static RSocketClientEnd tcp(int port, int connections) {
        return new RSocketClientEnd(null, null).connect(TcpClientTransport.create("127.0.0.1", port), connections,
                "TCP on 127.0.0.1:" + port);
    }

    /** RSocket's in-JVM Local transport to the server named {@code name}. */
    static RSocketClientEnd local(String name, int connections) {
        return new RSocketClientEnd(null, null).connect(LocalClientTransport.create(name), connections, "Local '" + name + "'");
    }

    private RSocketClientEnd connect(ClientTransport transport, int connections, String where) {
        try {
            for (int i = 0; i < connections; i++) {
                RSocket s = RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY).connect(transport).block(CONNECT_TIMEOUT);
                if (s == null) {
                    throw new PerfException("RSocket connection " + i + " over " + where + " completed without a socket");
                }
                sockets.add(s);
            }
            return this;
        } catch (RuntimeException e) {
            close();
            throw e instanceof PerfException ? e : new PerfException("cannot connect RSocket over " + where + ": " + e, e);
        }
    }

    /** The connected requesters, one per connection. */
    List<RSocket> sockets() {
        return sockets;
    }

    /** Where request payloads are made: registered memory for RDMA (no copy on send), Netty's pooled direct buffers otherwise. */
    ByteBufAllocator alloc() {
        return resources == null ? PooledByteBufAllocator.DEFAULT : resources.allocator().byteBufAllocator();
    }

    /** What the RDMA engine counted so far; {@link EngineMeters#NONE} for tcp and local. */
    EngineMeters meters() {
        return registry == null ? EngineMeters.NONE : EngineMeters.snapshot(registry);
    }

    /** RDMA: the client's I/O and provider threads. */
    CpuMeter threadsCpu() {
        return resources == null ? () -> -1 : RdmaEchoResources.threadsCpu(resources);
    }

    @Override
    public void close() {
        sockets.forEach(RSocket::dispose);
        for (RSocket s : sockets) {
            s.onClose().onErrorResume(e -> Mono.empty()).block(CLOSE_TIMEOUT);
        }
        if (resources != null) {
            resources.dispose();
            long live = resources.allocator().liveBuffers();
            if (live != 0) {
                throw new PerfException("the RSocket client's registered allocator still holds " + live + " buffers after the run: "
                        + "a frame or payload was not released (a bug in the perf tool, the transport or the engine; "
                        + "run with -Dio.netty.leakDetection.level=paranoid)");
            }
        }
    }
}
