package io.reactorrdma.rsocket.boot;

import io.rsocket.DuplexConnection;
import io.rsocket.transport.ClientTransport;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the TCP side of the requesters' fallback transports: a {@code FallbackClientTransport}
 * connects over TCP only when it falls back, and closes that TCP connection once it has returned to
 * RDMA and drained, so the TCP connects are the fallbacks and the open TCP connections are the
 * connections on TCP now (a draining one included).
 */
final class FallbackConnections {

    private final LongAdder fallbacks = new LongAdder();
    private final AtomicInteger open = new AtomicInteger();

    /** {@code tcp}, counted. */
    ClientTransport track(ClientTransport tcp) {
        return new ClientTransport() {
            @Override
            public Mono<DuplexConnection> connect() {
                return Mono.defer(() -> tcp.connect().doOnNext(FallbackConnections.this::opened)); // a failed TCP connect is no fallback
            }

            @Override
            public int maxFrameLength() {
                return tcp.maxFrameLength();
            }

            @Override
            public String toString() {
                return tcp.toString();
            }
        };
    }

    private void opened(DuplexConnection connection) {
        fallbacks.increment();
        open.incrementAndGet();
        connection.onClose().doFinally(s -> open.decrementAndGet()).subscribe(null, e -> { }); // its close error is RSocket's to report
    }

    /** Fallbacks to TCP since the application started. */
    long fallbacks() {
        return fallbacks.sum();
    }

    /** TCP connections open now. */
    int inUse() {
        return open.get();
    }
}
