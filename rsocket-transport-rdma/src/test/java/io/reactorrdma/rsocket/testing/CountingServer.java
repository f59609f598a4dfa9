package io.reactorrdma.rsocket.testing;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.rsocket.RdmaDuplexConnection;
import io.rsocket.DuplexConnection;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import io.rsocket.util.DefaultPayload;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server of the recovery tests: an RSocket responder that counts the requests (frames opening
 * a stream) it receives per transport, and the SETUP data each connection announced.
 * Request-response answers {@code re:<data>}, after {@code <ms>} for {@code slow:<ms>:<x>};
 * request-stream {@code tick:<n>:<ms>} sends {@code n} items {@code ms} apart ({@code n}
 * < 0: endless); channels echo {@code ch:<data>}.
 */
public final class CountingServer {

    public final AtomicLong rdmaRequests = new AtomicLong();
    public final AtomicLong tcpRequests = new AtomicLong();
    public final Queue<String> setups = new ConcurrentLinkedQueue<>();

    public RSocketServer server() {
        return RSocketServer.create((setup, sendingSocket) -> {
                    setups.add(setup.getDataUtf8());
                    return Mono.just(responder());
                })
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .interceptors(r -> r.forConnection((type, c) -> type == DuplexConnectionInterceptor.Type.SOURCE ? new Counting(c) : c));
    }

    public static String data(Payload p) {
        try {
            return p.getDataUtf8();
        } finally {
            p.release();
        }
    }

    private static RSocket responder() {
        return new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                String d = data(p);
                if (d.startsWith("slow:")) {
                    String[] parts = d.split(":", 3);
                    return Mono.delay(Duration.ofMillis(Long.parseLong(parts[1]))).map(t -> DefaultPayload.create("re:" + parts[2]));
                }
                return Mono.just(DefaultPayload.create("re:" + d));
            }

            @Override
            public Flux<Payload> requestStream(Payload p) {
                String[] parts = data(p).split(":");
                long n = Long.parseLong(parts[1]);
                Flux<Long> ticks = Flux.interval(Duration.ofMillis(Long.parseLong(parts[2])));
                return (n < 0 ? ticks : ticks.take(n)).onBackpressureDrop().map(i -> DefaultPayload.create("item " + i));
            }

            @Override
            public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
                return Flux.from(payloads).map(p -> DefaultPayload.create("ch:" + data(p)));
            }

            @Override
            public Mono<Void> fireAndForget(Payload p) {
                p.release();
                return Mono.empty();
            }
        };
    }

    /** Counts the requests arriving on one connection, by the transport it runs on. */
    private final class Counting extends ForwardingDuplexConnection {
        private final AtomicLong counter;

        Counting(DuplexConnection delegate) {
            super(delegate);
            this.counter = delegate instanceof RdmaDuplexConnection ? rdmaRequests : tcpRequests;
        }

        @Override
        public Flux<ByteBuf> receive() {
            return delegate.receive().doOnNext(f -> {
                FrameType t = FrameHeaderCodec.nativeFrameType(f);
                if (t == FrameType.REQUEST_RESPONSE || t == FrameType.REQUEST_STREAM || t == FrameType.REQUEST_CHANNEL
                        || t == FrameType.REQUEST_FNF) {
                    counter.incrementAndGet();
                }
            });
        }
    }
}
