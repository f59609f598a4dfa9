package io.reactorrdma.rsocket.testing;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.config.SoftConfig;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.util.DefaultPayload;
import reactor.core.publisher.Mono;

import java.nio.file.Paths;
import java.time.Duration;

/**
 * A replica process that recovery tests fork (the shard chaos test here, the Boot module's shard
 * clients test through this module's test jar): an RSocket server over the shm fabric that
 * answers a request-response {@code d} with {@code <name>:d}, after an optional delay, so the
 * client can tell which replica answered. Prints {@code READY <port>}; exits when its standard
 * input closes. Arguments: shm directory, peer timeout (ms), engine heartbeat (ms), port (0: any; a port again: a
 * restart on the same address), name, delay (ms).
 */
public final class ReplicaServerMain {

    public static void main(String[] args) throws Exception {
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(Paths.get(args[0]))
                .withPeerTimeout(Duration.ofMillis(Long.parseLong(args[1])));
        Duration heartbeat = Duration.ofMillis(Long.parseLong(args[2]));
        int port = Integer.parseInt(args[3]);
        String name = args[4];
        Duration delay = Duration.ofMillis(Long.parseLong(args[5]));
        RdmaResources resources = RdmaResources.builder("replica-" + name).provider("shm").softConfig(soft)
                .threads(1).idle(IdleStrategy.BLOCK).engine(EngineConfig.defaults().withHeartbeatInterval(heartbeat)).build();
        RSocket responder = new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                String data = p.getDataUtf8();
                p.release();
                Mono<Payload> answer = Mono.fromCallable(() -> DefaultPayload.create(name + ":" + data));
                return delay.isZero() ? answer : answer.delaySubscription(delay);
            }
        };
        RdmaServerTransport.Bound server = RSocketServer.create((setup, sendingSocket) -> Mono.just(responder))
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .bind(RdmaServerTransport.create(RdmaServer.create().host("127.0.0.1").port(port).runOn(resources)))
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
