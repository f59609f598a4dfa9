package io.reactorrdma.perf.echo;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.reactorrdma.perf.cli.PerfOptions;
import reactor.netty.Connection;

/**
 * Message boundaries over TCP for the echo scenario, as a Reactor Netty user would add them: a
 * 4-byte big-endian length before every message ({@link LengthFieldPrepender}) and a decoder that
 * cuts the stream back into messages and strips the length ({@link LengthFieldBasedFrameDecoder}).
 */
final class TcpFraming {

    static final int LENGTH_BYTES = 4;

    private TcpFraming() {
    }

    /** Adds the decoder and the prepender to a connection's pipeline (before Reactor Netty's own handlers). */
    static void install(Connection c) {
        c.addHandlerLast("echo-frame-decoder", new LengthFieldBasedFrameDecoder(PerfOptions.MAX_SIZE, 0, LENGTH_BYTES, 0, LENGTH_BYTES))
                .addHandlerLast("echo-frame-prepender", new LengthFieldPrepender(LENGTH_BYTES));
    }
}
