package io.reactorrdma.perf.echo;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaConnection;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.EchoLoops;
import io.reactorrdma.perf.measure.EchoTemplates;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.measure.RdmaEchoResources;
import reactor.core.publisher.Sinks;

import java.util.ArrayList;
import java.util.List;

/**
 * The client end of echo over RDMA: {@code connections} {@link RdmaConnection}s to the server
 * (sockets sharing one queue pair, as the API multiplexes them), each driving one {@link EchoLoop}:
 * messages go out through {@code outbound().send(sink)} — demand-driven, as the API's users send —
 * and echoes come in on {@code inbound().receive()}, released after the loop saw them. Messages are
 * born in registered memory ({@code alloc()}), so nothing is copied on send.
 */
final class RdmaEchoClient implements AutoCloseable {

    static final String NAME = "echo-client";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final RdmaResources resources;
    private final List<RdmaConnection> connections = new ArrayList<>();
    private final List<Sinks.Many<ByteBuf>> requests = new ArrayList<>();
    private final List<ByteBuf> templates = new ArrayList<>();

    private RdmaEchoClient(String provider, PollMode poll) {
        resources = RdmaEchoResources.create(NAME, provider, poll, registry);
    }

    static RdmaEchoClient connect(String provider, PollMode poll, int port, int connections, int size, EchoLoops loops) {
        RdmaEchoClient client = new RdmaEchoClient(provider, poll);
        try {
            RdmaClient rdma = RdmaClient.create().host("127.0.0.1").port(port).runOn(client.resources);
            for (int i = 0; i < connections; i++) {
                RdmaConnection c = rdma.connectNow();
                client.connections.add(c);
                ByteBuf template = EchoTemplates.filled(c.alloc().directBuffer(size, size), size, i);
                client.templates.add(template);
                EchoLoop loop = loops.add(new EchoLoop(loops.nextId(), template, loops));
                Sinks.Many<ByteBuf> out = Sinks.many().unicast().onBackpressureBuffer();
                client.requests.add(out);
                loop.outputTo(out);
                c.outbound().send(out.asFlux()).then().subscribe(null, loop::fail);
                c.inbound().receive().subscribe(echo -> {
                    try {
                        loop.onEcho(echo);
                    } finally {
                        echo.release();
                    }
                }, loop::fail, loop::ended);
            }
            return client;
        } catch (RuntimeException e) {
            client.close();
            throw e instanceof PerfException ? e : new PerfException("cannot connect to the RDMA echo server on 127.0.0.1:" + port
                    + " (provider " + provider + "): " + e, e);
        }
    }

    EngineMeters meters() {
        return EngineMeters.snapshot(registry);
    }

    /** The client's I/O and provider threads. */
    CpuMeter threadsCpu() {
        return RdmaEchoResources.threadsCpu(resources);
    }

    @Override
    public void close() {
        requests.forEach(Sinks.Many::tryEmitComplete);
        connections.forEach(RdmaConnection::dispose);
        templates.forEach(ByteBuf::release);
        resources.dispose();
        long live = resources.allocator().liveBuffers();
        if (live != 0) {
            throw new PerfException("the echo client's registered allocator still holds " + live + " buffers after the run: "
                    + "a message buffer was not released (a bug in the perf tool or the engine; "
                    + "run with -Dio.netty.leakDetection.level=paranoid)");
        }
    }
}
