package io.reactorrdma.perf.echo;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.DisposableRdmaServer;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.perf.cli.EchoReply;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.measure.RdmaEchoResources;
import io.reactorrdma.perf.peer.InJvmServer;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.peer.ServerTask;

import java.time.Duration;

/**
 * The server end of echo over RDMA: an {@link RdmaServer} whose handler is the README's echo,
 * {@code (in, out) -> out.send(in.receive())} — every message goes back as the buffer it arrived
 * in (zero-copy) — or, with {@link EchoReply#OWN}, answers each message with a buffer of its own from the
 * connection's allocator ({@link OwnReply}); on its own {@link RdmaEchoResources}, with its meters in a registry of its own.
 */
public final class RdmaEchoServer implements InJvmServer {

    static final String NAME = "echo-server";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final RdmaResources resources;
    private final DisposableRdmaServer server;

    private RdmaEchoServer(String provider, PollMode poll, EchoReply reply) {
        resources = RdmaEchoResources.create(NAME, provider, poll, registry);
        try {
            server = RdmaServer.create().host("127.0.0.1").port(0).runOn(resources)
                    .handle((in, out) -> out.send(OwnReply.replies(reply, out.alloc(), in.receive())))
                    .bindNow();
        } catch (RuntimeException e) {
            resources.dispose();
            throw new PerfException("cannot start the RDMA echo server on provider " + provider + ": " + e.getMessage(), e);
        }
    }

    /** Binds on 127.0.0.1, on a port the provider picks. */
    static RdmaEchoServer start(String provider, PollMode poll, EchoReply reply) {
        return new RdmaEchoServer(provider, poll, reply);
    }

    /**
     * As a forked peer's task: reports READY with the port, serves until told to stop, and lets the peer report its
     * meters at each mark.
     */
    public static ServerTask task(String provider, PollMode poll, EchoReply reply,
            java.util.function.Consumer<java.util.function.Supplier<String>> meterReports) {
        return (reporter, stop) -> {
            try (RdmaEchoServer s = start(provider, poll, reply)) {
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
        return server.port();
    }

    @Override
    public EngineMeters meters() {
        return EngineMeters.snapshot(registry);
    }

    /** The server's I/O and provider threads. */
    @Override
    public CpuMeter threadsCpu() {
        return RdmaEchoResources.threadsCpu(resources);
    }

    @Override
    public void close() {
        server.disposeNow(Duration.ofSeconds(10));
        resources.dispose();
        long live = resources.allocator().liveBuffers();
        if (live != 0) {
            throw new PerfException("the echo server's registered allocator still holds " + live + " buffers after the run: "
                    + "a message buffer was not released (a bug in the perf tool or the engine; "
                    + "run with -Dio.netty.leakDetection.level=paranoid)");
        }
    }
}
