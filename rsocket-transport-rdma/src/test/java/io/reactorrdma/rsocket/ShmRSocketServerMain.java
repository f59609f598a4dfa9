package io.reactorrdma.rsocket;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.util.DefaultPayload;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server process of {@link RSocketCrossProcessTest}: an RSocket server over the shm fabric
 * answering all four interaction models. Prints {@code READY <port>}; exits when its standard
 * input closes. Arguments: the shm directory and the peer timeout in milliseconds.
 */
public final class ShmRSocketServerMain {

    public static void main(String[] args) throws Exception {
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(Paths.get(args[0]))
                .withPeerTimeout(Duration.ofMillis(Long.parseLong(args[1])));
        RdmaResources resources = RdmaResources.builder("rsocket-xp-server").provider("shm").softConfig(soft)
                .threads(1).idle(IdleStrategy.BLOCK).build();
        AtomicLong fireAndForgets = new AtomicLong();
        RSocket responder = new RSocket() {
            @Override
            public Mono<Void> fireAndForget(Payload p) {
                fireAndForgets.incrementAndGet();
                p.release();
                return Mono.empty();
            }

            @Override
            public Mono<Payload> requestResponse(Payload p) {
                String data = p.getDataUtf8();
                p.release();
                // "count" reports how many fire-and-forgets arrived, so the client can check them
                return Mono.just(DefaultPayload.create(data.equals("count") ? Long.toString(fireAndForgets.get()) : "re:" + data));
            }

            @Override
            public Flux<Payload> requestStream(Payload p) {
                long n = Long.parseLong(p.getDataUtf8());
                p.release();
                return Flux.range(0, (int) Math.min(n, Integer.MAX_VALUE)).map(i -> DefaultPayload.create("item " + i));
            }

            @Override
            public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
                return Flux.from(payloads).map(p -> {
                    String d = p.getDataUtf8();
                    p.release();
                    return DefaultPayload.create("ch:" + d);
                });
            }
        };
        RdmaServerTransport.Bound server = RSocketServer.create((setup, sendingSocket) -> Mono.just(responder))
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .bind(RdmaServerTransport.create(RdmaServer.create().host("127.0.0.1").port(0).runOn(resources)))
                .block(Duration.ofSeconds(30));
        System.out.println("READY " + server.address().getPort());
        System.out.flush();
        while (System.in.read() >= 0) {
            // until the parent closes our stdin
        }
        server.dispose();
        resources.dispose();
        System.exit(0);
    }
}
