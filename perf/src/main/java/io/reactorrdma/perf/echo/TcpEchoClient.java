package io.reactorrdma.perf.echo;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.measure.EchoLoops;
import io.reactorrdma.perf.measure.EchoTemplates;
import reactor.core.publisher.Sinks;
import reactor.netty.Connection;
import reactor.netty.tcp.TcpClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The client end of echo over TCP: {@code connections} Reactor Netty {@link TcpClient} connections
 * to 127.0.0.1 with {@link TcpFraming}, each driving one {@link EchoLoop}: messages go out through
 * {@code outbound().send(sink)}, echoes come in on {@code inbound().receive()} (Reactor Netty
 * releases each after the loop saw it). Runs on Reactor Netty's default event loops.
 */
final class TcpEchoClient implements AutoCloseable {

    private final List<Connection> connections = new ArrayList<>();
    private final List<Sinks.Many<ByteBuf>> requests = new ArrayList<>();
    private final List<ByteBuf> templates = new ArrayList<>();

    private TcpEchoClient() {
    }

    static TcpEchoClient connect(int port, int connections, int size, EchoLoops loops) {
        TcpEchoClient client = new TcpEchoClient();
        try {
            TcpClient tcp = TcpClient.create().host("127.0.0.1").port(port).doOnConnected(TcpFraming::install);
            for (int i = 0; i < connections; i++) {
                Connection c = tcp.connectNow(Duration.ofSeconds(30));
                client.connections.add(c);
                ByteBuf template = EchoTemplates.filled(c.channel().alloc().directBuffer(size, size), size, i);
                client.templates.add(template);
                EchoLoop loop = loops.add(new EchoLoop(loops.nextId(), template, loops));
                Sinks.Many<ByteBuf> out = Sinks.many().unicast().onBackpressureBuffer();
                client.requests.add(out);
                loop.outputTo(out);
                c.outbound().send(out.asFlux()).then().subscribe(null, loop::fail);
                c.inbound().receive().subscribe(loop::onEcho, loop::fail, loop::ended);
            }
            return client;
        } catch (RuntimeException e) {
            client.close();
            throw e instanceof PerfException ? e
                    : new PerfException("cannot connect to the TCP echo server on 127.0.0.1:" + port + ": " + e, e);
        }
    }

    @Override
    public void close() {
        requests.forEach(Sinks.Many::tryEmitComplete);
        connections.forEach(c -> c.disposeNow(Duration.ofSeconds(10)));
        templates.forEach(ByteBuf::release);
    }
}
