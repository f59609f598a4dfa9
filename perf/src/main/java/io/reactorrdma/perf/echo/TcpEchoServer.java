package io.reactorrdma.perf.echo;

import io.reactorrdma.perf.cli.EchoReply;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.peer.ServerTask;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpServer;

import java.time.Duration;

/**
 * The server end of echo over TCP (run by a forked {@code PeerMain}): Reactor Netty's
 * {@link TcpServer} on 127.0.0.1 with {@link TcpFraming}, sending every message back —
 * {@code out.send(in.receive().retain())}, the usual Reactor Netty echo (Reactor Netty releases a
 * received buffer after handing it on, so it is retained to be sent); with {@link EchoReply#OWN}, each message
 * (retained as well) is answered with a buffer of the server's own ({@link OwnReply#answers}), which releases it.
 */
public final class TcpEchoServer {

    private TcpEchoServer() {
    }

    public static ServerTask task(EchoReply reply) {
        return (reporter, stop) -> {
            DisposableServer server;
            try {
                server = TcpServer.create().host("127.0.0.1").port(0)
                        .doOnConnection(TcpFraming::install)
                        .handle((in, out) -> out.send(OwnReply.replies(reply, out.alloc(), in.receive().retain())))
                        .bindNow(Duration.ofSeconds(30));
            } catch (RuntimeException e) {
                throw new PerfException("cannot start the TCP echo server on 127.0.0.1: " + e.getMessage(), e);
            }
            try {
                reporter.report(PeerReporter.READY, Integer.toString(server.port()));
                while (!stop.getAsBoolean()) {
                    Thread.sleep(50);
                }
            } finally {
                server.disposeNow(Duration.ofSeconds(10));
            }
        };
    }
}
