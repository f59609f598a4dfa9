package io.reactorrdma.perf.fanout;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.measure.RdmaEchoResources;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.peer.ServerTask;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.rsocket.Closeable;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.ServerTransport;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The shard replicas one server JVM hosts: {@code count} RSocket servers on 127.0.0.1, each on a
 * port of its own and answering with a {@link FanoutResponder}; over RDMA they share one
 * {@link RdmaResources} (one I/O thread for all of them, so that several replicas per JVM do not
 * each spin a thread on a small host), over TCP they are RSocket's {@link TcpServerTransport}s.
 */
public final class FanoutServers implements AutoCloseable {

    static final String NAME = "fanout-server";
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final SimpleMeterRegistry registry;
    private final RdmaResources resources;
    private final List<Closeable> servers = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();

    private FanoutServers(SimpleMeterRegistry registry, RdmaResources resources) {
        this.registry = registry;
        this.resources = resources;
    }

    /**
     * Starts {@code count} servers over {@code transport} ({@code rdma}: the soft provider over shm;
     * {@code tcp}); the one at {@code slowIndex} (or none, -1) delays each answer by {@code slowDelay}.
     */
    public static FanoutServers start(String transport, PollMode poll, int count, int slowIndex, Duration slowDelay) {
        FanoutServers s;
        if (transport.equals("rdma")) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            s = new FanoutServers(registry, RdmaEchoResources.create(NAME, "shm", poll, registry));
        } else if (transport.equals("tcp")) {
            s = new FanoutServers(null, null);
        } else {
            throw new PerfException("unknown fanout server transport '" + transport + "'; use rdma or tcp");
        }
        try {
            for (int i = 0; i < count; i++) {
                s.bind(new FanoutResponder(i == slowIndex ? slowDelay : Duration.ZERO));
            }
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void bind(FanoutResponder responder) {
        if (resources == null) {
            CloseableChannel c = bind(responder, TcpServerTransport.create("127.0.0.1", 0));
            servers.add(c);
            ports.add(c.address().getPort());
        } else {
            RdmaServerTransport.Bound b = bind(responder,
                    RdmaServerTransport.create(RdmaServer.create().host("127.0.0.1").port(0).runOn(resources)));
            servers.add(b);
            ports.add(b.address().getPort());
        }
    }

    private <T extends Closeable> T bind(FanoutResponder responder, ServerTransport<T> transport) {
        String what = "fan-out server " + servers.size() + " over " + (resources == null ? "TCP" : "RDMA");
        T bound;
        try {
            bound = RSocketServer.create(SocketAcceptor.with(responder)).payloadDecoder(PayloadDecoder.ZERO_COPY)
                    .bind(transport).block(BIND_TIMEOUT);
        } catch (RuntimeException e) {
            throw new PerfException("cannot start " + what + ": " + e, e);
        }
        if (bound == null) {
            throw new PerfException(what + " did not bind");
        }
        return bound;
    }

    /** The servers' ports, in the order they were started. */
    List<Integer> ports() {
        return ports;
    }

    /** What the RDMA engine counted so far; {@link EngineMeters#NONE} over TCP. */
    EngineMeters meters() {
        return registry == null ? EngineMeters.NONE : EngineMeters.snapshot(registry);
    }

    /**
     * As a forked peer's task: reports {@link PeerReporter#PORTS}, then READY (with the first port), serves until
     * told to stop, and lets the peer report its meters at each mark.
     */
    public static ServerTask task(Supplier<FanoutServers> start, Consumer<Supplier<String>> meterReports) {
        return (reporter, stop) -> {
            try (FanoutServers s = start.get()) {
                meterReports.accept(() -> s.meters().format());
                StringJoiner j = new StringJoiner(",");
                s.ports().forEach(p -> j.add(Integer.toString(p)));
                reporter.report(PeerReporter.PORTS, j.toString());
                reporter.report(PeerReporter.READY, Integer.toString(s.ports().get(0)));
                while (!stop.getAsBoolean()) {
                    Thread.sleep(50);
                }
            }
        };
    }

    @Override
    public void close() {
        try {
            servers.forEach(Closeable::dispose);
            for (Closeable c : servers) {
                c.onClose().onErrorResume(e -> Mono.empty()).block(CLOSE_TIMEOUT);
            }
        } finally {
            if (resources != null) {
                resources.dispose();
                long live = resources.allocator().liveBuffers();
                if (live != 0) {
                    throw new PerfException("the fan-out servers' registered allocator still holds " + live + " buffers after the run: "
                            + "a frame or payload was not released (run with -Dio.netty.leakDetection.level=paranoid)");
                }
            }
        }
    }
}
